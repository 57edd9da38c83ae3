"""Duel mechanics of the arcade sports games (boxing, tennis, ice hockey ...): you and one AI
opponent on a court, reach checks for punches and hits, and a ball or puck that flies and
bounces off the court's walls, or is carried in front of a body; and the platform physics of
the climbing games (`climb_step`: core.platform's walk/jump/fall `body_step` plus ladders).

Bodies move one cell a turn inside a box of rows and columns and never onto each other's cell.
The opponent `track`s a target (you, the ball, the puck, a goal): on a turn where its skill draw
u < rate it steps one cell towards it along the axis with the larger gap (rows on a tie), else
it stays, so its play is deterministic given the step key. Flying balls use physics.py's wall
rule on both axes (`fly`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.suites.arcade.physics import wall_bounce
from glyphjax.core.platform import body_step

YOU, RIVAL = "@", "&"
DUEL_GLYPHS = {YOU: "you", RIVAL: "the opponent"}


def toward(pos: jax.Array, target: jax.Array) -> jax.Array:
    """int32[2] one-cell step from pos towards target along the axis of the larger gap (rows on
    a tie); (0, 0) when they are equal."""
    gap = target - pos
    rows = jnp.abs(gap[0]) >= jnp.abs(gap[1])
    return jnp.where(rows, jnp.stack([jnp.sign(gap[0]), 0]), jnp.stack([0, jnp.sign(gap[1])])).astype(jnp.int32)


def walk(pos: jax.Array, delta: jax.Array, lo, hi, avoid: jax.Array) -> jax.Array:
    """pos + delta clipped into the box [lo, hi] (per axis); a body stays put instead of
    stepping onto the cell `avoid` (the other body)."""
    nxt = jnp.clip(pos + delta, jnp.asarray(lo), jnp.asarray(hi)).astype(jnp.int32)
    return jnp.where((nxt == avoid).all(), pos, nxt).astype(jnp.int32)


def track(pos: jax.Array, target: jax.Array, u: jax.Array, rate: jax.Array, lo, hi,
          avoid: jax.Array) -> jax.Array:
    """The opponent's move: with u < rate one `toward` step to target (kept in the box, never
    onto `avoid`), otherwise it stays."""
    return walk(pos, jnp.where(u < rate, toward(pos, target), 0), lo, hi, avoid)


def in_reach(a: jax.Array, b: jax.Array, reach: int) -> jax.Array:
    """Are cells a and b within Manhattan distance `reach`? (a punch or a stick lands)."""
    return jnp.abs(a - b).sum() <= reach


def beside(a: jax.Array, b: jax.Array) -> jax.Array:
    """Is cell b on cell a or one of its eight neighbours? (a racket, a stick or a grab reaches it)"""
    return (jnp.abs(a - b) <= 1).all()


def fly(pos: jax.Array, vel: jax.Array, lo: tuple[int, int], hi: tuple[int, int]) -> tuple[jax.Array, jax.Array]:
    """One turn of a flying ball between walls lo..hi (per axis) under physics.wall_bounce on
    both axes -> (pos, vel). A bound of -1 / size (outside the field) leaves that side open."""
    move_r, vel = wall_bounce(pos, vel, 0, lo[0], hi[0])
    move_c, vel = wall_bounce(pos, vel, 1, lo[1], hi[1])
    return (pos + jnp.stack([move_r[0], move_c[1]])).astype(jnp.int32), vel.astype(jnp.int32)


def carried(holder: jax.Array, ahead: jax.Array) -> jax.Array:
    """Where a carried ball or puck sits: the cell `ahead` (a unit step) of its holder."""
    return (holder + ahead).astype(jnp.int32)


def hit_back(ball: jax.Array, body: jax.Array, d_row: int | jax.Array) -> jax.Array:
    """The velocity of a ball struck by `body`: rows along d_row, columns away from the body's
    side (+-1 when the ball is beside it, 0 when it is straight ahead)."""
    return jnp.stack([jnp.asarray(d_row, jnp.int32), jnp.sign(ball[1] - body[1])]).astype(jnp.int32)


DUEL_MOVES = ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1))  # NOOP, UP, DOWN, LEFT, RIGHT (then the game's own)


def move_action(delta: jax.Array) -> jax.Array:
    """The index (into NOOP, UP, DOWN, LEFT, RIGHT) of a unit step `delta`; NOOP for (0, 0)."""
    table = jnp.array(DUEL_MOVES, jnp.int32)
    return jnp.argmax((table == delta[None]).all(-1)).astype(jnp.int32)


def climb_step(solid: jax.Array, ladder: jax.Array, pos: jax.Array, phase: jax.Array, dx: jax.Array,
               up: jax.Array, down: jax.Array) -> tuple[jax.Array, jax.Array]:
    """One turn of a body that walks, jumps and climbs -> (pos, jump phase). On a ladder cell
    there is no gravity: UP / DOWN climb one row (DOWN only onto ladder), else LEFT / RIGHT step
    off sideways where not solid. Standing on a ladder's top, DOWN climbs onto it. Anywhere
    else `core.platform.body_step` (UP jumps its arc; a body falls one row a turn until it lands)."""
    h, w = ladder.shape
    r, c = pos[0], pos[1]
    on = ladder[jnp.clip(r, 0, h - 1), c]
    under = ladder[jnp.clip(r + 1, 0, h - 1), c] & (r + 1 < h)
    side = jnp.where((c + dx < 0) | (c + dx >= w) | solid[r, jnp.clip(c + dx, 0, w - 1)], c, c + dx)
    climbed = jnp.where(up, jnp.stack([r - 1, c]), jnp.where(down & under, jnp.stack([r + 1, c]),
                                                              jnp.stack([r, jnp.where(down, c, side)])))
    fallen, arc, _, _ = body_step(solid, pos, phase, jnp.bool_(False), dx, up)
    onto = ~on & down & under
    nxt = jnp.where(on, climbed, jnp.where(onto, jnp.stack([r + 1, c]), fallen))
    return nxt.astype(jnp.int32), jnp.where(on | onto, 0, arc).astype(jnp.int32)
