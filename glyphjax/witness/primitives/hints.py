"""Hints `?` (information): a hidden cell shows `?` until the path head has visited it, then
its symbol. No constraint of its own; the hidden symbol's rule applies all along."""

import jax

from glyphjax.witness.layout import HINT_BIT, LevelArrays

NAME, BIT = "hints", HINT_BIT
GLYPHS = {"?": "hint cell (visit it to reveal what it holds)"}


def concealed(lv: LevelArrays, seen: jax.Array) -> jax.Array:
    """bool[R, C]: cells still drawn as `?`."""
    return lv.hidden & ~seen
