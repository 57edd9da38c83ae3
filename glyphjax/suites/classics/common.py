"""Mechanics and glyphs shared by the Classics games (one implementation each).

Glyph meanings are per suite: a glyph means the same thing in every Classics task (a test checks
it over the whole suite). Put a glyph used by several games here; game-only glyphs live in the
game's module.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core.sampling import kth_true

# Shared glyph meanings of the Classics suite.
WALL = "█"
FLOOR = "·"
GLYPHS_COMMON = {
    WALL: "wall",
    FLOOR: "empty floor",
}

# Directions in action order UP, DOWN, LEFT, RIGHT as (d_row, d_col).
DIR_NAMES = ("UP", "DOWN", "LEFT", "RIGHT")
DIR_DELTAS = jnp.array([[-1, 0], [1, 0], [0, -1], [0, 1]], jnp.int32)
OPPOSITE = jnp.array([1, 0, 3, 2], jnp.int32)


def sample_cell(key: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
    """A uniformly random True cell of a bool[H, W] mask -> (flat index, any True).

    Draws one integer k in [0, n_free) and takes the k-th True cell (`core.sampling.kth_true`):
    static shapes, one random number (not one per cell), no rejection loop. With no True cell the
    index is 0 and the flag False."""
    flat = mask.reshape(-1)
    n_free = jnp.sum(flat, dtype=jnp.int32)
    k = jax.random.randint(key, (), 0, jnp.maximum(n_free, 1), dtype=jnp.int32)
    return kth_true(flat, k), n_free > 0


def border_mask(size: int) -> jax.Array:
    """bool[size, size]: the outer ring of a square board (the wall ring most games draw)."""
    edge = (jnp.arange(size) == 0) | (jnp.arange(size) == size - 1)
    return edge[:, None] | edge[None, :]


def cell_actions(verb: str, size: int, describe: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Named per-cell actions of a size x size board: (`VERB_i` names, descriptions), with cell
    i = row * size + column (the numbering the grid labels and the rules text state). `describe`
    is formatted with {row} and {col}, e.g. "press the cell at row {row}, column {col}"."""
    n = size * size
    return (tuple(f"{verb}_{i}" for i in range(n)),
            tuple(describe.format(row=i // size, col=i % size) for i in range(n)))


def glyph_grid(codes: jax.Array, table: jax.Array) -> jax.Array:
    """Map small integer cell codes to code points with one table lookup (uint32)."""
    return table[codes].astype(jnp.uint32)


def codepoints(chars: str) -> jax.Array:
    """uint32 table from a string, one code point per character (index = cell code)."""
    return jnp.array([ord(c) for c in chars], jnp.uint32)


# The player avatar (every game where "you" move) and empty space in side views / open fields.
PLAYER = "@"
EMPTY_SPACE = " "
GLYPHS_ARCADE = {PLAYER: "you", EMPTY_SPACE: "empty space"}
