"""Regions of a submitted path: the 4-connected components of the cells it leaves free.

Each free cell carries its region as a 25-bit set (`uint32`, bit r*COLS + c per cell): every
cell starts with its own bit and ORs in its free neighbours' sets until nothing changes (a
`while_loop`, at most one pass per cell of the longest region path). Counting a mask's cells in
a region is then a popcount, and a region's shape is one integer. The plain-Python twin used by
the reference checks is a breadth-first flood in `reference.py`.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.grid import DIR_OFFSETS, shift
from glyphjax.witness.layout import CELLS, COLS, ROWS, LevelArrays

CELL_BITS = (np.uint32(1) << np.arange(CELLS, dtype=np.uint32)).reshape(ROWS, COLS)


def bits(mask: jax.Array) -> jax.Array:
    """uint32: the cells of a bool[R, C] mask as a bit set."""
    return jnp.sum(jnp.where(mask, CELL_BITS, jnp.uint32(0)), dtype=jnp.uint32)


def region_sets(free: jax.Array) -> jax.Array:
    """uint32[R, C]: per free cell the bit set of its region; 0 elsewhere."""
    start = jnp.where(free, CELL_BITS, jnp.uint32(0))

    def spread(sets):
        out = sets
        for dr, dc in DIR_OFFSETS:
            out = out | shift(sets, dr, dc, jnp.uint32(0))
        return jnp.where(free, out, jnp.uint32(0))

    def cond(carry):
        new, old = carry
        return jnp.any(new != old)

    sets, _ = jax.lax.while_loop(cond, lambda c: (spread(c[0]), c[0]), (spread(start), start))
    return sets


def count(sets: jax.Array, mask_bits: jax.Array) -> jax.Array:
    """int32: how many cells of `mask_bits` each set holds."""
    return jax.lax.population_count(sets & mask_bits).astype(jnp.int32)


class Cover(NamedTuple):
    """What every submission check reads: the level, the cells the path (and its symmetric
    shadow) covers, the free cells and each free cell's region."""

    lv: LevelArrays
    covered: jax.Array  # bool[R, C]
    free: jax.Array  # bool[R, C]
    region: jax.Array  # uint32[R, C]: region bit set per free cell, 0 elsewhere

    def active(self, bit: int) -> jax.Array:
        return (self.lv.rules & bit) != 0

    def symbols(self, kind: int) -> jax.Array:
        """bool[R, C]: cells holding a symbol of this kind."""
        return self.lv.valid & (self.lv.kind == kind)

    def per_region(self, mask: jax.Array) -> jax.Array:
        """int32[R, C]: for every free cell, how many cells of `mask` its region holds."""
        return count(self.region, bits(mask))


def make_cover(lv: LevelArrays, covered: jax.Array) -> Cover:
    free = lv.valid & ~lv.wall & ~covered
    return Cover(lv, covered, free, region_sets(free))
