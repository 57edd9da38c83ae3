"""Breakout: keep the ball in play with the paddle and knock out N bricks (pattern A).

MiniAtari: 10x16 field, 2 rows of 14 bricks, N = 11, 200 turns. Atari: 20x20 field, 4 rows of
18 bricks, N = 60 (the catalogue's W), 10,000 turns. The paddle (3 cells, bottom row) moves one
column a turn, then the ball moves (physics.py's ball rules; the side walls and the ceiling
reflect it, the bottom is open). A ball that would enter a brick turns back vertically and the
brick is gone (+1/N); missing the ball ends the episode without penalty. One action set at both
settings (the reference's Atari breakout adds FIRE to serve; here the ball is in play at once).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import covers, fold, paddle_bounce, slide, wall_bounce

BRICK, PADDLE, BALL = "█", "▬", "●"
WIDTH = 3  # paddle cells
ACTIONS = ("NOOP", "LEFT", "RIGHT")
_MOVES = ((0, 0), (0, -1), (0, 1))


def brick_rows(setting: Setting) -> tuple[int, int]:
    """(first row, number of rows) of the brick wall at a setting."""
    return (1, 2) if setting.size[0] < 16 else (2, 4)


def _rules(s: Setting) -> str:
    top, rows = brick_rows(s)
    return (f"Breakout. {rows} rows of bricks {BRICK} fill columns 1 to {s.size[1] - 2} from row "
            f"{top}. Your paddle {PADDLE} ({WIDTH} cells) sits on the bottom row; LEFT/RIGHT move it "
            f"one column a turn, then the ball {BALL} moves one cell a turn (diagonally, or straight up or down). The side walls and "
            "the ceiling reflect the ball (at a wall it moves only along the wall that turn); a ball that reaches a brick breaks it and turns back. "
            "A ball hitting the paddle's left cell flies off to the left, its right cell to the "
            "right, its middle cell straight up. If the ball passes the paddle the game is over.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    top, rows = brick_rows(s)
    field = jnp.zeros((h, w), jnp.int8).at[top:top + rows, 1:w - 1].set(1)
    ball = jnp.stack([jnp.int32(top + rows), draws.randint(1, w - 1)])
    vel = jnp.stack([jnp.int32(1), jnp.where(draws.bernoulli(0.5), 1, -1)]).astype(jnp.int32)
    return new_state(s, field=field, ball=ball.astype(jnp.int32), ball_vel=vel,
                     player=jnp.array([h - 1, (w - WIDTH) // 2], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    player = slide(state.player, action_delta(action, _MOVES), jnp.array([h - 1, 0]),
                   jnp.array([h - 1, w - WIDTH]))
    move, vel = wall_bounce(state.ball, state.ball_vel, 1, 0, w - 1)
    move_r, vel = wall_bounce(state.ball, vel, 0, 0, h)  # the ceiling; the bottom is open
    target = state.ball + move.at[0].set(move_r[0])
    r, c = jnp.clip(target[0], 0, h - 1), target[1]
    brick = state.field[r, c] > 0
    paddle, offset = covers(player, target, WIDTH, axis=1)
    bounce = brick | paddle
    vel = jnp.stack([jnp.where(bounce, -vel[0], vel[0]),
                     jnp.where(paddle, paddle_bounce(offset, WIDTH), vel[1])]).astype(jnp.int32)
    field = state.field.at[r, c].set(jnp.where(brick, 0, state.field[r, c]))
    ball = jnp.where(bounce, state.ball, target).astype(jnp.int32)
    missed = ~bounce & (target[0] >= h - 1)
    nxt = state.replace(player=player, ball=ball, ball_vel=vel, field=field)
    return nxt, Outcome(gained=brick.astype(jnp.int32), died=missed)


def _paint(state, s: Setting):
    h, w = s.size
    codes = state.field.astype(jnp.int32)
    cols = jnp.arange(w)
    paddle = (cols >= state.player[1]) & (cols < state.player[1] + WIDTH)
    codes = codes.at[h - 1].set(jnp.where(paddle, 2, codes[h - 1]))
    return codes.at[state.ball[0], state.ball[1]].set(3)


def _scripted(key, state, params):
    """Track the ball: while it falls, meet it where it will reach the bottom row (walls folded
    in) with the paddle cell that sends it towards the nearest column still holding a brick (a
    random cell when that column is the landing one); while it rises, follow its column."""
    h, w = state.field.shape
    b, v = state.ball, state.ball_vel
    land = fold(b[1], v[1], (h - 1) - b[0], 0, w - 1)
    cols = jnp.arange(w)
    gap = jnp.where(state.field.any(axis=0), jnp.abs(cols - land), 2 * w)
    towards = jnp.sign(cols[jnp.argmin(gap)] - land)
    towards = jnp.where(jax.random.bernoulli(key, 0.5), jax.random.randint(key, (), -1, 2), towards)
    aim = jnp.where(v[0] > 0, land - towards, b[1])
    centre = state.player[1] + WIDTH // 2
    return jnp.where(aim < centre, 1, jnp.where(aim > centre, 2, 0)).astype(jnp.int32)


BREAKOUT = Game(
    name="breakout", pattern="A", unit="brick", actions=ACTIONS,
    descriptions=("keep the paddle still", "move the paddle one column left",
                  "move the paddle one column right"),
    cells=EMPTY + BRICK + PADDLE + BALL,
    glyphs={BRICK: "brick", PADDLE: "your paddle", BALL: "ball"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 16), max_steps=200, target=11),
    atari=Setting(size=(20, 20), max_steps=10000, target=60),
    death="the ball passes your paddle", death_message="You missed the ball. Game over.",
)
