"""Coloured squares `R G B Y` (region): no region holds squares of two colours. A square under
the path belongs to no region and is itself a violation (ours: region symbols stay off the path)."""

import jax
import jax.numpy as jnp

from glyphjax.witness.layout import COLOURS, SQUARE, SQUARE_BIT
from glyphjax.witness.reference import PathView, symbol_cells
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
    for x, _ in symbol_cells(lv, COLOURS):
        region = pv.region(x)
        if region is None or len({lv.at(*y) for y in region if lv.at(*y) in COLOURS}) > 1:
            bad.add(x)
    return bad
