"""Craftax's own observation formats over our states: native text and pixels (`obs_format`).

`native_text` is the package's text description (`craftax.craftax.renderer.render_craftax_text`,
full game), computed here with NumPy from one host copy of the state instead of the package's
per-cell device reads, so it equals the package's string at a fraction of its cost (tests
compare them). Craftax-Classic has no text renderer in the package; `classic_native_text` gives
the same format over the Classic state (its blocks, mobs, 12 inventory counts and vitals).
`pixels` is the package's agent pixel renderer (`make_craftax_pixel_renderer`, jittable),
built from its own texture loader at that one size, without its all-sizes cache.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import numpy as np

from glyphjax.harness.prompt import png_base64  # noqa: F401 - an image observation as a PNG (for vision models)
from glyphjax.suites.craftax import engine

OBS_FORMATS = ("glyph", "native_text", "pixels")
_MOB_TYPES = 8  # type ids per mob class in the package's text renderer (5 classes)
_FULL_MOB_NAMES = {
    **dict(enumerate(("Zombie", "Gnome Warrior", "Orc Soldier", "Lizard", "Knight", "Troll", "Pigman",
                      "Frost Troll"))),
    8: "Cow", 9: "Bat", 10: "Snail",
    **{16 + i: n for i, n in enumerate(("Skeleton", "Gnome Archer", "Orc Mage", "Kobold", "Archer", "Deep Thing",
                                        "Fire Elemental", "Ice Elemental"))},
    **{24 + i: n for i, n in enumerate(("Arrow", "Dagger", "Fireball", "Iceball", "Arrow", "Slimeball", "Fireball",
                                        "Iceball"))},
    **{32 + i: f"{n} (Player)" for i, n in enumerate(("Arrow", "Dagger", "Fireball", "Iceball", "Arrow", "Slimeball",
                                                      "Fireball", "Iceball"))},
}
_MATERIALS = {1: "Wood", 2: "Stone", 3: "Iron", 4: "Diamond"}
_ENCHANTMENTS = {0: "No", 1: "Fire", 2: "Ice"}
_ARMOUR = {1: "Iron", 2: "Diamond"}
_ARMOUR_SLOTS = ("Helmet", "Chestplate", "Leggings", "Boots")
_POTIONS = ("Red", "Green", "Blue", "Pink", "Cyan", "Yellow")
_FULL_COUNTS = (("Wood", "wood"), ("Stone", "stone"), ("Coal", "coal"), ("Iron", "iron"), ("Diamond", "diamond"),
                ("Sapphire", "sapphire"), ("Ruby", "ruby"), ("Sapling", "sapling"), ("Torch", "torches"),
                ("Arrow", "arrows"), ("Book", "books"))
_DIRECTIONS = ("noop", "left", "right", "up", "down")  # the package's Action names of directions 1-4


def _view(grid: np.ndarray, center: np.ndarray, shape: tuple[int, int], outside: Any) -> np.ndarray:
    """The `shape` window of `grid` centred on `center`, `outside` beyond its edges."""
    pad = max(shape) + 2
    padded = np.pad(grid, pad, constant_values=outside)
    r, c = np.asarray(center) - np.array(shape) // 2 + pad
    return padded[r:r + shape[0], c:c + shape[1]]


def _mob_map(pools: list[tuple[np.ndarray, np.ndarray, np.ndarray]], center: np.ndarray,
             shape: tuple[int, int], channels: int) -> np.ndarray:
    """int[H, W, channels] as the package builds it: every mob slot in order writes 1 at its
    cell when live and on screen, else 0 there (negative cells wrap once, others drop)."""
    out = np.zeros((*shape, channels), np.int32)
    for positions, mask, channel in pools:
        for pos, live, ch in zip(positions, mask, channel):
            local = np.asarray(pos) - center + np.array(shape) // 2
            shown = bool(live) and bool(np.all((local >= 0) & (local < np.array(shape))))
            r, c = (int(v) + n if v < 0 else int(v) for v, n in zip(local, shape))
            if 0 <= r < shape[0] and 0 <= c < shape[1]:
                out[r, c, int(ch)] = int(shown)
    return out


def _map_lines(blocks: np.ndarray, names: Callable[[int, int], str]) -> str:
    """The package's 'Map:' section: one line per cell, column offset first."""
    h, w = blocks.shape
    return "Map:\n" + "".join(f"{y - w // 2}, {x - h // 2}: {names(x, y)}\n" for x in range(h) for y in range(w))


