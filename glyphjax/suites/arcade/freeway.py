"""Freeway: cross the road, lane by lane, N times (pattern A).

MiniAtari: 10x14 field (8 lanes), N = 10, 200 turns. Atari: 16x20 (14 lanes), N = 50, 10,000
turns. You start on the bottom row in column W // 3; the top row is the far kerb. Every lane
scrolls sideways with wrap-around (physics.py's scrolling rows): each lane moves one column
every 1-3 turns (its period), left or right, and holds two cars half a road apart, all drawn at
reset. A turn: you move (UP/DOWN one row), then the lanes move. A car on your cell before or
after the lanes move sends you back to the bottom row; reaching the top row scores one crossing
(+1/N) and puts you back on the bottom row. There is no death: the episode ends at N crossings
or when the turns run out.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import scroll, scrolled

YOU, CAR, KERB = "@", "◙", "░"
ACTIONS = ("NOOP", "UP", "DOWN")
_MOVES = ((0, 0), (-1, 0), (1, 0))
EV_CROSSED, EV_HIT = 1, 2


def _rules(s: Setting) -> str:
    h, w = s.size
    return (f"Freeway. You {YOU} start on the bottom row in column {w // 3} and must cross "
            f"{h - 2} lanes of traffic to the far kerb {KERB} (the top row). UP/DOWN move you one row "
            f"a turn; then every lane moves one column (left or right, each lane every 1 to 3 "
            f"turns, wrapping around). A car {CAR} on your cell, before or after the lanes move, "
            "sends you back to the bottom row. Reaching the top row counts one crossing and "
            "puts you back on the bottom row.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    lanes_n = h - 2
    first = draws.randint(0, w, (lanes_n,))
    rows = jnp.arange(1, h - 1)
    field = (jnp.zeros((h, w), jnp.int8).at[rows, first].set(1)
             .at[rows, (first + w // 2) % w].set(1))
    direction = jnp.where(draws.bernoulli(0.5, (lanes_n,)), 1, -1)
    period = draws.randint(1, 4, (lanes_n,))
    lanes = jnp.zeros((h, 3), jnp.int32).at[1:h - 1, 1].set(direction).at[1:h - 1, 2].set(period)
    return new_state(s, field=field, lanes=lanes, player=jnp.array([h - 1, w // 3], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you = jnp.clip(state.player + action_delta(action, _MOVES), jnp.array([0, 0]), jnp.array([h - 1, w - 1]))
    lanes = scroll(state.lanes, state.t)
    hit = (scrolled(state.field, state.lanes)[you[0], you[1]] > 0) | (scrolled(state.field, lanes)[you[0], you[1]] > 0)
    crossed = (you[0] == 0) & ~hit
    start = jnp.array([h - 1, w // 3], jnp.int32)
    you = jnp.where(hit | crossed, start, you).astype(jnp.int32)
    event = jnp.where(crossed, EV_CROSSED, jnp.where(hit, EV_HIT, 0))
    return state.replace(player=you, lanes=lanes), Outcome(gained=crossed.astype(jnp.int32), event=event)


def _paint(state, s: Setting):
    codes = scrolled(state.field, state.lanes).astype(jnp.int32)
    codes = codes.at[0].set(2)
    return codes.at[state.player[0], state.player[1]].set(3)


def _scripted(key, state, params):
    """Step up when the cell ahead is clear before and after the lanes move, else wait when your
    own cell stays clear, else step back down."""
    r, c = state.player[0], state.player[1]
    h = state.field.shape[0]
    now, after = scrolled(state.field, state.lanes), scrolled(state.field, scroll(state.lanes, state.t))
    clear = lambda row: (now[jnp.clip(row, 0, h - 1), c] == 0) & (after[jnp.clip(row, 0, h - 1), c] == 0)
    wait_ok = after[r, c] == 0
    return jnp.where(clear(r - 1), 1, jnp.where(wait_ok, 0, 2)).astype(jnp.int32)


FREEWAY = Game(
    name="freeway", pattern="A", unit="crossing", actions=ACTIONS,
    descriptions=("stay where you are", "move one row up", "move one row down"),
    cells=EMPTY + CAR + KERB + YOU,
    glyphs={YOU: "you", CAR: "car", KERB: "the far kerb (reach it to score a crossing)"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 14), max_steps=200, target=10),
    atari=Setting(size=(16, 20), max_steps=10000, target=50),
    draws=(48, 1),
    events=("You crossed the road.", "A car hit you: back to the bottom row."),
    death="the turns run out",
)
