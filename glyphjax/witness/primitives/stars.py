"""Stars `r g b y` (region): for each star, its region holds exactly 2 symbols of the star's
colour (stars plus squares). A star under the path is a violation."""

import jax

from glyphjax.witness.layout import COLOURS, SQUARE, STAR, STAR_BIT
from glyphjax.witness.reference import PathView, symbol_cells
from glyphjax.witness.regions import Cover

NAME, BIT = "stars", STAR_BIT
GLYPHS = {ch.lower(): f"{name} star" for ch, name in zip(COLOURS, ("red", "green", "blue", "yellow"))}


def check(b: Cover) -> jax.Array:
    star = b.symbols(STAR)
    coloured = b.symbols(SQUARE) | star
    bad = b.covered
    for k in range(len(COLOURS)):
        mine = star & (b.lv.colour == k)
        bad = bad | (mine & (b.per_region(coloured & (b.lv.colour == k)) != 2))
    return b.active(BIT) & star & bad


def check_reference(pv: PathView) -> set:
    lv = pv.level
    bad = set()
    for x, ch in symbol_cells(lv, COLOURS.lower()):
        region = pv.region(x)
        if region is None or sum(lv.at(*y).upper() == ch.upper() for y in region) != 2:
            bad.add(x)
    return bad
