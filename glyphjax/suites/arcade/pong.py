"""Pong: return the ball past the opponent's paddle; first to W points (pattern C).

MiniAtari: 10x16 field, W = 3, 200 turns. Atari: 18x34 field, W = 21 (the catalogue's), 5,000
turns. Your paddle (3 cells) is the right column, the opponent's the left one. Each turn both
paddles move (you by your action; the opponent one row towards the ball with probability
`rate`, else it stays: deterministic given the step key), then the ball moves under physics.py's
ball rules (the top and bottom walls reflect it; a paddle returns it). A ball that passes a
paddle's column is a point for the other side and is served again from the centre in a random
diagonal direction. The reference's Atari pong has FIRE actions; here one action set serves both.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import covers, fold, paddle_bounce, slide, wall_bounce

PADDLE, RIVAL, BALL = "■", "□", "●"
HEIGHT = 3  # paddle cells
ACTIONS = ("NOOP", "UP", "DOWN")
_MOVES = ((0, 0), (-1, 0), (1, 0))
EV_POINT, EV_POINT_LOST = 1, 2


def _rules(s: Setting) -> str:
    return (f"Pong. Your paddle {PADDLE} ({HEIGHT} cells) is in the rightmost column, the "
            f"opponent's {RIVAL} in the leftmost. UP/DOWN move your paddle one row a turn; the "
            f"opponent follows the ball, but not every turn. Then the ball {BALL} moves one cell "
            "a turn (diagonally, or straight across); the top and bottom walls reflect it (at a wall it moves only across that turn). A paddle returns the ball: its top "
            "cell sends it off diagonally upwards, its bottom cell downwards, its middle straight "
            "across. A ball "
            "that gets past a paddle scores a point for the other side and is served again from "
            "the centre.")


def _serve(draws, s: Setting):
    h, w = s.size
    ball = jnp.stack([draws.randint(h // 2 - 2, h // 2 + 2), jnp.int32(w // 2)]).astype(jnp.int32)
    sign = jnp.where(draws.bernoulli(0.5, (2,)), 1, -1).astype(jnp.int32)
    return ball, sign


def _reset(draws, s: Setting, params):
    h, w = s.size
    top = (h - HEIGHT) // 2
    ball, vel = _serve(draws, s)
    return new_state(s, player=jnp.array([top, w - 1], jnp.int32), opponent=jnp.array([top, 0], jnp.int32),
                     ball=ball, ball_vel=vel)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    player = slide(state.player, action_delta(action, _MOVES), jnp.array([0, w - 1]),
                   jnp.array([h - HEIGHT, w - 1]))
    follow = jnp.sign(state.ball[0] - (state.opponent[0] + HEIGHT // 2)) * (draws.uniform() < params.rate)
    opponent = slide(state.opponent, jnp.stack([follow, 0]), jnp.array([0, 0]), jnp.array([h - HEIGHT, 0]))
    move, vel = wall_bounce(state.ball, state.ball_vel, 0, 0, h - 1)
    target = state.ball + move
    mine, mine_at = covers(player, target, HEIGHT, axis=0)
    theirs, theirs_at = covers(opponent, target, HEIGHT, axis=0)
    hit = mine | theirs
    d_row = jnp.where(mine, paddle_bounce(mine_at, HEIGHT),
                      jnp.where(theirs, paddle_bounce(theirs_at, HEIGHT), vel[0]))
    vel = jnp.stack([d_row, jnp.where(hit, -vel[1], vel[1])]).astype(jnp.int32)
    ball = jnp.where(hit, state.ball, target)
    scored, conceded = ~hit & (target[1] <= 0), ~hit & (target[1] >= w - 1)
    served, serve_vel = _serve(draws, s)
    point = scored | conceded
    nxt = state.replace(player=player, opponent=opponent, ball=jnp.where(point, served, ball).astype(jnp.int32),
                        ball_vel=jnp.where(point, serve_vel, vel))
    event = jnp.where(scored, EV_POINT, jnp.where(conceded, EV_POINT_LOST, 0))
    return nxt, Outcome(gained=scored.astype(jnp.int32), conceded=conceded.astype(jnp.int32), event=event)


def _paint(state, s: Setting):
    h, w = s.size
    rows = jnp.arange(h)
    codes = jnp.zeros((h, w), jnp.int32)
    codes = codes.at[:, w - 1].set(jnp.where((rows >= state.player[0]) & (rows < state.player[0] + HEIGHT), 1, 0))
    codes = codes.at[:, 0].set(jnp.where((rows >= state.opponent[0]) & (rows < state.opponent[0] + HEIGHT), 2, 0))
    return codes.at[state.ball[0], state.ball[1]].set(3)


def _scripted(key, state, params):
    """Track the ball: while it comes towards you, meet it where it will reach your column (walls
    folded in) with the paddle end that sends it away from the opponent's half; otherwise follow
    its row."""
    b, v = state.ball, state.ball_vel
    h, w = state.field.shape
    land = fold(b[0], v[0], (w - 1) - b[1], 0, h - 1)
    away = jnp.where(state.opponent[0] + HEIGHT // 2 < h // 2, 1, -1)  # +1: send it downwards
    aim = jnp.where(v[1] > 0, land - away, b[0])
    centre = state.player[0] + HEIGHT // 2
    return jnp.where(aim < centre, 1, jnp.where(aim > centre, 2, 0)).astype(jnp.int32)


PONG = Game(
    name="pong", pattern="C", unit="point", actions=ACTIONS,
    descriptions=("keep your paddle still", "move your paddle one row up", "move your paddle one row down"),
    cells=EMPTY + PADDLE + RIVAL + BALL,
    glyphs={PADDLE: "your paddle", RIVAL: "the opponent's paddle", BALL: "ball"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 16), max_steps=200, target=3, rate=0.7),
    atari=Setting(size=(18, 34), max_steps=5000, target=21, rate=0.8),
    events=("You scored a point.", "The opponent scored a point."),
)
