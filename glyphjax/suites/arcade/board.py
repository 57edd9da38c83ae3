"""Board mechanics of the arcade suite: Q*bert's pyramid of cubes and Surround's light-cycle
trails. Pure, jittable functions over integer cells (row grows downwards).

Pyramid: a pyramid of R rows of cubes drawn packed on the grid, row r of it on grid row top + r
with its r + 1 cubes two columns apart, centred on column `mid` (`pyramid`). The cubes a hop
reaches are the diagonal neighbours on the grid (`HOPS`: up-left, up-right, down-left,
down-right); a hop onto a cell that is not a cube leaves the pyramid (`hop`). Field codes: 0 no
cube, UNPAINTED, PAINTED (`paint_cube`). Balls bounce down it one row at a time, left or right at
random, and drop off the bottom (`roll`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core import entities

NO_CUBE, UNPAINTED, PAINTED = 0, 1, 2  # pyramid field codes
HOPS = ((-1, -1), (-1, 1), (1, -1), (1, 1))  # up-left, up-right, down-left, down-right


# --- pyramid --------------------------------------------------------------------------------------------
def pyramid(h: int, w: int, rows: int, top: int) -> np.ndarray:
    """int8[h, w]: UNPAINTED on the cubes of a `rows`-row pyramid whose apex is (top, w // 2)."""
    if top + rows > h or 2 * rows - 1 > w:
        raise ValueError(f"a {rows}-row pyramid from row {top} does not fit a {h}x{w} field")
    field = np.zeros((h, w), np.int8)
    mid = w // 2
    for r in range(rows):
        field[top + r, mid - r: mid + r + 1: 2] = UNPAINTED
    return field


def is_cube(field: jax.Array, cell: jax.Array) -> jax.Array:
    """bool[...]: cells (int32[..., 2]) on the field that hold a cube."""
    h, w = field.shape
    r, c = jnp.clip(cell[..., 0], 0, h - 1), jnp.clip(cell[..., 1], 0, w - 1)
    return entities.inside(cell, h, w) & (field[r, c] != NO_CUBE)


def hop(field: jax.Array, pos: jax.Array, delta: jax.Array) -> tuple[jax.Array, jax.Array]:
    """-> (pos + delta, whether a cube is there): a hop that lands off the pyramid falls."""
    dest = (pos + delta).astype(jnp.int32)
    return dest, is_cube(field, dest)


def paint_cube(field: jax.Array, pos: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The field with the cube at `pos` painted -> (field, whether it was unpainted)."""
    fresh = field[pos[0], pos[1]] == UNPAINTED
    return field.at[pos[0], pos[1]].set(jnp.where(fresh, PAINTED, field[pos[0], pos[1]])), fresh


def roll(pool: entities.Pool, field: jax.Array, u: jax.Array, moving: jax.Array) -> entities.Pool:
    """Balls on turns where `moving`: each hops down-left (u[i] < 0.5) or down-right; one whose
    next cell is not a cube falls off and dies. u: float32[N]."""
    step = jnp.stack([jnp.ones_like(u, jnp.int32), jnp.where(u < 0.5, -1, 1)], axis=1)
    nxt = jnp.where(moving, pool.pos + step, pool.pos).astype(jnp.int32)
    return pool.replace(pos=nxt, alive=pool.alive & is_cube(field, nxt))


def hop_distance(a: jax.Array, b: jax.Array) -> jax.Array:
    """Hops between two cubes of a pyramid (each hop moves one row and one column): the
    Chebyshev distance of their cells."""
    return jnp.abs(a - b).max(-1)
