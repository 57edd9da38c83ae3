"""Enduro: race down a road overtaking cars without touching any (pattern A).

MiniAtari: 10x12 field, N = 8 cars, 300 turns. Atari: 20x12, N = 200 (the catalogue's W), 10,000
turns. The road runs between kerbs on the first and last columns; your car rides the row above
the bottom. Your speed is 1-3 (the HUD gauge; you start at 1, ACCELERATE and BRAKE change it by
one); the traffic drives at speed 1, so each turn it moves down the screen by your speed less
one row (board.py `drive`). A turn: you steer (LEFT/RIGHT one column, never onto a kerb) or
change speed, the traffic moves, and then, with probability `rate`, a car enters row 0 on a
random road column that has no car in rows 0-1. A car that passes your row without touching you
is overtaken (+1/N); one that meets your car (swept along its path) crashes you and ends the
episode (no penalty). Atari Enduro's days, weather and per-day quotas are left out. The
catalogue's mini set has no BRAKE; here the 5-action Atari set serves both settings.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade.board import drive
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import slide

YOU, CAR, KERB = "♦", "◙", "┃"
ACTIONS = ("NOOP", "LEFT", "RIGHT", "ACCELERATE", "BRAKE")
_MOVES = ((0, 0), (0, -1), (0, 1), (0, 0), (0, 0))
ACCELERATE, BRAKE, TOP_SPEED = 3, 4, 3
EV_OVERTAKE = 1


def _rules(s: Setting) -> str:
    return (f"Enduro. You {YOU} drive up a road between kerbs {KERB}; cars {CAR} drive the same way more "
            "slowly. Your speed is 1 to 3 (the HUD gauge): ACCELERATE and BRAKE change it by one, LEFT "
            "and RIGHT steer one column. Each turn the cars move down the screen by your speed less one "
            "row. A car that passes your row without touching you is overtaken; touching a car crashes "
            "you.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    return new_state(s, player=jnp.array([h - 2, w // 2], jnp.int32), phase=jnp.int32(1))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you = slide(state.player, action_delta(action, _MOVES), jnp.array([h - 2, 1]), jnp.array([h - 2, w - 2]))
    speed = jnp.clip(state.phase + (action == ACCELERATE) - (action == BRAKE), 1, TOP_SPEED).astype(jnp.int32)
    cars, hit, passed = drive(state.foes, state.player, you, speed - 1, h, w)
    col = draws.randint(1, w - 1)
    top = cars.alive & (cars.pos[:, 0] <= 1) & (cars.pos[:, 1] == col)
    cell = jnp.stack([jnp.int32(0), col]).astype(jnp.int32)
    cars = entities.spawn(cars, cell, jnp.zeros(2, jnp.int32), 0, where=(draws.uniform() < params.rate) & ~top.any())
    nxt = state.replace(player=you, phase=speed, foes=cars)
    return nxt, Outcome(gained=passed, died=hit, event=jnp.where(passed > 0, EV_OVERTAKE, 0))


def _paint(state, s: Setting):
    h, w = s.size
    codes = jnp.zeros((h, w), jnp.int32).at[:, 0].set(3).at[:, w - 1].set(3)
    codes = entities.paint(codes, state.foes, jnp.array([2], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(1)


def _scripted(key, state, params):
    """Hold speed 2; when a car is in your column within three rows above, steer to a
    neighbouring column with no car in those rows (or brake when neither is clear)."""
    you, cars = state.player, state.foes
    w = state.field.shape[1]
    rows_ok = cars.alive & (cars.pos[:, 0] >= you[0] - 3) & (cars.pos[:, 0] <= you[0])
    cols = you[1] + jnp.array([0, -1, 1])
    busy = (rows_ok[None] & (cars.pos[None, :, 1] == cols[:, None])).any(-1)
    busy = busy | (cols < 1) | (cols > w - 2)
    dodge = jnp.where(~busy[1], 1, jnp.where(~busy[2], 2, BRAKE))
    cruise = jnp.where(state.phase < 2, ACCELERATE, jnp.where(state.phase > 2, BRAKE, 0))
    return jnp.where(busy[0], dodge, cruise).astype(jnp.int32)


ENDURO = Game(
    name="enduro", pattern="A", unit="car overtaken", actions=ACTIONS,
    descriptions=("keep your speed and column", "steer one column left", "steer one column right",
                  "speed up by one (at most 3)", "slow down by one (at least 1)"),
    cells=EMPTY + YOU + CAR + KERB,
    glyphs={YOU: "your car", CAR: "car", KERB: "the kerb (the road's edge)"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 12), max_steps=300, target=8, rate=0.25, caps=(8, 1, 1)),
    atari=Setting(size=(20, 12), max_steps=10000, target=200, rate=0.25, caps=(12, 1, 1)),
    draws=(1, 2), events=("You overtook a car.",),
    death="you touch a car", death_message="You crashed into a car. Game over.",
    gauge=("Speed", lambda state: state.phase),
)
