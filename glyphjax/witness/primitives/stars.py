"""Stars `r g b y` (region): for each star, its region holds exactly 2 symbols of the star's
colour (stars plus squares). A star under the path is a violation."""

import jax

from glyphjax.witness.layout import COLOURS, SQUARE, STAR, STAR_BIT
from glyphjax.witness.reference import PathView
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
    for r in range(lv.rows):
        for c in range(lv.cols):
            ch = lv.at(r, c)
            if ch not in COLOURS.lower():
                continue
            region = pv.region((r, c))
            same = 0 if region is None else sum(lv.at(*x).upper() == ch.upper() for x in region)
            if region is None or same != 2:
                bad.add((r, c))
    return bad
