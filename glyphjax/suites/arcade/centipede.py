"""Centipede: shoot the segments of a centipede winding down through a mushroom field (pattern D).

MiniAtari: 10x16 field, one centipede of 8 segments, N = 8 (the catalogue's), 300 turns.
Atari: 20x20 field, centipedes of 10 segments, N = 30 (the catalogue's W), 10,000 turns.
Mushrooms are scattered over the rows 1 to H - 3 at reset (each cell with probability `rate`,
from the key). The centipede enters
as a row of segments in the top row heading right; every `period` turns each segment steps one
column along its heading, or, where the next cell is a mushroom or off the field, drops one row
and turns round (`scroll.patrol` with `descend`), so the body follows the head. Your cannon
moves along the bottom row; FIRE launches a shot (one at a time) climbing two rows a turn. A
shot meeting a segment destroys it (+1/N) and leaves a mushroom in its place; a shot meeting a
mushroom destroys the mushroom (no points). When the last segment dies a new centipede enters
(Atari). A segment reaching the bottom row is death (-1, the end). Differences from the
original: no spider, flea or scorpion, one-hit mushrooms, the cannon stays in the bottom row, and
the reference's MiniAtari pattern A (no penalty) is D here, as in the other cannon games.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import scroll
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import (CANNON, CANNON_ACTIONS, CANNON_DESCRIPTIONS, CANNON_FIRE, CANNON_MOVES,
                                            SHOT, cannon_policy, fire, shoot_down)

SEGMENT, MUSHROOM = "◍", "♣"
EV_KILL = 1


def body(s: Setting) -> int:
    """Segments of one centipede at a setting."""
    return 8 if s.size[1] < 20 else 10


def _rules(s: Setting) -> str:
    return (f"Centipede. A centipede of {body(s)} segments {SEGMENT} winds down from the top row: "
            f"every {s.period} turns each segment steps one column along its heading, or, where a "
            f"mushroom {MUSHROOM} or the side is in the way, drops one row and turns round. Your "
            f"cannon {CANNON} moves along the bottom row; FIRE launches a shot {SHOT} (one at a time) "
            "that climbs two rows a turn. A shot destroys the first segment or mushroom it meets; a "
            "destroyed segment leaves a mushroom. When the centipede is gone a new one enters at the "
            "top. A segment reaching the bottom row kills you.")


def _centipede(foes: entities.Pool, n: int, where) -> entities.Pool:
    """A fresh centipede of n segments in the top row, columns 0 .. n-1, heading right."""
    pos = jnp.stack([jnp.zeros(n, jnp.int32), jnp.arange(n, dtype=jnp.int32)], axis=1)
    vel = jnp.tile(jnp.array([0, 1], jnp.int32), (n, 1))
    return entities.spawn_many(foes, pos, vel, jnp.zeros(n, jnp.int32), jnp.broadcast_to(where, (n,)))


def _reset(draws, s: Setting, params):
    h, w = s.size
    rows = jnp.arange(h)[:, None]
    field = ((draws.uniform((h, w)) < params.rate) & (rows >= 1) & (rows <= h - 3)).astype(jnp.int8)
    return new_state(s, field=field, foes=_centipede(entities.empty(s.caps[0]), body(s), True),
                     player=jnp.array([h - 1, w // 2], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you = jnp.clip(state.player + action_delta(action, CANNON_MOVES), 0, jnp.array([h - 1, w - 1])).astype(jnp.int32)
    shots0 = fire(state.shots, you, (-2, 0), action == CANNON_FIRE)
    shots1, stopped = scroll.strike(shots0, entities.advance(shots0, h, w), state.field == 1)
    foes = scroll.patrol(state.foes, state.field == 1, (state.t % params.period) == 0, descend=True)
    shots, hit_foes, kills = shoot_down(shots0, shots1, state.foes, foes)
    dead = foes.alive & ~hit_foes.alive
    flat = jnp.clip(foes.pos[:, 0], 0, h - 1) * w + jnp.clip(foes.pos[:, 1], 0, w - 1)
    field = state.field.reshape(-1).at[flat].max(dead.astype(jnp.int8)).reshape(h, w)
    cleared = stopped & shots.alive  # shots that reached a mushroom and met no segment first
    flat = jnp.clip(shots.pos[:, 0], 0, h - 1) * w + jnp.clip(shots.pos[:, 1], 0, w - 1)
    field = field.reshape(-1).at[flat].min(jnp.where(cleared, 0, 1).astype(jnp.int8)).reshape(h, w)
    shots = entities.kill(shots, cleared)
    landed = (hit_foes.alive & (hit_foes.pos[:, 0] >= h - 1)).any()
    foes = _centipede(hit_foes, body(s), ~hit_foes.alive.any())
    return (state.replace(player=you, shots=shots, foes=foes, field=field),
            Outcome(gained=kills, died=landed, event=jnp.where(kills > 0, EV_KILL, 0)))


def _paint(state, s: Setting):
    codes = jnp.where(state.field == 1, 1, 0).astype(jnp.int32)
    codes = entities.paint(codes, state.foes, jnp.array([2], jnp.int32))
    codes = entities.paint(codes, state.shots, jnp.array([3], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(4)


def _scripted(key, state, params):
    """`physics.cannon_policy`, leading each segment along its own heading."""
    return cannon_policy(state, params.period, state.foes.vel[:, 1])


CENTIPEDE = Game(
    name="centipede", pattern="D", unit="segment destroyed", actions=CANNON_ACTIONS,
    descriptions=CANNON_DESCRIPTIONS, cells=EMPTY + MUSHROOM + SEGMENT + SHOT + CANNON,
    glyphs={CANNON: "your cannon", SHOT: "your shot", SEGMENT: "centipede segment", MUSHROOM: "mushroom"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 16), max_steps=300, target=8, rate=0.05, period=2, caps=(8, 1, 1)),
    atari=Setting(size=(20, 20), max_steps=10000, target=30, rate=0.05, period=2, caps=(10, 1, 1)),
    draws=(400, 1), events=("You destroyed a centipede segment.",),
    death="a centipede segment reaches the bottom row",
    death_message="The centipede reached the bottom row. Game over.",
)
