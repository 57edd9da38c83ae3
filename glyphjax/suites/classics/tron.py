"""Tron light cycles against a scripted AI on a 15x15 board (outer ring is wall, 13x13 arena).

Rules (catalogue §5 row 30): you start at row 7, column 3 heading RIGHT; the AI at row 7, column 11
heading LEFT. Every turn both cycles move one cell at the same time, leaving a trail that stays
for the whole game. UP/DOWN/LEFT/RIGHT set your heading; reversing onto your own trail is
ignored (heading kept), as is no action. A cycle crashes when it moves into a wall or any trail
(including either cycle's current cell: two cycles swapping places both crash), and both crash
when they move into the same cell (head-on).

Scripted AI (deterministic given the step key): among its three non-reversing moves it prefers
safe ones (not into a wall or trail), then one your cycle could not also enter next turn, then the
one with the most free cells within REACH = 4 moves of the cell it moves into (a 4-round flood
fill through free cells, at most 41 cells; the move's own cell counts); ties broken by the key.

Reward (pattern C, terminal): +1 if only the AI crashes, -1 if only you crash, 0 if both crash
in the same turn or time runs out. One terminal reward -> return in [-1, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._boards import flood
from glyphjax.suites.classics.common import (DIR_DELTAS, DIR_NAMES, FLOOR, GLYPHS_COMMON, OPPOSITE,
                                             WALL, codepoints)

SIZE = 15
REACH = 4  # the AI scores a move by the free cells within REACH moves of its next cell
_WINDOW = 2 * REACH + 3
YOU_HEAD, AI_HEAD, YOU_TRAIL, AI_TRAIL = "☺", "☻", "▞", "▚"
GLYPHS = {**GLYPHS_COMMON, YOU_HEAD: "your light cycle", AI_HEAD: "the AI's light cycle",
          YOU_TRAIL: "your trail", AI_TRAIL: "the AI's trail"}
_TABLE = codepoints(FLOOR + WALL + YOU_TRAIL + AI_TRAIL + YOU_HEAD + AI_HEAD)
EV_WIN, EV_LOSS, EV_DRAW = 1, 2, 3
EVENTS = ("", "The AI crashed. You win!", "You crashed. You lose.", "Both cycles crashed. Draw.")


@struct.dataclass
class TronState(EnvState):
    trail: jax.Array  # int32[15, 15]: 0 free, 1 your trail, 2 the AI's trail (heads included)
    you: jax.Array  # int32[2]
    you_dir: jax.Array  # int32 0..3 (UP, DOWN, LEFT, RIGHT)
    ai: jax.Array  # int32[2]
    ai_dir: jax.Array  # int32


def walls() -> jax.Array:
    idx = jnp.arange(SIZE)
    edge = (idx == 0) | (idx == SIZE - 1)
    return edge[:, None] | edge[None, :]


def blocked(trail: jax.Array, cell: jax.Array) -> jax.Array:
    r, c = cell[..., 0], cell[..., 1]
    inside = (r > 0) & (r < SIZE - 1) & (c > 0) & (c < SIZE - 1)
    return ~inside | (trail[jnp.clip(r, 0, SIZE - 1), jnp.clip(c, 0, SIZE - 1)] != 0)


def choose_heading(key, trail, me, me_dir, other, other_dir) -> jax.Array:
    """The scripted rule: safe first, then most reachable space, avoiding the other's next cells."""
    dirs = jnp.arange(4)
    nxt = me[None, :] + DIR_DELTAS  # [4, 2]
    safe = ~blocked(trail, nxt) & (dirs != OPPOSITE[me_dir])
    other_next = other[None, :] + DIR_DELTAS[jnp.array([0, 1, 2, 3])]
    contested = jnp.any(jnp.all(nxt[:, None, :] == other_next[None, :, :], axis=-1)
                        & (jnp.arange(4) != OPPOSITE[other_dir])[None, :], axis=1)
    # free cells within REACH moves of each next cell, in a window centred on the head (a flood of
    # REACH rounds from a neighbour of the head stays within REACH + 1 of it)
    free = jnp.pad((trail == 0) & ~walls(), REACH + 1)
    window = jax.lax.dynamic_slice(free, (me[0], me[1]), (_WINDOW, _WINDOW))
    seeds = jnp.zeros((4, _WINDOW, _WINDOW), jnp.bool_).at[
        jnp.arange(4), REACH + 1 + DIR_DELTAS[:, 0], REACH + 1 + DIR_DELTAS[:, 1]].set(True)  # constant
    areas = jax.vmap(lambda seed: jnp.sum(flood(seed, window | seed, REACH)))(seeds).astype(jnp.float32)
    score = jnp.where(safe, 1000.0 + areas - 50.0 * contested, 0.0) + jax.random.uniform(key, (4,))
    score = jnp.where(dirs == OPPOSITE[me_dir], -1.0, score)
    return jnp.argmax(score).astype(jnp.int32)


