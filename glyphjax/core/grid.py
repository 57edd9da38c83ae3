"""Grid mechanics every suite shares: directions, shifts, dilation, floods, BFS distances, border
masks and glyph tables. One implementation each, static shapes, jittable and vmappable.

Conventions (all of them, for every suite):
- Cells are (row, col), row growing downwards; a direction is a (d_row, d_col) offset.
- The one direction order is `UP, DOWN, LEFT, RIGHT` (= 0, 1, 2, 3; `DIR_NAMES`, `DIR_DELTAS`).
  A game whose own order differs (a clockwise heading, MiniGrid's facing 0 east .. 3 north)
  keeps an index table onto this one (`CLOCKWISE`; MiniGrid's `engine.FACING`), never a second
  delta table.
- Connectivity is 4 (edge neighbours) unless `eight=True` (edge and corner neighbours).
- Distances are step counts; a cell not reached is `UNREACHED` (see `bfs_distances`).
- Random cells of a mask are drawn in `core.sampling` (`random_cell`, `random_cells`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

# --- directions ----------------------------------------------------------------------------------
UP, DOWN, LEFT, RIGHT = range(4)
DIR_NAMES = ("UP", "DOWN", "LEFT", "RIGHT")
DIR_OFFSETS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # static (d_row, d_col) for Python loops
DIR_DELTAS = jnp.array(DIR_OFFSETS, jnp.int32)  # int32[4, 2], indexed by a traced direction
OPPOSITE = jnp.array([DOWN, UP, RIGHT, LEFT], jnp.int32)
CLOCKWISE = (UP, RIGHT, DOWN, LEFT)  # index table for games that number directions clockwise from up
# the 8 neighbours in row-major order of the 3x3 block around a cell
NEIGHBOURS8 = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0))


# --- shifts, dilation, neighbour counts -------------------------------------------------------------
def shift(a: jax.Array, dr: int, dc: int, fill=0) -> jax.Array:
    """out[r, c] = a[r - dr, c - dc]: the 2-D array moved by the static offset (dr, dc); cells
    coming from outside the array are `fill`."""
    h, w = a.shape
    p = max(abs(dr), abs(dc), 1)
    pad = jnp.pad(a, ((p, p), (p, p)), constant_values=fill)
    return pad[p - dr:p - dr + h, p - dc:p - dc + w]


def _offsets(eight: bool) -> tuple[tuple[int, int], ...]:
    return NEIGHBOURS8 if eight else DIR_OFFSETS


def dilate(mask: jax.Array, eight: bool = False) -> jax.Array:
    """bool: `mask` plus every cell with a True 4- (or 8-) neighbour."""
    out = mask
    for dr, dc in _offsets(eight):
        out = out | shift(mask, dr, dc, False)
    return out


def neighbour_count(mask: jax.Array, eight: bool = False) -> jax.Array:
    """int32: number of True cells among the 4 (or 8) neighbours of every cell."""
    m = mask.astype(jnp.int32)
    return sum(shift(m, dr, dc) for dr, dc in _offsets(eight))


# --- floods and distances --------------------------------------------------------------------------
def flood(seed: jax.Array, passable: jax.Array, steps: int | None = None,
          eight: bool = False) -> jax.Array:
    """bool: the cells of `passable` connected to the cells of `seed & passable`.

    `steps=None`: the whole component (dilation repeated to a fixed point; a while_loop that stops
    once a pass adds nothing). `steps=n`: at most n dilations (a fori_loop of static cost): only
    cells within n steps of the seed."""
    start = seed & passable

    def grow(m):
        return m | (dilate(m, eight) & passable)

    if steps is not None:
        return jax.lax.fori_loop(0, steps, lambda _, m: grow(m), start)

    def cond(carry):
        region, prev = carry
        return jnp.any(region != prev)

    region, _ = jax.lax.while_loop(cond, lambda c: (grow(c[0]), c[0]), (grow(start), start))
    return region


UNREACHED = 1 << 20  # distance of a cell BFS did not reach (above any distance on a < 2**20-cell board)


def bfs_distances(passable: jax.Array, source: jax.Array, max_steps: int | None = None,
                  eight: bool = False) -> jax.Array:
    """int32[H, W] step distance from the nearest cell of `source & passable`, moving through
    `passable` cells; `UNREACHED` for every cell not reached (impassable, disconnected, or farther
    than `max_steps` when given). One frontier ring per while_loop pass, so the cost is the
    largest distance, not H*W. `UNREACHED` compares above every real distance (argmin over
    neighbours prefers reached cells; `dist < UNREACHED` is reachability) and leaves room for
    arithmetic (2 * UNREACHED fits int32)."""
    limit = passable.size if max_steps is None else max_steps
    start = source & passable
    dist = jnp.where(start, 0, UNREACHED).astype(jnp.int32)

    def cond(carry):
        _, frontier, d = carry
        return jnp.any(frontier) & (d < limit)

    def body(carry):
        dist, frontier, d = carry
        new = dilate(frontier, eight) & passable & (dist == UNREACHED)
        return jnp.where(new, d + 1, dist), new, d + 1

    dist, _, _ = jax.lax.while_loop(cond, body, (dist, start, jnp.int32(0)))
    return dist


# --- borders ----------------------------------------------------------------------------------------
def border_mask(h: int, w: int | None = None) -> np.ndarray:
    """bool[h, w] (w = h by default): the outer ring of cells. A numpy constant (static shape),
    so masks built from it stay trace-time constants."""
    w = h if w is None else w
    rows, cols = np.arange(h)[:, None], np.arange(w)[None, :]
    return (rows == 0) | (rows == h - 1) | (cols == 0) | (cols == w - 1)


# --- glyph tables -----------------------------------------------------------------------------------
def codepoint(glyph: str) -> np.uint32:
    """The code point of one glyph (a one-character string) as uint32."""
    if len(glyph) != 1:
        raise ValueError(f"a glyph is one character, got {glyph!r} ({len(glyph)} characters)")
    return np.uint32(ord(glyph))


def codepoints(chars: str) -> jax.Array:
    """uint32 table from a string, one code point per character: entry i is the glyph of cell
    code i (render with `glyph_grid(codes, table)`)."""
    return jnp.array([ord(c) for c in chars], jnp.uint32)


def glyph_grid(codes: jax.Array, table: jax.Array) -> jax.Array:
    """uint32 code points of integer cell codes: one table lookup (`table[codes]`)."""
    return table[codes].astype(jnp.uint32)
