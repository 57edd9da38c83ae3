"""Mechanics and glyphs shared by the Classics games (one implementation each).

Glyph meanings are per suite: a glyph means the same thing in every Classics task (a test checks
it over the whole suite). Put a glyph used by several games here; game-only glyphs live in the
game's module.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from glyphjax.core.sampling import hash32, hash_bits, kth_true  # noqa: F401  (hash32: match-3)

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


class Draws:
    """Every random number a level generator needs from ONE random source, handed out in order.

    Each `jax.random` call compiles its own Threefry kernel, and under `vmap` those kernels
    dominate a generator's compile time: drawing `n` uniforms once and handing out slices gives
    the same kinds of draws for one kernel. `hashed=True` skips Threefry altogether
    (`core.sampling.hash_bits`: the key's words hashed with a counter), word i's top 24 bits
    scaled to [0, 1) -- a few integer operations (about 0.2-0.4 CPU-s less compile per reset at B = 4096). `n` is the
    generator's static budget: taking more than `n` numbers raises at trace time."""

    def __init__(self, key: jax.Array, n: int, hashed: bool = False):
        if hashed:
            bits = hash_bits(key, n)
            self.u = (bits >> 8).astype(jnp.float32) * jnp.float32(2.0 ** -24)
        else:
            self.u = jax.random.uniform(key, (n,))
        self.used = 0

    def uniform(self, shape: tuple[int, ...] = ()) -> jax.Array:
        """float32 uniforms in [0, 1) of the given static shape (the next unused numbers)."""
        size = math.prod(shape)
        if self.used + size > self.u.shape[0]:
            raise RuntimeError(f"generator takes more than its {self.u.shape[0]} random numbers")
        x = self.u[self.used:self.used + size].reshape(shape)
        self.used += size
        return x

    def randint(self, lo: int, hi: int, shape: tuple[int, ...] = ()) -> jax.Array:
        """int32 uniform in [lo, hi) (static bounds)."""
        v = lo + jnp.floor(self.uniform(shape) * (hi - lo)).astype(jnp.int32)
        return jnp.minimum(v, hi - 1)

    def bernoulli(self, p: float, shape: tuple[int, ...] = ()) -> jax.Array:
        """bool: True with probability p."""
        return self.uniform(shape) < p