def full_native_text(game: Any) -> str:
    """The package's `render_craftax_text` of a full-game state (one state, not a batch)."""
    g = jax.device_get(game)
    k = engine.full_constants
    lvl, pos, shape = int(g.player_level), np.asarray(g.player_position), k.OBS_DIM
    blocks = _view(np.asarray(g.map[lvl]), pos, shape, k.BlockType.OUT_OF_BOUNDS.value)
    items = _view(np.asarray(g.item_map[lvl]), pos, shape, k.ItemType.NONE.value)
    lit = _view(np.asarray(g.light_map[lvl]), pos, shape, 0.0) > 0.05
    pools = [(p.position[lvl], p.mask[lvl], cls * _MOB_TYPES + np.asarray(p.type_id[lvl]))
             for cls, p in enumerate((g.melee_mobs, g.passive_mobs, g.ranged_mobs, g.mob_projectiles,
                                      g.player_projectiles))]
    mobs = _mob_map(pools, pos, shape, 5 * _MOB_TYPES)

    def cell(x: int, y: int) -> str:
        if not lit[x, y]:
            return "Darkness"
        text = _FULL_MOB_NAMES[int(mobs[x, y].argmax())] + " on " if mobs[x, y].max() > 0.5 else ""
        if items[x, y] != k.ItemType.NONE.value:
            text += k.ItemType(int(items[x, y])).name.lower() + " on "
        return text + k.BlockType(int(blocks[x, y])).name.lower()

    return _map_lines(blocks, cell) + _full_inventory(g) + _full_status(g, k)


def _full_inventory(g: Any) -> str:
    """The package's inventory section: counts, tools, potions, armour."""
    inv = g.inventory
    text = "\nInventory:\n" + "".join(f"{label}: {getattr(inv, field)}\n" for label, field in _FULL_COUNTS)
    if inv.pickaxe > 0:
        text += _MATERIALS[int(inv.pickaxe)] + " Pickaxe\n"
    if inv.sword > 0:
        text += f"{_MATERIALS[int(inv.sword)]} Sword with {_ENCHANTMENTS[int(g.sword_enchantment)]} enchantment\n"
    if inv.bow > 0:
        text += f"Bow with {_ENCHANTMENTS[int(g.bow_enchantment)]} enchantment\n"
    text += "".join(f"{c} potion: {inv.potions[i]}\n" for i, c in enumerate(_POTIONS))
    for i, slot in enumerate(_ARMOUR_SLOTS):
        if inv.armour[i] > 0:
            text += (f"{_ARMOUR[int(inv.armour[i])]} {slot} with "
                     f"{_ENCHANTMENTS[int(g.armour_enchantments[i])]} enchantment\n")
    return text


def _full_status(g: Any, k: Any) -> str:
    """The package's vitals and flags section."""
    lvl = int(g.player_level)
    boss = (g.melee_mobs.mask[lvl].sum() == 0) & (g.ranged_mobs.mask[lvl].sum() == 0) & (
        g.boss_timesteps_to_spawn_this_round <= 0)
    vitals = (("Health", g.player_health), ("Food", g.player_food), ("Drink", g.player_drink),
              ("Energy", g.player_energy), ("Mana", g.player_mana), ("XP", g.player_xp),
              ("Dexterity", g.player_dexterity), ("Strength", g.player_strength),
              ("Intelligence", g.player_intelligence))
    return ("".join(f"{n}: {v}\n" for n, v in vitals)
            + f"Direction: {_DIRECTIONS[int(g.player_direction)]}\n"
            f"Light: {g.light_level}\nIs Sleeping: {g.is_sleeping}\nIs Resting: {g.is_resting}\n"
            f"Learned Fireball: {g.learned_spells[0]}\nLearned Iceball: {g.learned_spells[1]}\n"
            f"Floor: {g.player_level}\n"
            f"Ladder Open: {g.monsters_killed[lvl] >= k.MONSTERS_KILLED_TO_CLEAR_LEVEL}\n"
            f"Is Boss Vulnerable: {np.bool_(boss)}\n")


