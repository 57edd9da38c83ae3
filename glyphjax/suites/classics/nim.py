"""Nim against an optimal scripted AI (misère play, as in the reference).

Rules (catalogue §5 row 20): three piles, (3, 5, 7) for -easy and (5, 7, 9) for -hard. TAKE_p_c
removes c objects from pile p (only while pile p holds at least c; otherwise a no-op and the AI
does not move). You move first, then the AI, alternately. Misère play: whoever takes the LAST
object LOSES. (The class also supports normal play, last object wins, via `misere=False`; only
misère is registered.)

Scripted AI (optimal, deterministic given the step key): it moves to a position that is lost for
the player to move whenever one exists (misère: if some pile has >= 2 objects, XOR of the piles
= 0; if every pile has <= 1, an odd number of 1-piles; normal play: XOR = 0), choosing uniformly
among such moves; from a lost position it takes a uniformly random legal move.

Winnable start: 3^5^7 = 1 and 5^7^9 = 11 are non-zero, so both starts are wins for the first
mover: with perfect play you always win; one mistake lets the AI win (a test checks both by brute
force over the whole game tree).

Reward (pattern C, terminal): +1 when the AI takes the last object (you win), -1 when you do.
Return in [-1, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics.common import FLOOR, codepoints

OBJECT = "❚"
_TABLE = codepoints(FLOOR + OBJECT)
EV_START, EV_BAD, EV_AI, EV_WIN, EV_LOSS = 1, 2, 3, 4, 5


@struct.dataclass
class NimState(EnvState):
    piles: jax.Array  # int32[3]
    ai_move: jax.Array  # int32: action index of the AI's last move (-1 = none yet)


def lost_for_mover(piles: jax.Array, misere: bool) -> jax.Array:
    """True if the player to move loses with optimal play (a P-position)."""
    x = piles[..., 0] ^ piles[..., 1] ^ piles[..., 2]
    if not misere:
        return x == 0
    small = jnp.all(piles <= 1, axis=-1)
    ones = jnp.sum(piles == 1, axis=-1)
    return jnp.where(small, ones % 2 == 1, x == 0)


class Nim(Env):
    def __init__(self, task_id: str, piles: tuple[int, int, int], max_steps: int, misere: bool = True):
        self.initial = piles
        self.misere = misere
        pairs = [(p, c) for p in range(3) for c in range(1, piles[p] + 1)]
        self.act_pile = jnp.array([p for p, _ in pairs], jnp.int32)
        self.act_count = jnp.array([c for _, c in pairs], jnp.int32)
        self.width = max(piles)
        last = "LOSES" if misere else "WINS"
        self.card = TaskCard(
            id=task_id,
            rules=(f"Nim with three piles of {piles[0]}, {piles[1]} and {piles[2]} objects against an "
                   "optimal AI. Each row of the grid is a pile (row 0 = pile 0); ❚ is an object. "
                   "TAKE_p_c removes c objects from pile p (at least 1, at most what the pile "
                   "holds; an impossible take does nothing). You move first, then the AI, in turn. "
                   f"{'Misère' if misere else 'Normal'} play: whoever takes the last object {last}."),
            actions=tuple(f"TAKE_{p}_{c}" for p, c in pairs),
            action_descriptions=tuple(f"take {c} object{'s' if c > 1 else ''} from pile {p}"
                                      for p, c in pairs),
            glyphs={FLOOR: "empty floor", OBJECT: "an object in the pile"},
            hud="Step: {step} / {max_steps}    Piles: {p0}, {p1}, {p2}    AI's last move: {ai}",
            hud_fields=("p0", "p1", "p2", "ai"),
            hud_enums={"ai": ("none yet", *(f"took {c} from pile {p}" for p, c in pairs))},
            max_steps=max_steps,
            reward=(f"+1 if the AI takes the last object (you win), -1 if you do (you lose)."
                    if misere else "+1 if you take the last object, -1 if the AI does."),
            events=("", f"You move first. Whoever takes the last object {last}.",
                    "You cannot take that many from that pile. Nothing happens.",
                    "The AI has moved.", "You win!", "You lose."),
            success=(EV_WIN,),
        )

        # scripted baseline: the AI's optimal rule played from your side
        self.scripted_policy = lambda key, state, params: self.ai_move(key, state.piles)

    def _reset(self, key, params):
        return NimState(**{**init_state_fields(), "event": jnp.int32(EV_START)},
                        piles=jnp.array(self.initial, jnp.int32), ai_move=jnp.int32(-1))

    def ai_move(self, key: jax.Array, piles: jax.Array) -> jax.Array:
        """Action index the AI plays from `piles` (some legal move; piles must not be empty)."""
        legal = self.act_count <= piles[self.act_pile]
        after = piles[None, :] - jax.nn.one_hot(self.act_pile, 3, dtype=jnp.int32) * self.act_count[:, None]
        good = legal & lost_for_mover(after, self.misere)
        pick = jnp.where(jnp.any(good), good, legal)
        score = jnp.where(pick, jax.random.uniform(key, legal.shape), -1.0)
        return jnp.argmax(score).astype(jnp.int32)

    def _step(self, key, state: NimState, action, params):
        a = jnp.clip(action, 0, self.act_pile.shape[0] - 1)
        p, c = self.act_pile[a], self.act_count[a]
        valid = (action >= 0) & (c <= state.piles[p])
        piles = state.piles.at[p].add(jnp.where(valid, -c, 0))
        you_last = valid & (jnp.sum(piles) == 0)
        ai_turn = valid & ~you_last
        m = self.ai_move(key, piles)
        piles2 = piles.at[self.act_pile[m]].add(-self.act_count[m])
        piles = jnp.where(ai_turn, piles2, piles)
        ai_last = ai_turn & (jnp.sum(piles) == 0)
        sign = 1.0 if self.misere else -1.0
        reward = jnp.where(you_last, -sign, jnp.where(ai_last, sign, 0.0))
        won = reward > 0
        event = jnp.select([won, reward < 0, ai_turn, action >= 0], [EV_WIN, EV_LOSS, EV_AI, EV_BAD], 0)
        nxt = state.replace(piles=piles, ai_move=jnp.where(ai_turn, m, state.ai_move))
        return nxt, reward, you_last | ai_last, event

    def _render(self, state: NimState, params):
        codes = (jnp.arange(self.width)[None, :] < state.piles[:, None]).astype(jnp.int32)
        return _TABLE[codes], (state.piles[0], state.piles[1], state.piles[2], state.ai_move + 1)


NIM_VARIANTS = {"easy": ((3, 5, 7), 100), "hard": ((5, 7, 9), 150)}
for _name, (_piles, _steps) in NIM_VARIANTS.items():
    register(f"classics/nim-{_name}",
             lambda n=_name, p=_piles, t=_steps: Nim(f"classics/nim-{n}", p, t))
