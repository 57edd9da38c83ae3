"""Flappy: flap through gaps in pipes that scroll towards you.

Catalogue parameters (§5 row 7): 20x10 view, a pipe every 6 columns with a 3-row gap; hitting a
pipe or the ground ends the episode. The flight is our redesign, not the GlyphBench reference's:
here FLAP moves the bird one row up and otherwise it falls one row (no momentum); in the
reference FLAP sets the vertical speed to -2 and falls accelerate (gravity). The bird stays in column 4 and the pipes move one column left per turn (the world
scrolls; the grid is the whole screen). The top row is a ceiling: flapping there keeps the bird in
row 0. Reward (pattern A): +1/50 per pipe passed; the 50th pipe wins and ends the episode, so the
return is in [0, 1] by construction; death pays 0.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._arcade import GLYPHS_GROUND, GROUND
from glyphjax.suites.classics.common import EMPTY_SPACE, GLYPHS_ARCADE, PLAYER

W, H = 20, 10
GROUND_ROW = H - 1
BIRD_COL = 4
N_PIPES, SPACING, GAP = 4, 6, 3
FIRST_PIPE = 10
TARGET = 50
PIPE = "║"
GLYPHS = {**GLYPHS_ARCADE, **GLYPHS_GROUND,
          PIPE: "pipe"}
EV_PASS, EV_CRASH_PIPE, EV_CRASH_GROUND, EV_WIN = 1, 2, 3, 4
EVENTS = ("", "You flew through a pipe gap.", "You hit a pipe. Game over.",
          "You hit the ground. Game over.", f"You passed {TARGET} pipes. You win!")
_TABLE = codepoints(EMPTY_SPACE + GROUND + PIPE + PLAYER)  # codes 0..3


@struct.dataclass
class FlappyState(EnvState):
    bird_row: jax.Array  # int32
    pipe_x: jax.Array  # int32[N_PIPES], screen column (may be off-screen right)
    gap_top: jax.Array  # int32[N_PIPES], first row of the 3-row gap
    passed: jax.Array  # int32


def _gap_rows(key, n):
    return jax.random.randint(key, (n,), 1, GROUND_ROW - GAP, dtype=jnp.int32)


class Flappy(Env):
    def __init__(self, task_id: str = "classics/flappy", max_steps: int = 500):
        self.card = TaskCard(
            id=task_id,
            rules=(f"Flappy bird on a {W}x{H} screen. You (@) are the bird in column {BIRD_COL}. Each "
                   "turn FLAP moves you one row up and NOOP lets you fall one row (row 0 is the "
                   f"ceiling). Pipes scroll one column left per turn, one every {SPACING} columns; "
                   f"each has a {GAP}-row gap. Touching a pipe or the ground (bottom row) ends the "
                   f"game. Passing {TARGET} pipes wins."),
            actions=("FLAP", "NOOP"),
            action_descriptions=("flap: move one row up this turn", "do nothing: fall one row"),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Pipes passed: {passed} / " + str(TARGET),
            hud_fields=("passed",),
            max_steps=max_steps,
            reward=(f"+1/{TARGET} for each pipe passed ({TARGET} pipes = 1.0, a win that ends the "
                    "game). Crashing ends the episode with no penalty. Return range [0, 1]."),
            events=EVENTS,
            success=(EV_WIN,),
            return_range=(0.0, 1.0),
        )

    def _reset(self, key, params):
        return FlappyState(**init_state_fields(), bird_row=jnp.int32(H // 2 - 1),
                           pipe_x=FIRST_PIPE + SPACING * jnp.arange(N_PIPES, dtype=jnp.int32),
                           gap_top=_gap_rows(key, N_PIPES), passed=jnp.int32(0))

    def _step(self, key, state: FlappyState, action, params):
        flap = action == 0
        row = jnp.maximum(jnp.where(flap, state.bird_row - 1, state.bird_row + 1), 0)
        x = state.pipe_x - 1
        recycle = x < 0
        x = jnp.where(recycle, x + N_PIPES * SPACING, x)
        gap = jnp.where(recycle, _gap_rows(key, N_PIPES), state.gap_top)
        at_bird = x == BIRD_COL
        in_gap = (row >= gap) & (row < gap + GAP)
        hit_pipe = jnp.any(at_bird & ~in_gap)
        hit_ground = row >= GROUND_ROW
        dead = hit_pipe | hit_ground
        cleared = jnp.sum((x == BIRD_COL - 1).astype(jnp.int32)) * (~dead)
        passed = state.passed + cleared
        won = passed >= TARGET
        reward = cleared.astype(jnp.float32) / TARGET
        event = jnp.select([hit_pipe, hit_ground, won, cleared > 0],
                           [EV_CRASH_PIPE, EV_CRASH_GROUND, EV_WIN, EV_PASS], 0)
        nxt = state.replace(bird_row=jnp.minimum(row, GROUND_ROW), pipe_x=x, gap_top=gap,
                            passed=passed)
        return nxt, reward, dead | won, event

    def _render(self, state: FlappyState, params):
        rows = jnp.arange(H)[:, None]
        cols = jnp.arange(W)[None, :]
        codes = jnp.where(rows == GROUND_ROW, 1, 0)
        for i in range(N_PIPES):
            pipe = (cols == state.pipe_x[i]) & (rows < GROUND_ROW) & \
                   ((rows < state.gap_top[i]) | (rows >= state.gap_top[i] + GAP))
            codes = jnp.where(pipe, 2, codes)
        codes = codes.at[state.bird_row, BIRD_COL].set(3)
        return _TABLE[codes], (state.passed,)

    @staticmethod
    def scripted_policy(key, state: FlappyState, params):
        """Aim for the middle of the gap of the next pipe not yet passed: flap when below it."""
        ahead = jnp.where(state.pipe_x >= BIRD_COL, state.pipe_x, 1000)
        nxt = jnp.argmin(ahead)
        target = state.gap_top[nxt] + 1
        return jnp.where(state.bird_row > target - 1, 0, 1).astype(jnp.int32)


register("classics/flappy", lambda: Flappy())
