"""Skiing: slalom down a course, passing between the flags of each gate (pattern A).

MiniAtari: 16x14 slope, N = 10 gates, 200 turns (the reference's). Atari: 24x20, N = 10 (the
catalogue's W), 10,000 turns. You ski on row 2 while the slope scrolls up one row a turn; LEFT
and RIGHT edge you one column. Every `period` turns (4 / 5) a gate enters on the bottom row
until N have entered: two flags `GAP` + 1 columns apart, shifted at random by less than
`period` columns from the gate before (so every gate can be reached). A gate whose flags
reach your row with you strictly between them is cleared (+1/N); one you miss scrolls past. The
course ends (no penalty) when the last gate has passed your row. Atari Skiing's trees, moguls
and timed score are left out; here the score is the gates cleared.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade.arena import YOU
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import slide

FLAG = "⚑"
ACTIONS = ("NOOP", "LEFT", "RIGHT")
_MOVES = ((0, 0), (0, -1), (0, 1))
ROW, GAP = 2, 3  # your row; the open cells between a gate's flags
EV_GATE = 1


def _rules(s: Setting) -> str:
    return (f"Skiing. You {YOU} ski down row {ROW} while the slope scrolls up one row a turn; LEFT and "
            f"RIGHT move you one column. Gates (two flags {FLAG} with {GAP} open cells between them) come "
            f"up from the bottom, one every {s.period} turns. Be between a gate's flags when they reach "
            "your row to clear it. The course ends when the last gate has passed you.")


def _reset(draws, s: Setting, params):
    return new_state(s, player=jnp.array([ROW, s.size[1] // 2], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you = slide(state.player, action_delta(action, _MOVES), jnp.array([ROW, 0]), jnp.array([ROW, w - 1]))
    gates = entities.advance(state.foes.replace(vel=jnp.broadcast_to(jnp.array([-1, 0]), state.foes.vel.shape)),
                             h, w)
    at_row = gates.alive & (gates.pos[:, 0] == ROW)
    cleared = (at_row & (you[1] > gates.pos[:, 1]) & (you[1] <= gates.pos[:, 1] + GAP)).sum().astype(jnp.int32)
    gates = entities.kill(gates, at_row)  # a gate is done once it reaches your row
    enter = ((state.t % params.period) == 0) & (state.phase < params.target)
    newest = jnp.argmax(jnp.where(gates.alive, gates.pos[:, 0], -1))
    last = jnp.where(gates.alive.any(), gates.pos[newest, 1], (w - GAP - 2) // 2)
    col = jnp.clip(last + draws.randint(1 - params.period, params.period), 0, w - GAP - 2)
    cell = jnp.stack([jnp.int32(h - 1), col]).astype(jnp.int32)
    gates = entities.spawn(gates, cell, jnp.zeros(2, jnp.int32), 0, where=enter)
    entered = state.phase + enter.astype(jnp.int32)
    over = (entered >= params.target) & ~gates.alive.any()
    nxt = state.replace(player=you, foes=gates, phase=entered)
    return nxt, Outcome(gained=cleared, died=over, event=jnp.where(cleared > 0, EV_GATE, 0))


def _paint(state, s: Setting):
    codes = jnp.zeros(s.size, jnp.int32)
    codes = entities.paint(codes, state.foes, jnp.array([2], jnp.int32))
    codes = entities.paint(codes, state.foes.replace(pos=state.foes.pos + jnp.array([0, GAP + 1])),
                           jnp.array([2], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(1)


def _scripted(key, state, params):
    """Steer towards the middle of the nearest gate below you."""
    g = state.foes
    rows = jnp.where(g.alive, g.pos[:, 0], 1 << 20)
    aim = g.pos[jnp.argmin(rows), 1] + (GAP + 1) // 2
    col = state.player[1]
    return jnp.where(~g.alive.any() | (aim == col), 0, jnp.where(aim < col, 1, 2)).astype(jnp.int32)


SKIING = Game(
    name="skiing", pattern="A", unit="gate cleared", actions=ACTIONS,
    descriptions=("ski straight down", "edge one column left", "edge one column right"),
    cells=EMPTY + YOU + FLAG,
    glyphs={YOU: "you", FLAG: "a gate flag (pass between a gate's two flags)"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(16, 14), max_steps=200, target=10, period=4, caps=(5, 1, 1)),
    atari=Setting(size=(24, 20), max_steps=10000, target=10, period=5, caps=(6, 1, 1)),
    draws=(1, 1), events=("You cleared a gate.",),
    death="the last gate has passed you", death_message="The course is over.",
)