class Tron(Env):
    def __init__(self, task_id: str = "classics/tron", max_steps: int = 200):
        self.card = TaskCard(
            id=task_id,
            rules=("Tron light cycles on a 15x15 board whose outer ring is wall (13x13 arena), against "
                   "a scripted AI. You (☺) start on the left heading right, the AI (☻) on the right "
                   "heading left. Every turn both cycles move one cell at the same time and leave a "
                   "trail that never disappears. UP/DOWN/LEFT/RIGHT set your heading; turning straight "
                   "back is ignored. A cycle that moves into a wall or any trail crashes; moving into "
                   "the same cell as the other cycle crashes both. The AI's fixed rule: it never turns "
                   "back, avoids walls and trails when it can, then cells your cycle could also enter "
                   "next turn, then takes the move with the most free cells within 4 moves of where it "
                   "lands (ties at random). Survive longer than the AI."),
            actions=DIR_NAMES,
            action_descriptions=tuple(f"turn your cycle to move {d.lower()}" for d in DIR_NAMES),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Your heading: {you_dir}    AI heading: {ai_dir}",
            hud_fields=("you_dir", "ai_dir"),
            hud_enums={"you_dir": DIR_NAMES, "ai_dir": DIR_NAMES},
            max_steps=max_steps,
            reward=("+1 if the AI crashes and you do not, -1 if you crash and the AI does not, 0 if "
                    "both crash in the same turn or time runs out."),
            events=EVENTS,
            success=(EV_WIN,),
        )

    def _reset(self, key, params):
        you = jnp.array([SIZE // 2, 3], jnp.int32)
        ai = jnp.array([SIZE // 2, SIZE - 4], jnp.int32)
        trail = jnp.zeros((SIZE, SIZE), jnp.int32).at[you[0], you[1]].set(1).at[ai[0], ai[1]].set(2)
        return TronState(**init_state_fields(), trail=trail, you=you, you_dir=jnp.int32(3), ai=ai,
                         ai_dir=jnp.int32(2))

    def _step(self, key, state: TronState, action, params):
        turn = (action >= 0) & (action != OPPOSITE[state.you_dir])
        you_dir = jnp.where(turn, jnp.clip(action, 0, 3), state.you_dir)
        ai_dir = choose_heading(key, state.trail, state.ai, state.ai_dir, state.you, state.you_dir)
        you_next = state.you + DIR_DELTAS[you_dir]
        ai_next = state.ai + DIR_DELTAS[ai_dir]
        head_on = jnp.all(you_next == ai_next)
        you_crash = blocked(state.trail, you_next) | head_on
        ai_crash = blocked(state.trail, ai_next) | head_on
        trail = state.trail
        trail = jnp.where(you_crash, trail, trail.at[you_next[0], you_next[1]].set(1))
        trail = jnp.where(ai_crash, trail, trail.at[ai_next[0], ai_next[1]].set(2))
        reward = jnp.where(ai_crash & ~you_crash, 1.0, jnp.where(you_crash & ~ai_crash, -1.0, 0.0))
        event = jnp.select([ai_crash & ~you_crash, you_crash & ~ai_crash, you_crash & ai_crash],
                           [EV_WIN, EV_LOSS, EV_DRAW], 0)
        nxt = state.replace(trail=trail, you=jnp.where(you_crash, state.you, you_next),
                            you_dir=you_dir, ai=jnp.where(ai_crash, state.ai, ai_next), ai_dir=ai_dir)
        return nxt, reward, you_crash | ai_crash, event

    def _render(self, state: TronState, params):
        codes = jnp.where(walls(), 1, jnp.where(state.trail == 1, 2, jnp.where(state.trail == 2, 3, 0)))
        codes = codes.at[state.you[0], state.you[1]].set(4).at[state.ai[0], state.ai[1]].set(5)
        return _TABLE[codes], (state.you_dir, state.ai_dir)

    @staticmethod
    def scripted_policy(key, state: TronState, params):
        """The AI's own rule, played from your side."""
        return choose_heading(key, state.trail, state.you, state.you_dir, state.ai, state.ai_dir)


register("classics/tron", lambda: Tron())
