"""Mechanics shared by the Classics arcade games (one implementation each).

- `death_penalty(earned)`: the bounded "progress, then -1 on death" pattern (catalogue pattern D
  made exact): dying pays `-1 - earned`, so the episode return is exactly -1 after a death and
  the sum of non-negative progress (<= 1) otherwise; the return stays in [-1, 1] by construction.
- `view_window`: the scrolling-view convention (a fixed-size window sliced from a wider world).
- `gravity_fall`: one cell of gravity in a side-view world.
- `wall_segments`: random straight 3-cell interior walls (guard evasion, warehouse).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

def death_penalty(earned: jax.Array) -> jax.Array:
    """Reward paid on a death step so that the episode return becomes exactly -1.

    `earned` is everything paid before this step (>= 0); the step pays `-1 - earned`."""
    return -1.0 - jnp.asarray(earned, jnp.float32)


def view_window(world: jax.Array, left: jax.Array, width: int, axis: int = 1) -> jax.Array:
    """The `width` columns (axis=1) or rows (axis=0) of `world` starting at `left`, clamped inside
    the world. Scrolling games draw this window; the HUD reports where it is."""
    size = world.shape[axis]
    left = jnp.clip(left, 0, size - width)
    starts = [0] * world.ndim
    starts[axis] = left
    sizes = list(world.shape)
    sizes[axis] = width
    return jax.lax.dynamic_slice(world, starts, sizes)


def gravity_fall(solid: jax.Array, row: jax.Array, col: jax.Array) -> tuple[jax.Array, jax.Array]:
    """One step of gravity in a side view (row grows downwards): -> (new row, was grounded).
    A body falls one cell unless the cell below is solid; below the bottom row counts as open."""
    h = solid.shape[0]
    below = row + 1
    grounded = (below < h) & solid[jnp.clip(below, 0, h - 1), col]
    return jnp.where(grounded, row, row + 1), grounded


# Glyphs shared by the arcade games of this module's family (same meaning in each).
GROUND = "▒"
GLYPHS_GROUND = {GROUND: "solid ground"}
EXIT = "⌧"
GLYPHS_EXIT = {EXIT: "exit"}


def wall_segments(rnd, size: int, count: int) -> jax.Array:
    """bool[size, size]: `count` straight 3-cell wall segments inside the outer ring, each from a
    random anchor cell going right or down (cells past the ring are clipped onto it); `rnd` is a
    `core.sampling.Draws` (takes 3 * count numbers)."""
    anchors = rnd.randint(1, size - 1, (count, 2))
    vertical = rnd.bernoulli(0.5, (count,))
    step = jnp.where(vertical[:, None], jnp.array([1, 0]), jnp.array([0, 1]))
    seg = jnp.zeros((size, size), bool)
    for i in range(3):
        cell = jnp.clip(anchors + i * step, 1, size - 2)
        seg = seg.at[cell[:, 0], cell[:, 1]].set(True)
    return seg
