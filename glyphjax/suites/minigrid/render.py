"""Glyphs of the MiniGrid suite and the two views (full grid, 7x7 egocentric partial view).

Glyph scheme (one code point per cell; the letter names the colour: r red, g green, b blue,
p purple, y yellow, e grEy):
  key          lower-case letter          r g b p y e
  ball         circled capital            Ⓡ Ⓖ Ⓑ Ⓟ Ⓨ Ⓔ
  box          parenthesised small letter ⒭ ⒢ ⒝ ⒫ ⒴ ⒠
  closed door  capital letter             R G B P Y E
  locked door  capital with a stroke      Ɍ Ǥ Ƀ Ᵽ Ɏ Ɇ
  open door    small capital              ʀ ɢ ʙ ᴘ ʏ ᴇ
  █ wall, · floor, ★ goal, ≈ lava, ● moving obstacle, ░ not visible (partial view),
  → ↓ ← ↑ you, facing that way (in the partial view you always face up).
Every glyph means the same thing in all MiniGrid tasks (one GLYPHS table for the suite).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.grid import codepoint, codepoints
from glyphjax.suites.minigrid.engine import (BALL, BOX, CLOSED, COLORS, DIR_VEC, DOOR, EMPTY, GOAL,
                                             KEY, LAVA, LOCKED, OBSTACLE, OPEN, WALL, cell_type)

LETTERS = {
    KEY: "rgbpye",
    BALL: "ⓇⒼⒷⓅⓎⒺ",
    BOX: "⒭⒢⒝⒫⒴⒠",
    ("door", CLOSED): "RGBPYE",
    ("door", LOCKED): "ɌǤɃⱣɎɆ",
    ("door", OPEN): "ʀɢʙᴘʏᴇ",
}
WALL_G, FLOOR_G, GOAL_G, LAVA_G, OBSTACLE_G, UNSEEN_G = "█", "·", "★", "≈", "●", "░"
AGENT_G = "→↓←↑"  # by direction 0 east, 1 south, 2 west, 3 north

GLYPHS: dict[str, str] = {
    WALL_G: "wall",
    FLOOR_G: "empty floor",
    GOAL_G: "goal square",
    LAVA_G: "lava (stepping in ends the episode)",
    OBSTACLE_G: "moving obstacle (running into it ends the episode)",
    UNSEEN_G: "not visible from where you stand",
    AGENT_G[0]: "you, facing right",
    AGENT_G[1]: "you, facing down",
    AGENT_G[2]: "you, facing left",
    AGENT_G[3]: "you, facing up",
}
for _i, _c in enumerate(COLORS):
    GLYPHS[LETTERS[KEY][_i]] = f"{_c} key"
    GLYPHS[LETTERS[BALL][_i]] = f"{_c} ball"
    GLYPHS[LETTERS[BOX][_i]] = f"{_c} box"
    GLYPHS[LETTERS[("door", CLOSED)][_i]] = f"{_c} door, closed"
    GLYPHS[LETTERS[("door", LOCKED)][_i]] = f"{_c} door, locked"
    GLYPHS[LETTERS[("door", OPEN)][_i]] = f"{_c} door, open"


def _build_table() -> np.ndarray:
    """Code point for each packed cell value masked to 9 bits (type | colour | door state)."""
    table = np.full(512, codepoint(FLOOR_G), np.uint32)
    for v in range(512):
        t, col, st = v & 15, (v >> 4) & 7, (v >> 7) & 3
        c = min(col, 5)
        if t == WALL:
            g = WALL_G
        elif t == GOAL:
            g = GOAL_G
        elif t == LAVA:
            g = LAVA_G
        elif t == OBSTACLE:
            g = OBSTACLE_G
        elif t in (KEY, BALL, BOX):
            g = LETTERS[t][c]
        elif t == DOOR:
            g = LETTERS[("door", min(st, 2))][c]
        else:
            g = FLOOR_G
        table[v] = codepoint(g)
    return table


CELL_TABLE = _build_table()
AGENT_CP = np.asarray(codepoints(AGENT_G))
VIEW = 7  # partial view size (Farama agent_view_size)
AGENT_CELL = np.zeros((VIEW, VIEW), bool)
AGENT_CELL[VIEW - 1, VIEW // 2] = True  # where the partial view draws the agent


def render_full(grid: jax.Array, pos: jax.Array, d: jax.Array) -> jax.Array:
    """uint32[H, W]: every cell, the agent drawn as its direction arrow."""
    cp = jnp.asarray(CELL_TABLE)[grid & 511]
    return cp.at[pos[0], pos[1]].set(jnp.asarray(AGENT_CP)[d])


def see_behind(c: jax.Array) -> jax.Array:
    """Farama `see_behind`: walls and closed/locked doors block sight; everything else does not."""
    t = cell_type(c)
    return ~((t == WALL) | ((t == DOOR) & (((c >> 7) & 3) != OPEN)))


def view_cells(grid: jax.Array, pos: jax.Array, d: jax.Array) -> jax.Array:
    """int32[7, 7] cells of the egocentric view: row 6 col 3 is the agent, up = the way it faces,
    right = its right. Cells outside the grid read as wall (Farama `Grid.slice`)."""
    h, w = grid.shape
    fwd_dist = (VIEW - 1) - jnp.arange(VIEW)  # per view row
    lateral = jnp.arange(VIEW) - VIEW // 2  # per view column
    f, r = DIR_VEC[d], DIR_VEC[(d + 1) % 4]
    rows = pos[0] + fwd_dist[:, None] * f[0] + lateral[None, :] * r[0]
    cols = pos[1] + fwd_dist[:, None] * f[1] + lateral[None, :] * r[1]
    inside = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)
    cells = grid[jnp.clip(rows, 0, h - 1), jnp.clip(cols, 0, w - 1)]
    return jnp.where(inside, cells, WALL)


def visibility(cells: jax.Array) -> jax.Array:
    """bool[7, 7] Farama `process_vis`: from the agent's cell, sight spreads sideways along a row
    through see-through cells (rightwards first, then leftwards) and one row further forward to
    the three cells ahead of every visible see-through cell.

    Each view row is a 7-bit integer (bit i = column i), so a sweep is 6 shift-and-or steps on one
    int32 per row: a few dozen scalar ops in one small fused kernel (cheap to compile and run)."""
    n = VIEW
    full = (1 << n) - 1
    clear = jnp.sum(jnp.where(see_behind(cells), jnp.asarray(1 << np.arange(n), jnp.int32), 0), axis=1)
    seen = jnp.int32(1 << (n // 2))  # the agent's cell
    rows = []
    for j in range(n - 1, -1, -1):
        t, v = clear[j], seen
        for _ in range(n - 1):
            v = v | ((v & t) << 1)  # rightwards: a visible see-through cell shows its right neighbour
        for _ in range(n - 1):
            v = v | ((v & t) >> 1)  # then leftwards
        v = v & full
        rows.append(v)
        src = v & t
        seen = (src | (src << 1) | (src >> 1)) & full
    bits = jnp.stack(rows[::-1])
    return ((bits[:, None] >> jnp.arange(n)) & 1) == 1


def render_partial(grid: jax.Array, pos: jax.Array, d: jax.Array) -> jax.Array:
    """uint32[7, 7]: the egocentric view, unseen cells as ░, the agent as ↑ at the bottom centre."""
    cells = view_cells(grid, pos, d)
    vis = visibility(cells)
    cp = jnp.asarray(CELL_TABLE)[cells & 511]
    cp = jnp.where(vis, cp, codepoint(UNSEEN_G))
    return jnp.where(AGENT_CELL, codepoint(AGENT_G[3]), cp)  # a where, not a (slow) scatter


def floor_is_empty(c):
    return cell_type(c) == EMPTY
