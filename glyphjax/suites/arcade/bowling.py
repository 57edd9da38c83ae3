"""Bowling: roll balls at a rack of 10 pins; knock down N pins before the frames run out
(pattern A).

MiniAtari: 10x12 lane, N = 20 pins in 3 frames, 200 turns (the reference: 20 pins in 2 frames
of up to 4 rolls). Atari: 12x20 lane, N = 80 pins in 10 frames, 10,000 turns (the reference
asks for all 100). Seen from above: the rack is a triangle of 10 pins (rows 1-4, two columns
apart, the head pin nearest you); you stand on the bottom row. LEFT / RIGHT move you one column
(while no ball rolls); FIRE rolls a ball straight up your column, one row a turn. A pin the ball
meets falls; a falling pin knocks each pin diagonally behind it (one row up, one column aside)
with probability `rate` (0.7) a turn later, and so on (deterministic given the step key). A roll
ends when the ball has left the lane and no pin is falling. A frame is two rolls, or one when
every pin is down (a strike); then the rack is set up again. The episode ends at N pins (a win)
or when the frames run out (no penalty). No curving the ball, no spares/strike bonus scoring.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core.grid import shift
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state

PIN, FALLING, BALL, BOWLER = "i", "/", "●", "@"
ACTIONS = ("NOOP", "LEFT", "RIGHT", "FIRE")
FIRE, STANDING, FELL = 3, 1, 2
EV_PINS = 1


def frames(s: Setting) -> int:
    """Frames in a game at a setting."""
    return 3 if s.size[1] < 16 else 10


def rack(s: Setting) -> jnp.ndarray:
    """int8[H, W]: 10 standing pins, 4 in row 1 down to the head pin in row 4, two columns apart."""
    h, w = s.size
    field = jnp.zeros((h, w), jnp.int8)
    for i in range(4):
        for j in range(4 - i):
            field = field.at[1 + i, w // 2 - 3 + i + 2 * j].set(STANDING)
    return field


def _rules(s: Setting) -> str:
    return (f"Bowling, seen from above, {frames(s)} frames. You {BOWLER} stand on the bottom row; the "
            f"10 pins {PIN} stand in a triangle at the top, the head pin nearest you. LEFT/RIGHT move you "
            f"one column; FIRE rolls a ball {BALL} straight up your column, one row a turn. A pin the "
            f"ball meets falls {FALLING}; a falling pin knocks each pin diagonally behind it (one row "
            "up, one column aside) a turn later, though not always. A frame is two rolls (one if every "
            "pin falls); then the pins are set up again.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    return new_state(s, field=rack(s), player=jnp.array([h - 1, w // 2], jnp.int32),
                     ball=jnp.array([-1, 0], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    rolling = state.cooldown > 0  # a roll is under way (the ball, or pins still falling)
    col = jnp.clip(state.player[1] + jnp.where(action == 1, -1, jnp.where(action == 2, 1, 0)), 1, w - 2)
    you = jnp.where(rolling, state.player, jnp.stack([h - 1, col])).astype(jnp.int32)
    thrown = ~rolling & (action == FIRE)
    ball = jnp.where(state.ball[0] >= 0, state.ball - jnp.array([1, 0]),
                     jnp.where(thrown, jnp.stack([h - 2, you[1]]), state.ball)).astype(jnp.int32)
    field = state.field
    falling = field == FELL
    behind = shift(falling, -1, 1, False) | shift(falling, -1, -1, False)  # one row up, one column aside
    knocked = (field == STANDING) & behind & (draws.uniform((h, w)) < params.rate)
    struck = (jnp.arange(h)[:, None] == ball[0]) & (jnp.arange(w)[None, :] == ball[1]) & (field == STANDING)
    new = knocked | struck
    field = jnp.where(falling, 0, jnp.where(new, FELL, field)).astype(jnp.int8)
    done_roll = rolling & (ball[0] < 0) & ~(field == FELL).any()
    roll = state.phase % 2
    cleared = ~(field == STANDING).any()
    phase = jnp.where(done_roll, jnp.where(cleared | (roll == 1), state.phase + 2 - roll, state.phase + 1), state.phase)
    field = jnp.where(done_roll & (phase % 2 == 0), rack(s), field)
    nxt = state.replace(player=you, ball=jnp.where(ball[0] < 0, jnp.array([-1, 0]), ball).astype(jnp.int32),
                        field=field, phase=phase.astype(jnp.int32),
                        cooldown=jnp.where(thrown, 1, jnp.where(done_roll, 0, state.cooldown)).astype(jnp.int32))
    gained = new.sum().astype(jnp.int32)
    return nxt, Outcome(gained=gained, died=phase >= 2 * frames(s), event=jnp.where(gained > 0, EV_PINS, 0))


def _paint(state, s: Setting):
    codes = state.field.astype(jnp.int32)
    codes = jnp.where(state.ball[0] >= 0, codes.at[state.ball[0], state.ball[1]].set(3), codes)
    return codes.at[state.player[0], state.player[1]].set(4)


def _scripted(key, state, params):
    """Stand under the column holding the most standing pins (the nearest on a tie) and roll."""
    w = state.field.shape[1]
    per_col = (state.field == STANDING).sum(0)
    cols = jnp.arange(w)
    score = per_col * 100 - jnp.abs(cols - state.player[1])
    aim = jnp.argmax(score)
    walk = jnp.where(aim < state.player[1], 1, jnp.where(aim > state.player[1], 2, FIRE))
    return jnp.where(state.cooldown > 0, 0, walk).astype(jnp.int32)


BOWLING = Game(
    name="bowling", pattern="A", unit="pin knocked down", actions=ACTIONS,
    descriptions=("wait", "step one column left", "step one column right", "roll a ball up your column"),
    cells=EMPTY + PIN + FALLING + BALL + BOWLER,
    glyphs={BOWLER: "you", PIN: "a standing pin", FALLING: "a falling pin (it may knock the pins behind it)",
            BALL: "ball"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 12), max_steps=200, target=20, rate=0.7),
    atari=Setting(size=(12, 20), max_steps=10000, target=80, rate=0.7),
    draws=(0, 240), events=("Pins fell.",), death="the frames run out",
    death_message="The last frame is over. Game over.",
)
