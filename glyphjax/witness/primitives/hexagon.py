"""Hexagon `H` (coverage): every hexagon cell must be covered by the path (or its shadow)."""

import jax

from glyphjax.witness.layout import HEX_BIT, HEXAGON
from glyphjax.witness.reference import PathView
from glyphjax.witness.regions import Cover

NAME, BIT = "hexagon", HEX_BIT
GLYPHS = {"H": "hexagon"}


def check(b: Cover) -> jax.Array:
    return b.active(BIT) & b.symbols(HEXAGON) & ~b.covered


def check_reference(pv: PathView) -> set:
    lv = pv.level
    return {(r, c) for r in range(lv.rows) for c in range(lv.cols)
            if lv.at(r, c) == "H" and (r, c) not in pv.covered}
