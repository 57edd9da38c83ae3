"""Free flight: the mechanics of the arcade games where a craft flies in any direction (Asteroids,
Time Pilot ...). Pure, jittable functions over integer cells; entity pools come from
`glyphjax.core.entities`, wrapping moves from `scroll.fly`.

A craft has a velocity of at most `vmax` cells a turn per axis. A direction action thrusts: it
adds its unit step to the velocity (`thrust`) and turns the craft to face it (`face`). Inertia:
an axis not thrust this turn keeps its speed, losing one cell a turn of it on drag turns
(`coast`), so a craft drifts on after its engine stops. Shots leave along the facing.
Waves of drifting bodies appear at random cells away from the craft (`scatter`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.core.sampling import Draws

FACINGS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # up, down, left, right: the order of the glyphs below
FACING_GLYPHS = {"⇑": "you (facing up)", "⇓": "you (facing down)", "⇐": "you (facing left)",
                 "⇒": "you (facing right)"}
FACING_CELLS = "".join(FACING_GLYPHS)
EIGHT = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def thrust(vel: jax.Array, push: jax.Array, vmax: int) -> jax.Array:
    """int32[2]: the velocity after adding the unit step `push`, each axis kept in [-vmax, vmax]."""
    return jnp.clip(vel + push, -vmax, vmax).astype(jnp.int32)


def coast(vel: jax.Array, push: jax.Array, drag: jax.Array) -> jax.Array:
    """int32[2]: on a drag turn, each axis not thrust this turn (push 0) loses one cell of speed."""
    return jnp.where(drag & (push == 0), vel - jnp.sign(vel), vel).astype(jnp.int32)


def face(heading: jax.Array, push: jax.Array) -> jax.Array:
    """int32[2]: the facing after a thrust `push` (unchanged when there is none)."""
    return jnp.where((push != 0).any(), push, heading).astype(jnp.int32)


def facing_index(heading: jax.Array) -> jax.Array:
    """int32: the index of a unit `heading` in FACINGS (0, up, when it is none of them)."""
    table = jnp.array(FACINGS, jnp.int32)
    return jnp.argmax((table == heading[None]).all(-1)).astype(jnp.int32)


def scatter(draws: Draws, pool: entities.Pool, k: int, size: tuple[int, int], away: jax.Array, gap: int,
            kind, where=True) -> entities.Pool:
    """A wave of k bodies (when `where`) at distinct random cells more than `gap` cells
    (Chebyshev) from `away`, each drifting along one of the eight unit directions. Takes
    h * w + k numbers from `draws`."""
    h, w = size
    rr, cc = jnp.meshgrid(jnp.arange(h), jnp.arange(w), indexing="ij")
    far = jnp.maximum(jnp.abs(rr - away[0]), jnp.abs(cc - away[1])) > gap
    flat, found = draws.cells(far, k)
    pos = jnp.stack([flat // w, flat % w], axis=1)
    vel = jnp.array(EIGHT, jnp.int32)[jnp.floor(draws.uniform((k,)) * 8).astype(jnp.int32)]
    kinds = jnp.broadcast_to(jnp.asarray(kind, jnp.int32), (k,))
    return entities.spawn_many(pool, pos, vel, kinds, found & jnp.asarray(where, bool))


def ahead(you: jax.Array, heading: jax.Array, cells: jax.Array, reach: int) -> jax.Array:
    """bool[N]: which `cells` (int32[N, 2]) lie on the straight line from `you` along `heading`,
    1 to `reach` cells away (where a shot fired now flies)."""
    d = cells - you[None]
    along = (d * heading[None]).sum(-1)
    across = (d * heading[::-1][None]).sum(-1)  # the other axis' offset (heading is a unit step)
    return (across == 0) & (along >= 1) & (along <= reach)


def torus_delta(you: jax.Array, cells: jax.Array, size: tuple[int, int]) -> jax.Array:
    """int32[N, 2]: the shortest (d_row, d_col) from `you` to each of `cells` on a field that
    wraps on every side (each axis in [-size // 2, (size - 1) // 2])."""
    n = jnp.array(size, jnp.int32)
    return ((cells - you[None] + n // 2) % n - n // 2).astype(jnp.int32)


def aim_value(you: jax.Array, heading: jax.Array, foes: jax.Array, alive: jax.Array, size: tuple[int, int],
              firing: jax.Array) -> jax.Array:
    """float32: how good it is for a scripted shooter to end its turn at `you` facing `heading`
    with the foes at `foes` (their cells after this turn): ruinous next to one (on the torus),
    better up to four cells from the nearest, a foe in the line of fire (more so when this turn
    fires), and the fewer cells off the line of the nearest foe the better."""
    gap = jnp.where(alive, jnp.abs(torus_delta(you, foes, size)).max(-1), 1 << 10).min()
    lined = (alive & ahead(you, heading, foes, max(size))).any()
    off = jnp.where(alive, jnp.abs(foes - you[None]).min(-1), 1 << 10).min()
    return (-100.0 * (gap <= 1) + jnp.minimum(gap, 4) + 4.0 * lined * (1.0 + 1.5 * firing)
            - jnp.minimum(off, 1 << 8)).astype(jnp.float32)
