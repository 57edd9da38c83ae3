"""Board-game helpers shared by the Classics board/puzzle games (2048, battleship, connect four,
memory match, minesweeper, nim, match-3, tetris, nonogram, tron): random cell sets, neighbour
shifts and bounded flood fills, all with static shapes.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def choose_cells(key: jax.Array, mask: jax.Array, k: int) -> jax.Array:
    """bool mask (shape of `mask`) of k distinct uniformly random True cells of `mask`.

    Top-k of uniform scores over the allowed cells (static shapes, no rejection loop). The caller
    guarantees at least k allowed cells."""
    score = jnp.where(mask.reshape(-1), jax.random.uniform(key, (mask.size,)), -1.0)
    _, idx = jax.lax.top_k(score, k)
    return jnp.zeros(mask.size, jnp.bool_).at[idx].set(True).reshape(mask.shape)


def shift(a: jax.Array, dr: int, dc: int, fill=0) -> jax.Array:
    """out[r, c] = a[r - dr, c - dc] (a 2-D array moved by (dr, dc)); cells from outside = fill."""
    h, w = a.shape
    p = max(abs(dr), abs(dc), 1)
    pad = jnp.pad(a, ((p, p), (p, p)), constant_values=fill)
    return pad[p - dr:p - dr + h, p - dc:p - dc + w]


NEIGHBOURS8 = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0))
NEIGHBOURS4 = ((-1, 0), (1, 0), (0, -1), (0, 1))


def neighbour_count8(mask: jax.Array) -> jax.Array:
    """int32: number of True cells among the 8 neighbours of every cell."""
    m = mask.astype(jnp.int32)
    return sum(shift(m, dr, dc) for dr, dc in NEIGHBOURS8)


def dilate(mask: jax.Array, eight: bool = True) -> jax.Array:
    """mask | its 8- (or 4-) neighbourhood."""
    out = mask
    for dr, dc in (NEIGHBOURS8 if eight else NEIGHBOURS4):
        out = out | shift(mask, dr, dc, False)
    return out


def flood(seed: jax.Array, passable: jax.Array, steps: int, eight: bool = False) -> jax.Array:
    """Cells reachable from `seed` through `passable` cells in at most `steps` dilations (a bounded
    `fori_loop`: static cost; `steps` >= cells guarantees the full component)."""
    def body(_, m):
        return m | (dilate(m, eight) & passable)
    return jax.lax.fori_loop(0, steps, body, seed & passable)
