"""Regions of a submitted path: the 4-connected components of the cells it leaves free.

JAX: min-label propagation (each free cell takes the smallest flat index among itself and its
free neighbours, repeated to a fixed point in a `while_loop`). The plain-Python twin used by the
reference checks is a breadth-first flood in `reference.py`.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from glyphjax.core.grid import DIR_OFFSETS, shift
from glyphjax.witness.layout import CELLS, COLS, ROWS, LevelArrays

NO_REGION = CELLS  # label of a cell outside every region (wall, outside the board, on the path)


def region_labels(free: jax.Array) -> jax.Array:
    """int32[R, C]: per free cell the smallest flat index of its region; NO_REGION elsewhere."""
    start = jnp.where(free, jnp.arange(CELLS, dtype=jnp.int32).reshape(ROWS, COLS), NO_REGION)

    def spread(labels):
        best = labels
        for dr, dc in DIR_OFFSETS:
            best = jnp.minimum(best, shift(labels, dr, dc, NO_REGION))
        return jnp.where(free, best, NO_REGION)

    def cond(carry):
        new, old = carry
        return jnp.any(new != old)

    labels, _ = jax.lax.while_loop(cond, lambda c: (spread(c[0]), c[0]), (spread(start), start))
    return labels


class Cover(NamedTuple):
    """What every submission check reads: the level, the cells the path (and its symmetric
    shadow) covers, the free cells and which free cells share a region."""

    lv: LevelArrays
    covered: jax.Array  # bool[R, C]
    free: jax.Array  # bool[R, C]
    same: jax.Array  # bool[CELLS, CELLS]: both cells free and in one region

    def active(self, bit: int) -> jax.Array:
        return (self.lv.rules & bit) != 0

    def symbols(self, kind: int) -> jax.Array:
        """bool[R, C]: cells holding a symbol of this kind."""
        return self.lv.valid & (self.lv.kind == kind)

    def per_region(self, mask: jax.Array) -> jax.Array:
        """int32[R, C]: for every free cell, how many cells of `mask` its region holds."""
        counts = self.same.astype(jnp.int32) @ mask.reshape(-1).astype(jnp.int32)
        return counts.reshape(ROWS, COLS)


def make_cover(lv: LevelArrays, covered: jax.Array) -> Cover:
    free = lv.valid & ~lv.wall & ~covered
    labels = region_labels(free).reshape(-1)
    f = free.reshape(-1)
    same = (labels[:, None] == labels[None, :]) & f[:, None] & f[None, :]
    return Cover(lv, covered, free, same)
