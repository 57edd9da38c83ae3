"""Coloured squares `R G B Y` (region): no region holds squares of two colours. A square under
the path belongs to no region and is itself a violation (ours: region symbols stay off the path)."""

import jax
import jax.numpy as jnp

from glyphjax.witness.layout import COLOURS, SQUARE, SQUARE_BIT
from glyphjax.witness.reference import PathView
from glyphjax.witness.regions import Cover

NAME, BIT = "squares", SQUARE_BIT
GLYPHS = {ch: f"{name} square" for ch, name in zip(COLOURS, ("red", "green", "blue", "yellow"))}


def check(b: Cover) -> jax.Array:
    sq = b.symbols(SQUARE)
    colours = sum((b.per_region(sq & (b.lv.colour == k)) > 0).astype(jnp.int32) for k in range(len(COLOURS)))
    return b.active(BIT) & sq & (b.covered | (colours >= 2))


def check_reference(pv: PathView) -> set:
    lv = pv.level
    bad = set()
    for r in range(lv.rows):
        for c in range(lv.cols):
            if lv.at(r, c) not in COLOURS:
                continue
            region = pv.region((r, c))
            if region is None:
                bad.add((r, c))
            elif len({lv.at(*x) for x in region if lv.at(*x) in COLOURS}) > 1:
                bad.add((r, c))
    return bad
