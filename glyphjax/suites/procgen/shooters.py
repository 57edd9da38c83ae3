"""What the Procgen shooters (starpilot, bossfight, plunder, caveflyer) share: their glyphs, the
move-and-fire actions, states extended with entity pools, and shots swept along their path.

Shots and enemies live in `glyphjax.core.entities` pools; a mover of period p moves on the turns
t with t % p == 0 (one cell per move), so speeds below one cell a turn need no per-entity clock.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.procgen.engine import WALK_ACTIONS, WALK_DESCRIPTIONS, ProcgenState, walk_target

# Glyphs with one meaning in every game that draws them.
SHOT, BOLT, METEOR, FINISH = "•", "*", "◎", "▀"
GLYPHS_SHOTS = {SHOT: "your shot in flight", BOLT: "enemy shot (deadly)"}
METEOR_MEANING = "meteor (indestructible; deadly to touch)"
FINISH_MEANING = "the finish line (the goal)"

FIRE_ACTIONS = WALK_ACTIONS + ("FIRE",)
FIRE_DESCRIPTIONS = WALK_DESCRIPTIONS + ("fire a shot",)
FIRE = len(WALK_ACTIONS)

# The 8 headings clockwise from up, as (d_row, d_col), and their names.
HEADINGS = jnp.array([(-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)], jnp.int32)
HEADING_NAMES = ("up", "up-right", "right", "down-right", "down", "down-left", "left", "up-left")


def extend(cls, base: ProcgenState, **extra):
    """A game state of class `cls` (a ProcgenState subclass) from an engine state plus its fields
    (which may set engine fields too, e.g. `timer`)."""
    fields = {f.name: getattr(base, f.name) for f in dataclasses.fields(ProcgenState)}
    return cls(**{**fields, **extra})


def move_in_field(pos: jax.Array, action: jax.Array, h: int, w: int, top: int = 0) -> jax.Array:
    """Where a walking action takes you on an open h x w field (rows below `top` closed): one
    cell, or nowhere at the edge (FIRE and NOOP stay)."""
    target = walk_target(pos, jnp.where(action == FIRE, 0, action))
    lo = jnp.array([top, 0], jnp.int32)
    hi = jnp.array([h - 1, w - 1], jnp.int32)
    return jnp.clip(target, lo, hi).astype(jnp.int32)


def swept_on_mask(before: entities.Pool, after: entities.Pool, mask: jax.Array) -> jax.Array:
    """bool[N]: alive entities (after the move) whose move of up to 2 cells per axis passed over
    or ended on a True cell of `mask` (bool[h, w]); the first such cell is where it stopped."""
    d = after.pos - before.pos
    mid = before.pos + jnp.sign(d) * ((jnp.abs(d) + 1) // 2)
    return entities.on_cells(after.replace(pos=mid), mask) | entities.on_cells(after, mask)


def every(t: jax.Array, period) -> jax.Array:
    """bool: turn t (>= 0) is a move turn of a mover of period `period` (> 0), i.e. t % period == 0,
    as one remainder op (jnp's `%` adds sign fixes that non-negative operands never need, and
    XLA copies them into every fused consumer: a larger compiled step)."""
    t, period = jnp.broadcast_arrays(jnp.asarray(t, jnp.int32), jnp.asarray(period, jnp.int32))
    return jax.lax.rem(t, period) == 0


def aim(src: jax.Array, dst: jax.Array) -> jax.Array:
    """int32[..., 2]: the 8-way step from cells `src` towards cell `dst` (the minor axis is
    dropped when it is under half the major one)."""
    d = jnp.asarray(dst, jnp.int32) - src
    ad = jnp.abs(d)
    major = jnp.maximum(ad[..., 0], ad[..., 1])[..., None]
    return jnp.where(2 * ad >= major, jnp.sign(d), 0).astype(jnp.int32)


def cells_of(pool: entities.Pool, h: int, w: int, kinds=None) -> jax.Array:
    """bool[h, w]: cells holding an alive entity of the pool (of `kinds`, when given)."""
    return entities.occupancy(pool, h, w, kinds) > 0


def threat_cells(pools: tuple[entities.Pool, ...], h: int, w: int) -> jax.Array:
    """bool[h, w]: cells a deadly entity holds now or after one more move (scripted policies)."""
    out = jnp.zeros((h, w), bool)
    for pool in pools:
        out = out | cells_of(pool, h, w) | cells_of(entities.advance(pool, h, w, "clip"), h, w)
    return out


def dodging_action(pos: jax.Array, threat: jax.Array, want: jax.Array, fallback: jax.Array,
                   top: int = 0) -> jax.Array:
    """The scripted shooters' choice among FIRE (stay), UP, DOWN, LEFT, RIGHT: a move to a cell
    off `threat` first, then `want`, then `fallback`."""
    h, w = threat.shape
    acts = jnp.array([FIRE, 3, 4, 1, 2], jnp.int32)
    cells = jax.vmap(lambda a: move_in_field(pos, a, h, w, top))(acts)
    safe = ~threat[cells[:, 0], cells[:, 1]]
    score = 10 * safe + 3 * (acts == want) + (acts == fallback)
    return acts[jnp.argmax(score)]
