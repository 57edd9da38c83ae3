"""Tennis: hit the ball past the opponent; first to W points (pattern C).

MiniAtari: 10x18 court, W = 5 points, 300 turns (the reference plays first to 3 games of 2
points; ours counts points). Atari: 24x20 court, W = 18 points (the catalogue's), 10,000 turns.
Top-down court: the net is the middle row; you play below it, the opponent above. You move one
cell a turn in your half; the opponent keeps its baseline row and follows the ball's column with
probability `rate` (0.7 / 0.8; deterministic given the step key). The ball flies one row a turn
(and one column, or none), bounces off the side lines (physics.py's wall rule) and crosses the
net. A body the ball reaches (within one cell, coming towards it) strikes it back: a ball on the
body's left goes off left, on its right off right, in line straight. A ball past a baseline is a
point for the other side, and the next ball is served from the net in a random direction. No
serve rule, no faults, no out balls.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.suites.arcade.arena import (DUEL_GLYPHS, DUEL_MOVES, RIVAL, YOU, beside, fly, hit_back, move_action,
                                          toward, track, walk)
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import fold

NET, BALL = "-", "●"
ACTIONS = ("NOOP", "UP", "DOWN", "LEFT", "RIGHT")
EV_POINT, EV_POINT_LOST = 1, 2


def _rules(s: Setting) -> str:
    return (f"Tennis, seen from above. The net {NET} is the middle row; you {YOU} play below it, the "
            f"opponent {RIVAL} above it on its baseline. You move one cell a turn in your half. The "
            f"ball {BALL} flies one row a turn (and one column, or straight), bouncing off the side "
            "lines. When the ball comes to within one cell of a player it is struck back: a ball on "
            "the player's left side goes off to the left, on the right side to the right, in line "
            "straight. A ball that gets past a baseline (the top or bottom row) is a point for the "
            "other side; the next ball is served from the net.")


def _serve(draws, s: Setting):
    h, w = s.size
    ball = jnp.stack([jnp.int32(h // 2), draws.randint(w // 2 - 2, w // 2 + 2)]).astype(jnp.int32)
    vel = jnp.stack([jnp.where(draws.bernoulli(0.5), 1, -1), draws.randint(-1, 2)]).astype(jnp.int32)
    return ball, vel


def _reset(draws, s: Setting, params):
    h, w = s.size
    ball, vel = _serve(draws, s)
    return new_state(s, player=jnp.array([h - 2, w // 2], jnp.int32), opponent=jnp.array([1, w // 2], jnp.int32),
                     ball=ball, ball_vel=vel)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you = walk(state.player, action_delta(action, DUEL_MOVES), jnp.array([h // 2 + 1, 0]),
               jnp.array([h - 1, w - 1]), state.opponent)
    aim = jnp.stack([state.opponent[0], jnp.where(state.ball_vel[0] < 0, state.ball[1], w // 2)])
    opp = track(state.opponent, aim, draws.uniform(), params.rate, 0, jnp.array([h // 2 - 1, w - 1]), you)
    ball, vel = fly(state.ball, state.ball_vel, (-1, 0), (h, w - 1))
    mine, theirs = (vel[0] > 0) & beside(ball, you), (vel[0] < 0) & beside(ball, opp)
    vel = jnp.where(mine, hit_back(ball, you, -1), jnp.where(theirs, hit_back(ball, opp, 1), vel))
    scored, conceded = ball[0] < 0, ball[0] > h - 1
    point = scored | conceded
    served, serve_vel = _serve(draws, s)
    nxt = state.replace(player=you, opponent=opp, ball=jnp.where(point, served, ball),
                        ball_vel=jnp.where(point, serve_vel, vel))
    event = jnp.where(scored, EV_POINT, jnp.where(conceded, EV_POINT_LOST, 0))
    return nxt, Outcome(gained=scored.astype(jnp.int32), conceded=conceded.astype(jnp.int32), event=event)


def _paint(state, s: Setting):
    h, w = s.size
    codes = jnp.zeros((h, w), jnp.int32).at[h // 2].set(1)
    codes = codes.at[state.ball[0], state.ball[1]].set(4)
    codes = codes.at[state.opponent[0], state.opponent[1]].set(3)
    return codes.at[state.player[0], state.player[1]].set(2)


def _scripted(key, state, params):
    """While the ball comes down, stand on the row above the baseline where it will arrive (side
    lines folded in), beside it on the side that sends it to where the opponent will be furthest
    from it; otherwise wait in the middle."""
    h, w = state.field.shape
    b, v, row = state.ball, state.ball_vel, h - 2
    land = fold(b[1], v[1], jnp.maximum(row - b[0], 0), 0, w - 1)
    over = fold(land, jnp.array([-1, 1]), row - state.opponent[0], 0, w - 1)  # where each return arrives
    side = jnp.where(jnp.abs(over[1] - state.opponent[1]) > jnp.abs(over[0] - state.opponent[1]), 1, -1)
    col = jnp.where(v[0] > 0, jnp.clip(land - side, 0, w - 1), w // 2)
    return move_action(toward(state.player, jnp.stack([row, col])))


TENNIS = Game(
    name="tennis", pattern="C", unit="point", actions=ACTIONS,
    descriptions=("stand still", "move up one row", "move down one row", "move left one column",
                  "move right one column"),
    cells=EMPTY + NET + YOU + RIVAL + BALL,
    glyphs={**DUEL_GLYPHS, NET: "the net (the ball flies over it; players stay on their side)", BALL: "ball"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 18), max_steps=300, target=5, rate=0.7),
    atari=Setting(size=(24, 20), max_steps=10000, target=18, rate=0.8),
    draws=(3, 4), events=("You won the point.", "The opponent won the point."),
)
