"""Hexagon `H` (coverage): every hexagon cell must be covered by the path (or its shadow)."""

import jax

from glyphjax.witness.layout import HEX_BIT, HEXAGON
from glyphjax.witness.reference import PathView, symbol_cells
from glyphjax.witness.regions import Cover

NAME, BIT = "hexagon", HEX_BIT
GLYPHS = {"H": "hexagon"}


def check(b: Cover) -> jax.Array:
    return b.active(BIT) & b.symbols(HEXAGON) & ~b.covered


def check_reference(pv: PathView) -> set:
    return {x for x, _ in symbol_cells(pv.level, "H") if x not in pv.covered}
