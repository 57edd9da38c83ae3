"""Side-view platform physics shared by the jump games (procgen's platformers, arcade's
climbing games): row grows downwards; a jump, started only when standing on something, follows
the 7-turn arc `JUMP_ARC_DY` (3 up, 1 level, 3 down); otherwise a body falls one row per turn.
Horizontal motion is applied before vertical; a ceiling ends the rise (the arc skips to its
descent) and landing ends it. Outside the level's columns and above its top row is solid; below
the bottom is open.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

JUMP_ARC_DY = (-1, -1, -1, 0, 1, 1, 1)  # vertical move on each turn of a jump
ARC_LEN = len(JUMP_ARC_DY)
_ARC = jnp.array(JUMP_ARC_DY, jnp.int32)
DESCENT = JUMP_ARC_DY.index(1) + 1  # the arc phase a ceiling bump skips to (first falling turn)


def solid_at(solid: jax.Array, r: jax.Array, c: jax.Array) -> jax.Array:
    """Side-view solidity of (r, c): off the sides or above the top is solid, below the bottom open."""
    h, w = solid.shape
    off_side = (c < 0) | (c >= w) | (r < 0)
    return off_side | ((r < h) & solid[jnp.clip(r, 0, h - 1), jnp.clip(c, 0, w - 1)])


def body_step(solid: jax.Array, pos: jax.Array, phase: jax.Array, air_jump: jax.Array, dx: jax.Array,
              jump: jax.Array, double_jump: bool = False):
    """One turn of a body under the side-view physics -> (pos, phase, air_jump, airborne after).
    `dx` in {-1, 0, 1}; `jump` asks for a jump (from the ground, or once in the air when
    `double_jump`)."""
    r, c = pos[0], pos[1]
    grounded = solid_at(solid, r + 1, c)
    air_jump = air_jump | grounded
    start = jump & (grounded | (double_jump & air_jump))
    air_jump = air_jump & ~(start & ~grounded)
    phase = jnp.where(start, 1, phase)
    c = jnp.where(solid_at(solid, r, c + dx), c, c + dx)
    in_arc = phase > 0
    dy = jnp.where(in_arc, _ARC[jnp.clip(phase - 1, 0, ARC_LEN - 1)], 1)
    blocked = (dy != 0) & solid_at(solid, r + dy, c)
    r = jnp.where(blocked, r, r + dy)
    nxt = jnp.where(in_arc, phase + 1, 0)
    nxt = jnp.where(blocked & (dy < 0), DESCENT, nxt)  # head bump: fall from here
    nxt = jnp.where((blocked & (dy > 0)) | (nxt > ARC_LEN), 0, nxt)  # landed / arc over
    airborne = ~solid_at(solid, r + 1, c) | (nxt > 0)
    return jnp.stack([r, c]).astype(jnp.int32), nxt.astype(jnp.int32), air_jump, airborne
