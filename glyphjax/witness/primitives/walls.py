"""Walls `#` and broken edges (movement): a move into a wall cell, off the board, or across a
blocked edge is refused. Blocked edges are not drawn; only refusals reveal them."""

import jax

from glyphjax.witness.layout import ROWS, COLS, WALLS_BIT, LevelArrays

NAME, BIT = "walls", WALLS_BIT
GLYPHS = {"#": "wall (or outside the board)"}


def refuse(lv: LevelArrays, head: jax.Array, d: jax.Array, target: jax.Array) -> jax.Array:
    inside = (target[0] >= 0) & (target[0] < lv.dims[0]) & (target[1] >= 0) & (target[1] < lv.dims[1])
    r, c = jax.numpy.clip(target[0], 0, ROWS - 1), jax.numpy.clip(target[1], 0, COLS - 1)
    return ~inside | lv.wall[r, c] | lv.edge[head[0], head[1], d]
