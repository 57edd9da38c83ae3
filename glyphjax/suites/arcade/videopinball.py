"""Video Pinball: keep the ball in play with the flippers and score on bumpers and targets (pattern A).

Atari only: 24x12 table, N = 100 scoring events (the catalogue's W), 10,000 turns. Walls close
the table's sides and top; the flippers lie on row F = H - 3, the left one on columns 1-4, the
right one on columns 7-10, with the drain between them (columns 5-6). The ball moves one cell a
turn along each axis under `physics.pinball_move`: launched up, it rises RISE rows (BUMP after a
bumper) and then falls; the side walls and the top reflect it. A ball striking a bumper or a
drop target turns back (+1/N); a struck drop target drops, and when the last one drops the bank
stands up again. A turn: NUDGE (at most once every TILT turns) turns the ball's sideways motion
away from the drain; a flipper button launches the ball when it is over that flipper on row F,
or on row F - 1 and not rising (up, and diagonally towards the table's middle from the flipper's
two inner cells); otherwise a ball lying on a flipper rolls one column towards the drain a turn,
and one in the drain falls; then the ball moves. A ball below row F has drained: the episode
ends (no penalty). Differences from Atari Video Pinball: one ball (single life), no plunger (the
ball is served from the top at reset), no spinners, rollovers or bonus multipliers, and NUDGE
turns the ball away from the drain (the reference's NUDGE shifts it one column left).
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.physics import fold, pinball_move

WALL, BUMPER, TARGET, FLIPPER, BALL = "▓", "◎", "▮", "▂", "●"
ACTIONS = ("NOOP", "LEFT_FLIPPER", "RIGHT_FLIPPER", "NUDGE")
LEFT, RIGHT, NUDGE = 1, 2, 3
SOLID, STANDING = 1, 3  # field codes: 1 wall, 2 bumper, 3 standing target (0: fallen or empty)
FLIP, RISE, BUMP, TILT = 4, 16, 3, 8  # flipper cells; rows a launched / bumped ball rises; nudge cooldown
BUMPERS = ((8, 3), (8, 8), (11, 5), (14, 2), (14, 9), (17, 4), (17, 7))
TARGETS = (5, tuple(range(3, 9)))  # the drop-target bank: row, columns
EV_BUMPER, EV_TARGET = 1, 2


def _rules(s: Setting) -> str:
    h, w = s.size
    return (f"Video Pinball. The ball {BALL} moves one cell a turn (diagonally, or straight up or down) "
            f"on a walled table {WALL}. Launched up it rises {RISE} rows ({BUMP} after a bumper), then "
            f"falls; walls and the top reflect it. Striking a bumper {BUMPER} or a drop target {TARGET} "
            "scores and sends the ball back; a struck target drops, and the bank stands up again when "
            f"all have dropped. The flippers {FLIPPER} lie on row {h - 3}: columns 1-{FLIP} (left) and "
            f"{w - 1 - FLIP}-{w - 2} (right), with the drain between them. A flipper button launches the "
            f"ball when it lies on that flipper, or is just above it and not rising; a ball left on a "
            f"flipper rolls one column a turn into the drain. NUDGE (at most once every {TILT} turns) "
            "turns the ball's sideways motion away from the drain. A ball falling through the drain "
            "ends the game.")


def _table(h: int, w: int) -> jnp.ndarray:
    field = jnp.zeros((h, w), jnp.int8).at[:, 0].set(SOLID).at[:, w - 1].set(SOLID).at[0].set(SOLID)
    field = field.at[tuple(jnp.array(BUMPERS).T)].set(2)
    return field.at[TARGETS[0], jnp.array(TARGETS[1])].set(STANDING)


def _reset(draws, s: Setting, params):
    h, w = s.size
    ball = jnp.stack([jnp.int32(2), draws.randint(2, w - 2)]).astype(jnp.int32)
    vel = jnp.stack([jnp.int32(1), jnp.where(draws.bernoulli(0.5), 1, -1)]).astype(jnp.int32)
    return new_state(s, field=_table(h, w), ball=ball, ball_vel=vel)


def _zone(ball, vel, h: int, w: int):
    """-> (the ball is where a flipper can launch it, the button that would: LEFT or RIGHT)."""
    over = (ball[1] <= FLIP) | (ball[1] >= w - 1 - FLIP)
    zone = over & ((ball[0] == h - 3) | ((ball[0] == h - 4) & (vel[0] >= 0)))
    return zone, jnp.where(ball[1] < w // 2, LEFT, RIGHT)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    ball, vel, rise = state.ball, state.ball_vel, state.phase
    nudge = (action == NUDGE) & (state.cooldown == 0)
    vel = vel.at[1].set(jnp.where(nudge, jnp.where(ball[1] < w // 2, -1, 1), vel[1]))
    zone, side = _zone(ball, vel, h, w)
    launch = zone & (action == side)
    inner = jnp.where(side == LEFT, jnp.where(ball[1] >= FLIP - 1, 1, 0), jnp.where(ball[1] <= w - FLIP, -1, 0))
    rolling = (ball[0] == h - 3) & ~launch
    over = (ball[1] <= FLIP) | (ball[1] >= w - 1 - FLIP)
    vel = jnp.where(launch, jnp.stack([-1, inner]),
                    jnp.where(rolling, jnp.where(over, jnp.stack([0, jnp.where(side == LEFT, 1, -1)]),
                                                 jnp.array([1, 0])), vel)).astype(jnp.int32)
    rise = jnp.where(launch, RISE, rise)
    kick = jnp.where(draws.bernoulli(0.5), 1, -1)
    ball, vel, rise, struck = pinball_move(ball, vel, rise, state.field >= 2, 1, w - 2, BUMP, kick)
    cell = state.field[jnp.clip(struck[0], 0, h - 1), jnp.clip(struck[1], 0, w - 1)]
    hit_target = (struck[0] >= 0) & (cell == STANDING)
    field = state.field.at[jnp.clip(struck[0], 0, h - 1), jnp.clip(struck[1], 0, w - 1)].set(
        jnp.where(hit_target, 0, cell).astype(jnp.int8))
    field = jnp.where((field == STANDING).any(), field, _table(h, w))
    scored = (struck[0] >= 0).astype(jnp.int32)
    nxt = state.replace(ball=ball, ball_vel=vel, phase=rise, field=field,
                        cooldown=jnp.where(nudge, TILT, jnp.maximum(state.cooldown - 1, 0)).astype(jnp.int32))
    event = jnp.where(hit_target, EV_TARGET, jnp.where(scored > 0, EV_BUMPER, 0))
    return nxt, Outcome(gained=scored, died=ball[0] > h - 3, event=event)


def _paint(state, s: Setting):
    h, w = s.size
    codes = state.field.astype(jnp.int32)
    cols = jnp.arange(w)
    flippers = (cols >= 1) & (cols <= FLIP) | (cols >= w - 1 - FLIP) & (cols <= w - 2)
    codes = codes.at[h - 3].set(jnp.where(flippers, 4, codes[h - 3]))
    return codes.at[state.ball[0], state.ball[1]].set(5)


def _scripted(key, state, params):
    """Press the flipper under the ball as soon as it can launch it; NUDGE when the ball, one row
    above the flippers and falling, would land in the drain."""
    h, w = state.field.shape
    ball, vel = state.ball, state.ball_vel
    zone, side = _zone(ball, vel, h, w)
    land = fold(ball[1], vel[1], jnp.int32(1), 1, w - 2)
    drain = (ball[0] == h - 4) & (vel[0] > 0) & (land > FLIP) & (land < w - 1 - FLIP) & (state.cooldown == 0)
    return jnp.where(zone, side, jnp.where(drain, NUDGE, 0)).astype(jnp.int32)


VIDEOPINBALL = Game(
    name="videopinball", pattern="A", unit="bumper or target hit", actions=ACTIONS,
    descriptions=("do nothing", "flip the left flipper", "flip the right flipper",
                  "nudge the table (the ball's sideways motion turns away from the drain)"),
    cells=EMPTY + WALL + BUMPER + TARGET + FLIPPER + BALL,
    glyphs={WALL: "wall", BUMPER: "a bumper (striking it scores)", TARGET: "a drop target (striking it scores)",
            FLIPPER: "a flipper", BALL: "ball"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=None, atari=Setting(size=(24, 12), max_steps=10000, target=100),
    draws=(2, 1), events=("The ball struck a bumper.", "The ball knocked down a drop target."),
    death="the ball drains", death_message="The ball drained. Game over.",
)
