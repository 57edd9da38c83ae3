"""Levels larger than the screen: the mechanics of the arcade climbing and exploring games
(Crazy Climber's tall building, Pitfall!'s jungle of flip screens). The whole level is one cell
map (`ArcadeState.field`, any shape at least the view's); what the player sees is a window of
the view's size on it. A scrolling window follows the player along one axis (`follow`: the
player kept at a fixed row or column of the view, clamped at the map's ends); a flip-screen
window shows the whole screen the player is on (`flip`: the map cut into view-sized screens).
Entities live in map coordinates and are drawn through the window (`seen`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities


def follow(x: jax.Array, anchor: int, length: int, view: int) -> jax.Array:
    """int32: the first map line of a scrolling window `view` lines long over a map `length`
    lines long that keeps line x at the window's line `anchor` (clamped to the map's ends)."""
    return jnp.clip(x - anchor, 0, length - view).astype(jnp.int32)


def flip(x: jax.Array, view: int) -> jax.Array:
    """int32: the first map line of the flip screen holding line x (screens are `view` lines)."""
    return (x // view * view).astype(jnp.int32)


def window(field: jax.Array, corner: jax.Array, size: tuple[int, int]) -> jax.Array:
    """The cells of `field` in the view of `size` whose top-left map cell is `corner` (int32[2])."""
    return jax.lax.dynamic_slice(field, (corner[0], corner[1]), size)


def seen(pool: entities.Pool, corner: jax.Array) -> entities.Pool:
    """The pool in view coordinates (for `entities.paint`, which skips cells off the view)."""
    return pool.replace(pos=pool.pos - corner[None, :].astype(jnp.int32))
