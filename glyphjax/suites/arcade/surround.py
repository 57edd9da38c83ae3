"""Surround: a light-cycle duel; make the opponent crash into a wall or a trail first (pattern C).

MiniAtari: 12x12 arena (walls on the border), W = 1, 200 turns (the reference's). Atari: 20x20,
W = 1 (the catalogue's), 10,000 turns. Both cycles move one cell every turn along their heading
and leave a trail on every cell they leave (board.py `cycle_step`). UP/DOWN/LEFT/RIGHT turn your
cycle (a reversal is ignored), NOOP keeps going. A cycle that ends a turn on a wall or any trail
crashes: a point for the other side. Both crashing in one turn (or meeting head-on) is a draw:
no point, and a new round starts on a clean arena, as it does after every point when W > 1. The
opponent each turn, with probability `rate` (0.9), turns to the heading with the most free
cells ahead (board.py `room`, 8 steps deep), else to a random heading whose next cell is free
(deterministic given the step key). Atari Surround plays to 10 points; the catalogue's W is 1.
The catalogue's Atari action order differs (RIGHT second); here the mini set serves both.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core.grid import border_mask
from glyphjax.core.sampling import uniform_true
from glyphjax.suites.arcade.arena import DUEL_GLYPHS, RIVAL, YOU
from glyphjax.suites.arcade.board import DIRS, cycle_step, open_headings, room, steer
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state

WALL, TRAIL, RIVAL_TRAIL = "▓", "▦", "▧"
ACTIONS = ("NOOP", "UP", "DOWN", "LEFT", "RIGHT")
WALL_CODE, YOURS, THEIRS = 3, 1, 2  # field codes
DEPTH = 8  # look-ahead steps of `room`
EV_POINT, EV_POINT_LOST, EV_DRAW = 1, 2, 3


def _rules(s: Setting) -> str:
    return (f"Surround. You {YOU} and the opponent {RIVAL} ride light cycles inside the walls {WALL}. "
            f"Both move one cell every turn and leave a trail ({TRAIL} yours, {RIVAL_TRAIL} the "
            "opponent's) on every cell they leave. UP, DOWN, LEFT and RIGHT turn your cycle (turning "
            "back is ignored); NOOP keeps going. A cycle that runs into a wall or any trail crashes and "
            "the other side scores; crashing together, or head-on, is a draw and the round restarts "
            "on a clean arena.")


def _round(state, s: Setting):
    """A clean arena: you on the left heading right, the opponent on the right heading left."""
    h, w = s.size
    field = jnp.asarray(border_mask(h, w) * WALL_CODE, jnp.int8)
    return state.replace(field=field, player=jnp.array([h // 2, 2], jnp.int32),
                         opponent=jnp.array([h // 2 - 1, w - 3], jnp.int32),
                         heading=jnp.array(DIRS[3], jnp.int32), phase=jnp.int32(2))


def _reset(draws, s: Setting, params):
    return _round(new_state(s), s)


def index_of(heading) -> jnp.ndarray:
    """The DIRS index of a (d_row, d_col) heading."""
    return jnp.argmax((jnp.array(DIRS, jnp.int32) == heading[None]).all(-1)).astype(jnp.int32)


def best_heading(field, head, heading, other) -> jnp.ndarray:
    """The heading with the most room ahead (`room`); ties keep the current heading, then the
    first in DIRS order."""
    score = 2 * room(field, head, heading, other, DEPTH) + (jnp.arange(4) == heading)
    return jnp.argmax(score).astype(jnp.int32)


def _step(draws, state, action, s: Setting, params):
    mine = steer(index_of(state.heading), action.astype(jnp.int32) - 1)
    u, pick = draws.uniform(), draws.uniform()
    best = best_heading(state.field, state.opponent, state.phase, state.player)
    wild = uniform_true(open_headings(state.field, state.opponent, state.phase, state.player)[0], pick)
    theirs = jnp.where(u < params.rate, best, wild).astype(jnp.int32)
    heads = jnp.stack([state.player, state.opponent])
    field, heads, crashed = cycle_step(state.field, heads, jnp.stack([mine, theirs]), jnp.array([YOURS, THEIRS]))
    moved = state.replace(field=field, player=heads[0], opponent=heads[1],
                          heading=jnp.array(DIRS, jnp.int32)[mine], phase=theirs)
    over = crashed.any()
    scored, conceded = crashed[1] & ~crashed[0], crashed[0] & ~crashed[1]
    decided = (state.score + scored >= params.target) | (state.opp_score + conceded >= params.target)
    again = over & ~decided  # the last round's frame stays on screen when the match ends
    nxt = jax.tree.map(lambda fresh, cur: jnp.where(again, fresh, cur), _round(moved, s), moved)
    event = jnp.where(scored, EV_POINT, jnp.where(conceded, EV_POINT_LOST, jnp.where(over, EV_DRAW, 0)))
    return nxt, Outcome(gained=scored.astype(jnp.int32), conceded=conceded.astype(jnp.int32), event=event)


def _paint(state, s: Setting):
    codes = state.field.astype(jnp.int32)
    codes = codes.at[state.opponent[0], state.opponent[1]].set(5)
    return codes.at[state.player[0], state.player[1]].set(4)


def _scripted(key, state, params):
    """Turn to the heading with the most room ahead (the opponent's rule, without its mistakes)."""
    return (best_heading(state.field, state.player, index_of(state.heading), state.opponent) + 1).astype(jnp.int32)


SURROUND = Game(
    name="surround", pattern="C", unit="point", actions=ACTIONS,
    descriptions=("keep going", "turn up", "turn down", "turn left", "turn right"),
    cells=EMPTY + TRAIL + RIVAL_TRAIL + WALL + YOU + RIVAL,
    glyphs={**DUEL_GLYPHS, WALL: "wall", TRAIL: "your trail", RIVAL_TRAIL: "the opponent's trail"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(12, 12), max_steps=200, target=1, rate=0.9),
    atari=Setting(size=(20, 20), max_steps=10000, target=1, rate=0.9),
    draws=(1, 2), events=("The opponent crashed: your point.", "You crashed: the opponent's point.",
                          "Both cycles crashed: a draw. A new round starts."),
)
