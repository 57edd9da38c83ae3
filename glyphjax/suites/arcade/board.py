"""Board mechanics of the arcade suite: Q*bert's pyramid of cubes and Surround's light-cycle
trails. Pure, jittable functions over integer cells (row grows downwards).

Trails: each cycle moves one cell a turn along its heading (`DIRS` index: up, down, left,
right), may turn but never reverse (`steer`), and leaves its trail on the cell it left
(`cycle_step`). A cycle crashes when it ends a turn on a wall or any trail, or on the other
cycle's cell (both crash then). `room` scores each heading by the free cells reachable within a
few steps beyond the next cell: the built-in opponent's and the scripted policy's look-ahead.

Road: traffic on a vertical road moves down the screen by your speed less its own (`drive`): a
car passing your row without touching you is overtaken; one whose path (swept) meets your car
hits it.

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
from glyphjax.core.grid import flood

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


# --- trails ---------------------------------------------------------------------------------------------
DIRS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # up, down, left, right
_DIRS = jnp.array(DIRS, jnp.int32)
REVERSE = (1, 0, 3, 2)  # the index of each heading's opposite


def steer(heading: jax.Array, turn: jax.Array) -> jax.Array:
    """The new heading index: `turn` (0-3), or the old one when `turn` < 0 or it would reverse."""
    keep = (turn < 0) | (turn == jnp.array(REVERSE, jnp.int32)[heading])
    return jnp.where(keep, heading, turn).astype(jnp.int32)


def cycle_step(field: jax.Array, heads: jax.Array, headings: jax.Array, trails: jax.Array):
    """Both cycles move one cell: heads int32[2, 2], headings int32[2] (DIRS indices); the cells
    they leave get their trail codes (int[2]). -> (field, new heads, crashed bool[2]): a cycle
    crashes on a non-empty cell (wall or trail) or on the other's new cell."""
    field = field.at[heads[:, 0], heads[:, 1]].set(jnp.asarray(trails, field.dtype))
    nxt = (heads + _DIRS[headings]).astype(jnp.int32)
    h, w = field.shape
    blocked = ~entities.inside(nxt, h, w) | (field[jnp.clip(nxt[:, 0], 0, h - 1), jnp.clip(nxt[:, 1], 0, w - 1)] != 0)
    head_on = (nxt[0] == nxt[1]).all()
    return field, nxt, blocked | head_on


def open_headings(field: jax.Array, head: jax.Array, heading: jax.Array, other: jax.Array):
    """-> (bool[4] headings whose next cell is free and that do not reverse, int32[4, 2] next
    cells, bool[H, W] free cells: empty and neither cycle's head)."""
    h, w = field.shape
    nxt = head[None] + _DIRS
    r, c = jnp.clip(nxt[:, 0], 0, h - 1), jnp.clip(nxt[:, 1], 0, w - 1)
    passable = (field == 0).at[head[0], head[1]].set(False).at[other[0], other[1]].set(False)
    free = entities.inside(nxt, h, w) & passable[r, c] & (jnp.arange(4) != jnp.array(REVERSE)[heading])
    return free, nxt, passable


def room(field: jax.Array, head: jax.Array, heading: jax.Array, other: jax.Array, depth: int) -> jax.Array:
    """int32[4]: per heading, the free cells within `depth` steps of the next cell (heads are not
    free), a quarter of that when the next cell touches the other cycle's head (a head-on risk),
    and -1 when the next cell is not free or the heading reverses (`open_headings`)."""
    h, w = field.shape
    free, nxt, passable = open_headings(field, head, heading, other)
    r, c = jnp.clip(nxt[:, 0], 0, h - 1), jnp.clip(nxt[:, 1], 0, w - 1)
    seeds = jnp.zeros((4, h, w), bool).at[jnp.arange(4), r, c].set(free)
    reach = jax.vmap(lambda seed: flood(seed, passable, steps=depth))(seeds).sum((1, 2))
    risky = jnp.abs(nxt - other[None]).sum(-1) <= 1
    return jnp.where(free, jnp.where(risky, reach // 4, reach), -1).astype(jnp.int32)


# --- road ---------------------------------------------------------------------------------------------
def drive(cars: entities.Pool, you0: jax.Array, you1: jax.Array, rel: jax.Array, h: int, w: int):
    """Traffic moves `rel` rows down (0-2: your speed less the traffic's) while you move you0 ->
    you1. -> (cars, hit: bool, overtaken: int32): a car that meets you (same cell, swapped, or
    on its swept path) is removed and hits you; one that ends below your row having started on
    or above it, untouched, is overtaken (those leaving the road die)."""
    moved = entities.advance(cars.replace(vel=jnp.broadcast_to(jnp.stack([rel, 0 * rel]), cars.vel.shape)), h, w)
    met = entities.point_hits(cars, moved.replace(alive=cars.alive), you0, you1) & cars.alive
    passed = cars.alive & ~met & (cars.pos[:, 0] <= you1[0]) & (cars.pos[:, 0] + rel > you1[0])
    out = entities.kill(moved, met).replace(vel=cars.vel)
    return out, met.any(), passed.sum().astype(jnp.int32)
