"""Arrow: the grid shows an arrow; the right answer is the matching direction.

`dummy/arrow-1` is one turn, `dummy/arrow-4` four turns (a fresh random arrow each turn). Each
correct answer pays 1/K (K = turns), a wrong one 0, so the return is the fraction answered
correctly: chance 0.25, a solved policy 1.0. Small enough for a tiny model to learn on a CPU.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import MAX_RETURN, Env, EnvState, TaskCard, init_state_fields

ARROWS = "↑↓←→"
DOT = "·"
NAMES = ("UP", "DOWN", "LEFT", "RIGHT")
GLYPHS = {DOT: "empty cell", **{a: f"arrow pointing {n.lower()}" for a, n in zip(ARROWS, NAMES)}}
_TABLE = codepoints(ARROWS + DOT)
EVENTS = ("", "Correct.", "Wrong.")


@struct.dataclass
class ArrowState(EnvState):
    arrow: jax.Array  # int32 in 0..3
    correct: jax.Array  # int32 count


class Arrow(Env):
    def __init__(self, turns: int):
        self.turns = turns
        self.card = TaskCard(
            id=f"dummy/arrow-{turns}",
            rules=(f"A 3x3 grid shows one arrow in its centre. Answer with the direction the arrow "
                   f"points. The game lasts {turns} turn{'s' if turns > 1 else ''}; each turn shows a "
                   "new random arrow."),
            actions=NAMES,
            action_descriptions=tuple(f"answer that the arrow points {n.lower()}" for n in NAMES),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Correct: {correct}",
            hud_fields=("correct",),
            max_steps=turns,
            reward=f"+1/{turns} for each correct answer, 0 for a wrong one. Return range [0, 1].",
            events=EVENTS,
            success=MAX_RETURN,  # every arrow answered right
            return_range=(0.0, 1.0),
        )

    def _reset(self, key, params):
        return ArrowState(**init_state_fields(), arrow=jax.random.randint(key, (), 0, 4, jnp.int32),
                          correct=jnp.int32(0))

    def _step(self, key, state, action, params):
        right = action == state.arrow
        nxt = state.replace(arrow=jax.random.randint(key, (), 0, 4, jnp.int32),
                            correct=state.correct + right.astype(jnp.int32))
        last = state.t + 1 >= self.turns
        return nxt, jnp.where(right, 1.0 / self.turns, 0.0), last, jnp.where(right, 1, 2)

    def _render(self, state, params):
        codes = jnp.full((3, 3), 4, jnp.int32)
        codes = jnp.where(state.done, codes, codes.at[1, 1].set(state.arrow))
        return _TABLE[codes], (state.correct,)

    @staticmethod
    def scripted_policy(key, state, params):
        return state.arrow


for _k in (1, 4):
    register(f"dummy/arrow-{_k}", lambda k=_k: Arrow(k))
