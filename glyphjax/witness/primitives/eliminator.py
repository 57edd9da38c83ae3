"""Eliminator `%` (meta): each eliminator cancels one other violation in its region (violating
cells taken in row-major order); an eliminator with nothing left to cancel is itself a violation,
and so is one under the path. Violations outside every region (on the path) cannot be cancelled."""

import jax
import jax.numpy as jnp

import numpy as np

from glyphjax.witness.layout import ELIMINATOR, ELIMINATOR_BIT, ROWS, COLS
from glyphjax.witness.reference import PathView
from glyphjax.witness.regions import CELL_BITS, Cover, bits, count

NAME, BIT = "eliminator", ELIMINATOR_BIT
GLYPHS = {"%": "eliminator"}

_BEFORE = jnp.asarray(CELL_BITS - np.uint32(1))  # per cell: the bits of the cells before it


def check(b: Cover) -> jax.Array:
    """Violations of the eliminators themselves when there is nothing to cancel (used alone)."""
    return resolve(b, jnp.zeros((ROWS, COLS), jnp.bool_)) & b.symbols(ELIMINATOR)


def resolve(b: Cover, bad: jax.Array) -> jax.Array:
    """The violation mask after the eliminators of each region cancel what they can."""
    elim = b.symbols(ELIMINATOR)
    v_bits, e_bits = bits(bad & b.free), bits(elim & b.free)
    earlier = b.region & _BEFORE
    cancelled = bad & b.free & (count(earlier, v_bits) < count(b.region, e_bits))
    idle = elim & b.free & (count(earlier, e_bits) >= count(b.region, v_bits))
    out = (bad & ~cancelled) | idle | (elim & b.covered)
    return jnp.where(b.active(BIT), out, bad)


def resolve_reference(pv: PathView, bad: set) -> set:
    lv = pv.level
    out = {x for x in bad if pv.region(x) is None}
    cells = [(r, c) for r in range(lv.rows) for c in range(lv.cols)]
    for x in cells:
        if lv.at(*x) == "%" and pv.region(x) is None:
            out.add(x)
    for region in {pv.region(x) for x in cells if pv.region(x) is not None}:
        wrong = sorted(x for x in bad if x in region)
        elims = sorted(x for x in region if lv.at(*x) == "%")
        keep = len(elims) if len(elims) < len(wrong) else len(wrong)
        out |= set(wrong[keep:])
        out |= set(elims[keep:])
    return out


def check_reference(pv: PathView) -> set:
    return {x for x in resolve_reference(pv, set()) if pv.level.at(*x) == "%"}
