"""Assault: a mothership drops attackers that zigzag down towards you; shoot N (pattern D).

MiniAtari: 12x14 field, 3 attackers at a time, N = 10, 200 turns. Atari: 20x20 field, 4 at a
time, N = 30, 10,000 turns. The mothership crosses the top row back and forth, one column a
turn (it cannot be hit). An attacker flies sideways one column every `period` turns, bouncing
off the sides, and every fourth of its moves drops one row as well; a free attacker slot is
refilled under the mothership one turn in four. Your cannon works as in Space Invaders
(physics.cannon_turn); with probability `rate` a random attacker drops a bomb. A shot meeting an
attacker destroys it (+1/N); a bomb on your cell or an attacker reaching the bottom row is death
(-1, the end).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.physics import (BOMB, CANNON, CANNON_ACTIONS, CANNON_CELLS, CANNON_DESCRIPTIONS,
                                            CANNON_GLYPHS, SHOT, cannon_paint, cannon_policy, cannon_turn)

ATTACKER, MOTHERSHIP = "X", "▀"
EV_KILL = 1


def _rules(s: Setting) -> str:
    return (f"Assault. A mothership {MOTHERSHIP} crosses the top row and drops attackers {ATTACKER}: "
            f"each flies sideways one column every {s.period} turns, bouncing off the sides, and "
            f"drops one row on every fourth move. Your cannon {CANNON} moves along the bottom row; "
            f"FIRE launches a shot {SHOT} (one at a time) that climbs two rows a turn and destroys "
            f"the first attacker it meets on its way. Attackers drop bombs {BOMB}. A bomb on your "
            "cell, or an attacker reaching the bottom row, kills you.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    return new_state(s, opponent=jnp.array([0, 0], jnp.int32), phase=jnp.int32(1),
                     player=jnp.array([h - 1, w // 2], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    moves = (state.t % params.period) == 0
    drops = moves & ((state.t // params.period) % 4 == 3)

    def flying(st):
        moved = entities.advance(st.foes, h, w, edge="bounce")
        moved = moved.replace(pos=moved.pos + jnp.where(drops & moved.alive[:, None], jnp.array([1, 0]), 0))
        return jax.tree.map(lambda a, b: jnp.where(moves, a, b), moved, st.foes), st.phase

    nxt, kills, bombed = cannon_turn(draws, state, action, s.size, params.rate, flying)
    ship, heading = state.opponent[1], state.phase
    heading = jnp.where((ship + heading < 0) | (ship + heading >= w), -heading, heading)
    ship = ship + heading
    n = s.caps[0]
    refill = ~nxt.foes.alive & (draws.uniform((n,)) < 0.25)
    side = jnp.where(draws.bernoulli(0.5, (n,)), 1, -1)
    foes = entities.spawn_many(nxt.foes, jnp.tile(jnp.stack([1, ship]), (n, 1)),
                               jnp.stack([jnp.zeros(n, jnp.int32), side], axis=1), jnp.zeros(n, jnp.int32), refill)
    landed = (nxt.foes.alive & (nxt.foes.pos[:, 0] >= h - 1)).any()
    nxt = nxt.replace(foes=foes, opponent=jnp.stack([0, ship]).astype(jnp.int32), phase=heading)
    return nxt, Outcome(gained=kills, died=bombed | landed, event=jnp.where(kills > 0, EV_KILL, 0))


def _paint(state, s: Setting):
    return cannon_paint(state, s).at[0, state.opponent[1]].set(5)


def _scripted(key, state, params):
    """`physics.cannon_policy`, leading each attacker along its own heading."""
    return cannon_policy(state, params.period, state.foes.vel[:, 1])


ASSAULT = Game(
    name="assault", pattern="D", unit="attacker destroyed", actions=CANNON_ACTIONS,
    descriptions=CANNON_DESCRIPTIONS, cells=EMPTY + ATTACKER + CANNON_CELLS + MOTHERSHIP,
    glyphs={**CANNON_GLYPHS, ATTACKER: "attacker", MOTHERSHIP: "the mothership (cannot be hit)"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(12, 14), max_steps=200, target=10, rate=0.1, period=2, caps=(3, 1, 3)),
    atari=Setting(size=(20, 20), max_steps=10000, target=30, rate=0.1, period=2, caps=(4, 1, 4)),
    draws=(1, 10), events=("You destroyed an attacker.",),
    death="a bomb hits you or an attacker reaches the bottom row",
    death_message="Your cannon was destroyed (a bomb, or an attacker landed). Game over.",
)
