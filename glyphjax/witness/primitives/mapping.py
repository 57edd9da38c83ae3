"""Hidden mapping (mechanic): direction action a moves the head in direction sigma[a], a
permutation of (UP, DOWN, LEFT, RIGHT) fixed per game and never printed."""

import itertools

import jax

from glyphjax.witness.layout import MAPPING_BIT

NAME, BIT = "mapping", MAPPING_BIT
GLYPHS: dict = {}
PERMUTATIONS = tuple(itertools.permutations(range(4)))  # the 24 elements of S4


def direction(sigma: jax.Array, action: jax.Array) -> jax.Array:
    return sigma[jax.numpy.clip(action, 0, 3)]


def inverse(sigma) -> tuple[int, ...]:
    """The action that moves in each direction."""
    inv = [0] * 4
    for a, d in enumerate(sigma):
        inv[d] = a
    return tuple(inv)
