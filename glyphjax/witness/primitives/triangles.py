"""Triangles `1 2 3` (local): the number of the cell's 4-neighbours covered by the path equals
the digit. A triangle under the path is a violation."""

import jax

from glyphjax.core.grid import DIR_OFFSETS, neighbour_count
from glyphjax.witness.layout import TRIANGLE, TRIANGLE_BIT
from glyphjax.witness.reference import PathView, symbol_cells
from glyphjax.witness.regions import Cover

NAME, BIT = "triangles", TRIANGLE_BIT
GLYPHS = {"1": "triangle (1)", "2": "triangle (2)", "3": "triangle (3)"}


def check(b: Cover) -> jax.Array:
    tri = b.symbols(TRIANGLE)
    touching = neighbour_count(b.covered & b.lv.valid)
    return b.active(BIT) & tri & (b.covered | (touching != b.lv.param))


def check_reference(pv: PathView) -> set:
    bad = set()
    for (r, c), ch in symbol_cells(pv.level, "123"):
        touching = sum((r + dr, c + dc) in pv.covered for dr, dc in DIR_OFFSETS)
        if (r, c) in pv.covered or touching != int(ch):
            bad.add((r, c))
    return bad