CLASSIC_MOB_NAMES = ("Zombie", "Cow", "Skeleton", "Arrow")  # the package's Classic symbolic mob channels
CLASSIC_COUNTS = tuple((n.replace("_", " ").capitalize(), n) for n in engine.CLASSIC_INVENTORY)


def classic_native_text(game: Any) -> str:
    """The package's text format over a Craftax-Classic state (the package has none for Classic):
    every cell visible (Classic has no light map), its 12 inventory counts, vitals, direction,
    light level and sleep."""
    g = jax.device_get(game)
    pos, shape = np.asarray(g.player_position), engine.CLASSIC_VIEW
    blocks = _view(np.asarray(g.map), pos, shape, engine.Block.OUT_OF_BOUNDS.value)
    pools = [(p.position, p.mask, np.full(p.mask.shape, i)) for i, p in enumerate((g.zombies, g.cows, g.skeletons,
                                                                                  g.arrows))]
    mobs = _mob_map(pools, pos, shape, len(CLASSIC_MOB_NAMES))

    def cell(x: int, y: int) -> str:
        text = CLASSIC_MOB_NAMES[int(mobs[x, y].argmax())] + " on " if mobs[x, y].max() > 0.5 else ""
        return text + engine.Block(int(blocks[x, y])).name.lower()

    vitals = (("Health", g.player_health), ("Food", g.player_food), ("Drink", g.player_drink),
              ("Energy", g.player_energy))
    return (_map_lines(blocks, cell) + "\nInventory:\n"
            + "".join(f"{label}: {getattr(g.inventory, field)}\n" for label, field in CLASSIC_COUNTS)
            + "".join(f"{n}: {v}\n" for n, v in vitals)
            + f"Direction: {_DIRECTIONS[int(g.player_direction)]}\n"
            f"Light: {g.light_level}\nIs Sleeping: {g.is_sleeping}\n")


def is_full(game: Any) -> bool:
    """Whether `game` is a full-game state (else Craftax-Classic)."""
    return hasattr(game, "player_level")


def native_text(game: Any) -> str:
    """Craftax's text description of one package state, Classic or full."""
    return full_native_text(game) if is_full(game) else classic_native_text(game)


_PIXEL_RENDERERS: dict[bool, Callable] = {}


def pixel_renderer(full: bool) -> Callable[[Any], jax.Array]:
    """The package's agent pixel observation of one state, float32[H, W, 3] in [0, 1] (its
    `get_obs`: the renderer's output / 255); jitted; vmap it for a batch. Built once per engine."""
    if full not in _PIXEL_RENDERERS:
        if full:
            from craftax.craftax import constants, renderer
        else:
            from craftax.craftax_classic import constants, renderer
        size = constants.BLOCK_PIXEL_SIZE_AGENT
        textures = {size: constants.load_all_textures_given_size(size)}
        cached = renderer.load_all_textures  # the package's all-sizes loader builds and writes a cache
        renderer.load_all_textures = lambda: textures
        try:
            draw = renderer.make_craftax_pixel_renderer(size)
        finally:
            renderer.load_all_textures = cached
        _PIXEL_RENDERERS[full] = jax.jit(lambda game: draw(game) / 255.0)
    return _PIXEL_RENDERERS[full]


def observe(env: Any, state: Any, obs_format: str = "glyph", params: Any = None) -> str | np.ndarray:
    """One Craftax state in `obs_format`: glyph text (our renderer), the package's native text,
    or its pixel observation (float32[H, W, 3])."""
    if obs_format not in OBS_FORMATS:
        raise ValueError(f"obs_format {obs_format!r} is not a Craftax observation format; choose one of "
                         f"{', '.join(OBS_FORMATS)}")
    if obs_format == "native_text":
        return native_text(state.game)
    if obs_format == "pixels":
        return np.asarray(pixel_renderer(is_full(state.game))(state.game))
    from glyphjax.render.text import render_text

    return render_text(env.card, env.render(state, params)).render()


__all__ = ["OBS_FORMATS", "classic_native_text", "full_native_text", "native_text", "observe", "pixel_renderer",
           "png_base64"]
