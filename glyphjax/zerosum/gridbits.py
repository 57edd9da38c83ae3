"""The grid template's outcome clauses on bitboards, for boards of up to 25 cells.

Cell (r, c) of an n x n board is bit r * n + c of one uint32 per game, so the line, square and
stuck checks are a few element-wise integer operations per game that XLA fuses into one or two
kernels, where the array form (`gridgame.has_line`, `has_square`) runs a dozen shifted-board
kernels per step. Both forms compute the same clauses; `gridgame.outcome` takes this one when
the board fits in a word."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

MAX_CELLS = 25  # n <= 5: every shift below stays inside 32 bits
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # row, column, diagonal, anti-diagonal


def cell_bits(n: int) -> np.ndarray:
    """uint32[n, n]: the bit of each cell."""
    return (np.uint32(1) << np.arange(n * n, dtype=np.uint32)).reshape(n, n)


def to_bits(mask: jax.Array) -> jax.Array:
    """uint32 word of a bool[n, n] mask (distinct bits, so the sum is an or)."""
    return jnp.sum(jnp.where(mask, cell_bits(mask.shape[0]), jnp.uint32(0)), dtype=jnp.uint32)


def _word(mask: np.ndarray) -> np.uint32:
    return np.uint32(np.sum(cell_bits(mask.shape[0])[mask], dtype=np.uint64))


def _shifted(b: jax.Array, offset: int) -> jax.Array:
    """Bits moved so that bit i takes bit i + offset."""
    return b >> np.uint32(offset) if offset >= 0 else b << np.uint32(-offset)


def moved(b: jax.Array, dr: int, dc: int, n: int, torus) -> jax.Array:
    """out[r, c] = b[r + dr, c + dc] (|dr|, |dc| <= 1), wrapping round the edges when `torus`
    (a traced bool), else False where the source lies off the board."""
    r, c = np.divmod(np.arange(n * n), n)
    wrap_r, wrap_c = (r + dr) % n != r + dr, (c + dc) % n != c + dc
    out = jnp.uint32(0)
    for wr in (False, True):
        for wc in (False, True):
            part = (wrap_r == wr) & (wrap_c == wc)
            if not part.any():
                continue
            off = int(((r + dr) % n * n + (c + dc) % n - r * n - c)[part][0])
            piece = _shifted(b, off) & _word(part.reshape(n, n))
            out = out | (piece if not (wr or wc) else jnp.where(torus, piece, jnp.uint32(0)))
    return out


def has_line_bits(b: jax.Array, n: int, params) -> jax.Array:
    """`gridgame.has_line` on a word: k in a row along an enabled direction."""
    full = _word(np.ones((n, n), bool))
    found = jnp.zeros((), jnp.bool_)
    for d, (dr, dc) in enumerate(DIRECTIONS):
        run, step = b, b
        for j in range(1, n):
            step = moved(step, dr, dc, n, params.torus)
            run = run & (step | jnp.where(j >= params.k, full, jnp.uint32(0)))
        found = found | (params.dirs[d] & (run != 0))
    return found


def has_square_bits(b: jax.Array, n: int, params) -> jax.Array:
    """`gridgame.has_square` on a word: the four corners of an s x s square, s = params.square."""
    found = jnp.zeros((), jnp.bool_)
    for s in range(2, n + 1):
        d = s - 1
        corners = b
        for dr, dc in ((0, d), (d, 0), (d, d)):
            r, c = np.divmod(np.arange(n * n), n)
            inside = ((r + dr < n) & (c + dc < n)).reshape(n, n)
            corners = corners & _shifted(b, dr * n + dc) & _word(inside)
        found = found | ((params.square == s) & (corners != 0))
    return found


def any_legal_bits(occupied: jax.Array, n: int, ply: jax.Array, params) -> jax.Array:
    """`jnp.any(gridgame.legal_cells(...))` on words: a free valid cell (not a banned first
    move), resting on the floor or on a taken / blocked cell under gravity."""
    valid = to_bits(params.valid)
    banned = jnp.where(ply == 0, to_bits(params.first_forbidden), jnp.uint32(0))
    free = valid & ~occupied & ~banned
    below = moved(occupied | ~valid, 1, 0, n, False) | _word((np.arange(n * n) // n == n - 1).reshape(n, n))
    return (free & jnp.where(params.gravity, below, ~jnp.uint32(0))) != 0
