"""What the player sees and remembers, and the frame drawn from it.

You see every lit cell and, in the dark, the cells within `constants.SIGHT` (Chebyshev) of you.
Map memory (NetHack's): every seen cell keeps the terrain or item last seen there, drawn where
you no longer see it; monsters are drawn only where you see them. A never-seen cell is blank.
Display codes: terrain codes, then one code per item class, then one per monster kind, then
you, then a boulder on a fountain.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core import entities
from glyphjax.core.grid import codepoints, glyph_grid, shift
from glyphjax.suites.minihack import constants as C
from glyphjax.suites.minihack.state import MiniHackState, chebyshev_map, monster_pool

ITEM_CODE0 = C.N_TERRAIN
MONSTER_CODE0 = ITEM_CODE0 + len(C.ITEM_CLASS_GLYPHS)
PLAYER_CODE = MONSTER_CODE0 + C.N_KINDS
FILLED_CODE = PLAYER_CODE + 1  # a boulder resting on a fountain (a solved Boxoban target)
DISPLAY_GLYPHS = C.TERRAIN_GLYPHS + C.ITEM_CLASS_GLYPHS + C.MONSTER_GLYPHS + "@*"
GLYPH_TABLE = codepoints(DISPLAY_GLYPHS)


def visible(s: MiniHackState) -> jax.Array:
    return s.lit | (chebyshev_map(s.terrain.shape, s.pos) <= C.SIGHT)


def scene(s: MiniHackState) -> jax.Array:
    """int32[H, W] display codes of terrain and items (no monsters, no player)."""
    item_code = ITEM_CODE0 + jnp.asarray(C.ITEM_CLASS)[s.items]
    filled = (s.items == C.BOULDER) & (s.terrain == C.FOUNTAIN)
    item_code = jnp.where(filled, FILLED_CODE, item_code)
    return jnp.where(s.items > 0, item_code, s.terrain).astype(jnp.int32)


def remember(s: MiniHackState, p=None) -> MiniHackState:
    """Update map memory with what is seen now."""
    return s.replace(memory=jnp.where(visible(s), scene(s), s.memory))


def display_codes(s: MiniHackState) -> jax.Array:
    """int32[H, W]: seen cells as they are, remembered ones as last seen, monsters you see, you."""
    vis = visible(s)
    codes = jnp.where(vis, scene(s), s.memory)
    seen = monster_pool(s, vis[s.mon_pos[:, 0], s.mon_pos[:, 1]])
    codes = entities.paint(codes, seen, MONSTER_CODE0 + jnp.arange(C.N_KINDS, dtype=jnp.int32))
    return codes.at[s.pos[0], s.pos[1]].set(PLAYER_CODE)


def frame_grid(s: MiniHackState) -> jax.Array:
    return glyph_grid(display_codes(s), GLYPH_TABLE)


def wall_glyphs(terrain: jax.Array) -> jax.Array:
    """Walls as NetHack draws them: `|` where a wall continues up or down only, else `-`."""
    wall = (terrain == C.WALL_H) | (terrain == C.WALL_V)
    up, down = shift(wall, 1, 0, False), shift(wall, -1, 0, False)
    left, right = shift(wall, 0, 1, False), shift(wall, 0, -1, False)
    vertical = (up | down) & ~(left | right)
    return jnp.where(wall, jnp.where(vertical, C.WALL_V, C.WALL_H), terrain).astype(jnp.int32)


NEARBY_NAMES: tuple[str, ...] = ("nothing",) + tuple(
    f"{C.MONSTER_NAMES[k]} ({hp}/{C.MONSTER_HP[k]} HP)" for k in range(1, C.N_KINDS)
    for hp in range(1, int(C.MONSTER_HP[k]) + 1))
_NEARBY_BASE = np.concatenate([[0], 1 + np.cumsum([0] + [int(C.MONSTER_HP[k]) for k in range(1, C.N_KINDS - 1)])])


def nearby_field(s: MiniHackState) -> jax.Array:
    """HUD index into NEARBY_NAMES of the nearest monster you see within `constants.NEARBY`."""
    vis = visible(s)
    i, dist = entities.nearest(monster_pool(s, vis[s.mon_pos[:, 0], s.mon_pos[:, 1]]), s.pos)
    i = jnp.maximum(i, 0)
    kind = s.mon_kind[i]
    idx = jnp.asarray(_NEARBY_BASE)[kind] + jnp.clip(s.mon_hp[i], 1, jnp.asarray(C.MONSTER_HP)[kind]) - 1
    return jnp.where(dist <= C.NEARBY, idx, 0).astype(jnp.int32)
