"""Glyph renderer of the Craftax suite: an egocentric window over the package's state.

One suite-wide table gives every block, item and mob type its own code point (the same meaning
in every Craftax task); a task's card names the subset its engine can draw. The player is drawn
as an arrow pointing where it faces (the block that DO acts on), or `z` while asleep. The HUD
carries what the grid cannot show: vitals, daylight, inventory and achievements.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.suites.craftax import engine

# name -> (glyph, meaning). Block names are the package's BlockType names.
GLYPHS: dict[str, tuple[str, str]] = {
    "OUT_OF_BOUNDS": ("█", "edge of the world (impassable)"),
    "GRASS": (".", "grass"),
    "WATER": ("~", "water (DO facing it: drink)"),
    "STONE": ("#", "stone (mine with a wood pickaxe)"),
    "TREE": ("T", "tree (DO facing it: collect wood)"),
    "WOOD": ("W", "wood block"),
    "PATH": ("_", "path (mined ground, walkable)"),
    "COAL": ("c", "coal ore (mine with a wood pickaxe)"),
    "IRON": ("i", "iron ore (mine with a stone pickaxe)"),
    "DIAMOND": ("◆", "diamond ore (mine with an iron pickaxe)"),
    "CRAFTING_TABLE": ("t", "crafting table"),
    "FURNACE": ("f", "furnace"),
    "SAND": (":", "sand"),
    "LAVA": ("≈", "lava (walking in kills you)"),
    "PLANT": ("p", "sapling (growing plant)"),
    "RIPE_PLANT": ("P", "ripe plant (DO facing it: eat)"),
    "ZOMBIE": ("Z", "zombie (hostile, melee)"),
    "COW": ("C", "cow (DO to hit; killing it gives food)"),
    "SKELETON": ("S", "skeleton (hostile, shoots arrows)"),
    "ARROW": ("*", "arrow in flight"),
    "PLAYER_LEFT": ("←", "you, facing left"),
    "PLAYER_RIGHT": ("→", "you, facing right"),
    "PLAYER_UP": ("↑", "you, facing up"),
    "PLAYER_DOWN": ("↓", "you, facing down"),
    "PLAYER_ASLEEP": ("z", "you, asleep"),
    # full Craftax only
    "WALL": ("▓", "dungeon wall"), "DARKNESS": ("░", "darkness (you cannot see there)"),
    "WALL_MOSS": ("▒", "mossy wall"), "STALAGMITE": ("^", "stalagmite"), "SAPPHIRE": ("s", "sapphire ore"),
    "RUBY": ("r", "ruby ore"), "CHEST": ("□", "chest (DO: open)"), "FOUNTAIN": ("¤", "fountain (DO: drink)"),
    "FIRE_GRASS": ('"', "fire grass"), "ICE_GRASS": ("'", "ice grass"), "GRAVEL": (",", "gravel"),
    "FIRE_TREE": ("Y", "fire tree"), "ICE_SHRUB": ("♣", "ice shrub"),
    "ENCHANTMENT_TABLE_FIRE": ("E", "fire enchantment table"), "ENCHANTMENT_TABLE_ICE": ("e", "ice enchantment table"),
    "NECROMANCER": ("N", "necromancer"), "GRAVE": ("▲", "grave"), "GRAVE2": ("▼", "grave (second kind)"),
    "GRAVE3": ("⌂", "grave (third kind)"), "NECROMANCER_VULNERABLE": ("n", "necromancer, vulnerable (hit it now)"),
    "TORCH": ("ι", "torch"), "LADDER_DOWN": (">", "ladder down (DESCEND)"), "LADDER_UP": ("<", "ladder up (ASCEND)"),
    "LADDER_DOWN_BLOCKED": ("≥", "ladder down, blocked (kill more monsters on this floor)"),
    "GNOME_WARRIOR": ("G", "gnome warrior (melee)"), "ORC_SOLDIER": ("O", "orc soldier (melee)"),
    "LIZARD": ("L", "lizard (melee)"), "KNIGHT": ("K", "knight (melee)"), "TROLL": ("Ø", "troll (melee)"),
    "PIGMAN": ("Þ", "pigman (melee)"), "FROST_TROLL": ("Æ", "frost troll (melee)"), "BAT": ("B", "bat"),
    "SNAIL": ("σ", "snail"), "GNOME_ARCHER": ("g", "gnome archer (ranged)"), "ORC_MAGE": ("o", "orc mage (ranged)"),
    "KOBOLD": ("k", "kobold (ranged)"), "ARCHER": ("A", "archer (ranged)"), "DEEP_THING": ("Ð", "deep thing (ranged)"),
    "FIRE_ELEMENTAL": ("§", "fire elemental (ranged)"), "ICE_ELEMENTAL": ("ß", "ice elemental (ranged)"),
    "DAGGER": ("/", "dagger in flight"), "FIREBALL": ("°", "fireball in flight"), "ICEBALL": ("•", "iceball in flight"),
    "SLIMEBALL": ("○", "slimeball in flight"), "YOUR_ARROW": ("+", "your arrow in flight"),
    "YOUR_DAGGER": ("\\", "your dagger in flight"), "YOUR_FIREBALL": ("☼", "your fireball in flight"),
    "YOUR_ICEBALL": ("µ", "your iceball in flight"), "YOUR_SLIMEBALL": ("◎", "your slimeball in flight"),
}

_CLASSIC_DRAWN = (*[b for b in engine.CLASSIC_BLOCKS if b != "INVALID"], "ZOMBIE", "COW", "SKELETON", "ARROW",
                  "PLAYER_LEFT", "PLAYER_RIGHT", "PLAYER_UP", "PLAYER_DOWN", "PLAYER_ASLEEP")
CLASSIC_GLYPHS = {GLYPHS[n][0]: GLYPHS[n][1] for n in _CLASSIC_DRAWN}


def _code(name: str) -> int:
    return ord(GLYPHS[name][0])


# Block id -> code point (INVALID never appears in a world; it is drawn as the world's edge).
_CLASSIC_BLOCK_CODES = np.array([_code("OUT_OF_BOUNDS" if b == "INVALID" else b) for b in engine.CLASSIC_BLOCKS],
                                np.uint32)
# Craftax directions: LEFT=1, RIGHT=2, UP=3, DOWN=4.
_PLAYER_CODES = np.array([_code("PLAYER_UP"), _code("PLAYER_LEFT"), _code("PLAYER_RIGHT"), _code("PLAYER_UP"),
                          _code("PLAYER_DOWN")], np.uint32)

# Achievements are shown in groups of 4 bits, each group an enum over its 16 subsets.
ACHIEVEMENT_GROUP = 4


def achievement_groups(names: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """Per group of ACHIEVEMENT_GROUP achievements: the text of each of its subsets (bit i of the
    subset index = the group's i-th achievement), names in lower case, each followed by a space."""
    groups = []
    for start in range(0, len(names), ACHIEVEMENT_GROUP):
        part = names[start:start + ACHIEVEMENT_GROUP]
        groups.append(tuple("".join(part[i].lower() + " " for i in range(len(part)) if mask >> i & 1)
                            for mask in range(1 << len(part))))
    return tuple(groups)


def achievement_fields(achievements: jax.Array) -> list[jax.Array]:
    """int32 per group: the subset index of the achievements unlocked in it."""
    bits = achievements.astype(jnp.int32)
    out = []
    for start in range(0, bits.shape[0], ACHIEVEMENT_GROUP):
        part = bits[start:start + ACHIEVEMENT_GROUP]
        out.append(jnp.sum(part << jnp.arange(part.shape[0], dtype=jnp.int32)))
    return out


def window(block_map: jax.Array, center: jax.Array, shape: tuple[int, int], outside: int) -> jax.Array:
    """Block ids of the `shape` = (rows, cols) window centred on `center`; `outside` beyond the map."""
    rows = center[0] + jnp.arange(shape[0]) - shape[0] // 2
    cols = center[1] + jnp.arange(shape[1]) - shape[1] // 2
    inside = ((rows >= 0) & (rows < block_map.shape[0]))[:, None] & ((cols >= 0) & (cols < block_map.shape[1]))[None]
    blocks = block_map[jnp.clip(rows, 0, block_map.shape[0] - 1)[:, None], jnp.clip(cols, 0, block_map.shape[1] - 1)[None]]
    return jnp.where(inside, blocks, outside)


def draw_mobs(grid: jax.Array, center: jax.Array, position: jax.Array, mask: jax.Array, code: int) -> jax.Array:
    """`grid` with `code` at every live mob of a pool that falls inside the window."""
    h, w = grid.shape
    rel = position - center[None] + jnp.array([h // 2, w // 2])
    ok = mask & (rel[:, 0] >= 0) & (rel[:, 0] < h) & (rel[:, 1] >= 0) & (rel[:, 1] < w)
    rows = jnp.where(ok, rel[:, 0], h)  # out of range: dropped
    return grid.at[rows, rel[:, 1]].set(jnp.uint32(code), mode="drop")


def classic_grid(game) -> jax.Array:
    """uint32[7, 9]: the Classic window around the player, mobs over blocks, the player on top."""
    pos = game.player_position
    blocks = window(game.map, pos, engine.CLASSIC_VIEW, engine.Block.OUT_OF_BOUNDS.value)
    grid = jnp.asarray(_CLASSIC_BLOCK_CODES)[blocks]
    for pool, name in ((game.arrows, "ARROW"), (game.cows, "COW"), (game.zombies, "ZOMBIE"),
                       (game.skeletons, "SKELETON")):
        grid = draw_mobs(grid, pos, pool.position, pool.mask, _code(name))
    player = jnp.where(game.is_sleeping, jnp.uint32(_code("PLAYER_ASLEEP")),
                       jnp.asarray(_PLAYER_CODES)[jnp.clip(game.player_direction, 0, 4)])
    h, w = engine.CLASSIC_VIEW
    return grid.at[h // 2, w // 2].set(player)


CLASSIC_HUD_FIELDS = ("health", "food", "drink", "energy", "daylight", *engine.CLASSIC_INVENTORY, "achieved",
                      *[f"ach{i}" for i in range(len(achievement_groups(engine.CLASSIC_ACHIEVEMENTS)))])
CLASSIC_HUD = ("Health {health}/9  Food {food}/9  Drink {drink}/9  Energy {energy}/9  Daylight {daylight}%"
               "    Step {step} / {max_steps}\n"
               "Inventory: " + ", ".join(f"{n.replace('_', ' ')} {{{n}}}" for n in engine.CLASSIC_INVENTORY) + "\n"
               "Achievements ({achieved}/22): " + "".join(
                   f"{{ach{i}}}" for i in range(len(achievement_groups(engine.CLASSIC_ACHIEVEMENTS)))))
CLASSIC_HUD_ENUMS = {f"ach{i}": g for i, g in enumerate(achievement_groups(engine.CLASSIC_ACHIEVEMENTS))}


def classic_hud(game) -> list[jax.Array]:
    """int32 values of CLASSIC_HUD_FIELDS (after the shell's step counter)."""
    inv = [getattr(game.inventory, n) for n in engine.CLASSIC_INVENTORY]
    daylight = jnp.round(jnp.clip(game.light_level, 0.0, 1.0) * 100).astype(jnp.int32)
    return [game.player_health, game.player_food, game.player_drink, game.player_energy, daylight, *inv,
            jnp.sum(game.achievements.astype(jnp.int32)), *achievement_fields(game.achievements)]


# --- full Craftax --------------------------------------------------------------------------------
# Mob classes in the package's order (melee, passive, ranged, mob projectiles, player projectiles),
# 8 type ids each; None = a type id the class never uses.
_FULL_MOBS = (
    ("ZOMBIE", "GNOME_WARRIOR", "ORC_SOLDIER", "LIZARD", "KNIGHT", "TROLL", "PIGMAN", "FROST_TROLL"),
    ("COW", "BAT", "SNAIL", None, None, None, None, None),
    ("SKELETON", "GNOME_ARCHER", "ORC_MAGE", "KOBOLD", "ARCHER", "DEEP_THING", "FIRE_ELEMENTAL", "ICE_ELEMENTAL"),
    ("ARROW", "DAGGER", "FIREBALL", "ICEBALL", "ARROW", "SLIMEBALL", "FIREBALL", "ICEBALL"),
    ("YOUR_ARROW", "YOUR_DAGGER", "YOUR_FIREBALL", "YOUR_ICEBALL", "YOUR_ARROW", "YOUR_SLIMEBALL", "YOUR_FIREBALL",
     "YOUR_ICEBALL"),
)
_FULL_DRAWN = ({b for b in engine.FULL_BLOCKS if b != "INVALID"} | {i for i in engine.FULL_ITEMS if i != "NONE"}
               | {m for cls in _FULL_MOBS for m in cls if m} | {n for n in GLYPHS if n.startswith("PLAYER_")})
FULL_GLYPHS = {GLYPHS[n][0]: GLYPHS[n][1] for n in GLYPHS if n in _FULL_DRAWN}
_FULL_BLOCK_CODES = np.array([_code("OUT_OF_BOUNDS" if b == "INVALID" else b) for b in engine.FULL_BLOCKS], np.uint32)
_FULL_ITEM_CODES = np.array([0] + [_code(i) for i in engine.FULL_ITEMS[1:]], np.uint32)
_FULL_MOB_CODES = np.array([[_code(m) if m else 0 for m in cls] for cls in _FULL_MOBS], np.uint32)
VISIBLE_LIGHT = 0.05  # a cell is seen when its light exceeds this (the package's text renderer)


def full_grid(game) -> jax.Array:
    """uint32[9, 11]: the full-game window on the player's floor: blocks, items over them, mobs
    over those (projectiles lowest, melee on top), the player, then darkness where unlit."""
    lvl, pos = game.player_level, game.player_position
    shape = engine.FULL_VIEW
    blocks = window(game.map[lvl], pos, shape, engine.full_constants.BlockType.OUT_OF_BOUNDS.value)
    items = window(game.item_map[lvl], pos, shape, 0)
    grid = jnp.where(items > 0, jnp.asarray(_FULL_ITEM_CODES)[items], jnp.asarray(_FULL_BLOCK_CODES)[blocks])
    pools = (game.melee_mobs, game.passive_mobs, game.ranged_mobs, game.mob_projectiles, game.player_projectiles)
    for cls in (4, 3, 1, 2, 0):
        pool = jax.tree.map(lambda x: x[lvl], pools[cls])
        codes = jnp.asarray(_FULL_MOB_CODES[cls])[jnp.clip(pool.type_id, 0, 7)]
        grid = _draw_typed(grid, pos, pool.position, pool.mask & (codes > 0), codes)
    player = jnp.where(game.is_sleeping, jnp.uint32(_code("PLAYER_ASLEEP")),
                       jnp.asarray(_PLAYER_CODES)[jnp.clip(game.player_direction, 0, 4)])
    grid = grid.at[shape[0] // 2, shape[1] // 2].set(player)
    lit = window(game.light_map[lvl], pos, shape, 0.0) > VISIBLE_LIGHT
    return jnp.where(lit, grid, jnp.uint32(_code("DARKNESS")))


def _draw_typed(grid, center, position, mask, codes):
    """`draw_mobs` with one code per mob."""
    h, w = grid.shape
    rel = position - center[None] + jnp.array([h // 2, w // 2])
    ok = mask & (rel[:, 0] >= 0) & (rel[:, 0] < h) & (rel[:, 1] >= 0) & (rel[:, 1] < w)
    return grid.at[jnp.where(ok, rel[:, 0], h), rel[:, 1]].set(codes.astype(jnp.uint32), mode="drop")


FLOORS = ("overworld", "dungeon", "gnomish mines", "sewers", "vaults", "troll mines", "fire realm", "ice realm",
          "graveyard")
_TIERS = ("none", "wood", "stone", "iron", "diamond")
_ARMOUR = ("none", "iron", "diamond")
_FULL_INVENTORY = ("wood", "stone", "coal", "iron", "diamond", "sapphire", "ruby", "sapling", "torches", "arrows", "books")
_POTIONS = ("red", "green", "blue", "pink", "cyan", "yellow")
_ARMOUR_SLOTS = ("helmet", "chestplate", "leggings", "boots")
_FULL_GROUPS = achievement_groups(engine.FULL_ACHIEVEMENTS)
FULL_HUD_FIELDS = ("health", "food", "drink", "energy", "mana", "xp", "dexterity", "strength", "intelligence",
                   "floor", "ladder", "daylight", *_FULL_INVENTORY, "pickaxe", "sword", "bow",
                   *_ARMOUR_SLOTS, *[f"potion_{c}" for c in _POTIONS], "fireball", "iceball", "achieved",
                   *[f"ach{i}" for i in range(len(_FULL_GROUPS))])
FULL_HUD = ("Health {health}/9  Food {food}/9  Drink {drink}/9  Energy {energy}/9  Mana {mana}/9  Daylight {daylight}%"
            "    Step {step} / {max_steps}\n"
            "Floor {floor}  Ladder down: {ladder}  XP {xp}  Dexterity {dexterity}  Strength {strength}  "
            "Intelligence {intelligence}\n"
            "Inventory: " + ", ".join(f"{n} {{{n}}}" for n in _FULL_INVENTORY) + "\n"
            "Tools: pickaxe {pickaxe}, sword {sword}, bow {bow}; armour: " + ", ".join(
                f"{s} {{{s}}}" for s in _ARMOUR_SLOTS) + "\n"
            "Potions: " + ", ".join(f"{c} {{potion_{c}}}" for c in _POTIONS) + "  Spells: fireball {fireball}, "
            "iceball {iceball}\n"
            f"Achievements ({{achieved}}/{len(engine.FULL_ACHIEVEMENTS)}): "
            + "".join(f"{{ach{i}}}" for i in range(len(_FULL_GROUPS))))
FULL_HUD_ENUMS = {"floor": FLOORS, "ladder": ("closed", "open"), "pickaxe": _TIERS, "sword": _TIERS,
                  "bow": ("none", "yes"), "fireball": ("not learned", "learned"), "iceball": ("not learned", "learned"),
                  **{s: _ARMOUR for s in _ARMOUR_SLOTS}, **{f"ach{i}": g for i, g in enumerate(_FULL_GROUPS)}}


def full_hud(game) -> list[jax.Array]:
    """int32 values of FULL_HUD_FIELDS (health rounded to an integer)."""
    inv = game.inventory
    lvl = game.player_level
    daylight = jnp.round(jnp.clip(game.light_level, 0.0, 1.0) * 100).astype(jnp.int32)
    ladder = (game.monsters_killed[lvl] >= engine.FULL_CLEAR_KILLS).astype(jnp.int32)
    return [jnp.round(game.player_health).astype(jnp.int32), game.player_food, game.player_drink, game.player_energy,
            game.player_mana, game.player_xp, game.player_dexterity, game.player_strength, game.player_intelligence,
            jnp.clip(lvl, 0, len(FLOORS) - 1), ladder, daylight,
            *[getattr(inv, "torches" if n == "torches" else n) for n in _FULL_INVENTORY],
            jnp.clip(inv.pickaxe, 0, 4), jnp.clip(inv.sword, 0, 4), jnp.clip(inv.bow, 0, 1),
            *[jnp.clip(inv.armour[i], 0, 2) for i in range(4)], *[inv.potions[i] for i in range(6)],
            game.learned_spells[0].astype(jnp.int32), game.learned_spells[1].astype(jnp.int32),
            jnp.sum(game.achievements.astype(jnp.int32)), *achievement_fields(game.achievements)]
