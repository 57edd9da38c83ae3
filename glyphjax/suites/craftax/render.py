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
