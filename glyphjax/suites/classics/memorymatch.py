"""Memory Match (concentration): find all pairs of face-down cards.

Rules (catalogue §5 row 17): 4x4 (8 pairs, T 50) or 6x6 (18 pairs, T 120) cards dealt face down in
a uniformly random order. An attempt is two flips (FLIP_i, i = row * width + col). If the two
cards show the same symbol they stay up as a matched pair; otherwise both stay visible until your
next flip, which first turns them face down again. Flipping a matched card or the card already
face up in the current attempt is a no-op. Finding every pair wins (terminates).

Rendering choice: matched cards are drawn as ✓ (out of play: their symbol no longer matters);
face-up unmatched cards show their symbol (lower-case Greek letters α, β, ...).

Reward (pattern A): +1/pairs per pair found; return in [0, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.core.sampling import random_cell

FACE_DOWN, MATCHED = "▧", "✓"
SYMBOLS = "αβγδεζηθικλμνξπρστ"  # 18 card faces
EV_FIRST, EV_MATCH, EV_MISS, EV_INVALID, EV_WIN = 1, 2, 3, 4, 5
EVENTS = ("", "You flipped the first card of this attempt.", "A match! The pair stays up.",
          "No match. Both cards turn face down at your next flip.",
          "That card is already face up or matched. Nothing happens.",
          "All pairs found. You win!")


@struct.dataclass
class MemoryMatchState(EnvState):
    cards: jax.Array  # int32[N]: symbol of each card (each symbol on exactly two cards)
    matched: jax.Array  # bool[N]
    first: jax.Array  # int32: card flipped first in the current attempt (-1 = none)
    shown: jax.Array  # int32[2]: the two cards of the last failed attempt, still visible (-1 = none)
    attempts: jax.Array  # int32: completed attempts


class MemoryMatch(Env):
    def __init__(self, task_id: str, side: int, max_steps: int):
        self.side = side
        self.n = side * side
        self.pairs = self.n // 2
        faces = SYMBOLS[: self.pairs]
        self.table = codepoints(faces + FACE_DOWN + MATCHED)
        self.card = TaskCard(
            id=task_id,
            rules=(f"Memory (concentration) on a {side}x{side} grid: {self.pairs} pairs of cards lie "
                   "face down (▧) in random order. FLIP_i turns card i = row * "
                   f"{side} + column face up. Two flips make one attempt: if both cards show the "
                   "same symbol they stay up as a found pair (drawn ✓); if not, both stay visible "
                   "until your next flip, which turns them face down again first. Flipping a found "
                   "card or the card already face up in this attempt does nothing. Find every pair "
                   "to win; remember what you have seen."),
            actions=tuple(f"FLIP_{i}" for i in range(self.n)),
            action_descriptions=tuple(f"flip the card at row {i // side}, column {i % side}"
                                      for i in range(self.n)),
            glyphs={FACE_DOWN: "face-down card", MATCHED: "found pair (out of play)",
                    **{g: f"face-up card with symbol {g}" for g in faces}},
            hud="Step: {step} / {max_steps}    Pairs found: {found} / " + str(self.pairs)
                + "    Attempts: {attempts}",
            hud_fields=("found", "attempts"),
            max_steps=max_steps,
            reward=(f"+1/{self.pairs} for each pair found (all pairs give 1.0 and end the "
                    "episode). Failed attempts cost nothing. Return range [0, 1]."),
            events=EVENTS,
            success=(EV_WIN,),
            return_range=(0.0, 1.0),
            grid_labels=True,
        )

    def _reset(self, key, params):
        cards = jax.random.permutation(key, jnp.arange(self.n, dtype=jnp.int32) // 2)
        return MemoryMatchState(**init_state_fields(), cards=cards,
                                matched=jnp.zeros(self.n, jnp.bool_), first=jnp.int32(-1),
                                shown=jnp.full((2,), -1, jnp.int32), attempts=jnp.int32(0))

    def _step(self, key, state: MemoryMatchState, action, params):
        i = jnp.clip(action, 0, self.n - 1)
        valid = (action >= 0) & ~state.matched[i] & (i != state.first)
        second = valid & (state.first >= 0)
        j = jnp.maximum(state.first, 0)
        match = second & (state.cards[i] == state.cards[j])
        matched = state.matched.at[i].set(state.matched[i] | match).at[j].set(state.matched[j] | match)
        first = jnp.where(valid, jnp.where(second, -1, i), state.first)
        failed = second & ~match
        shown = jnp.where(valid, jnp.where(failed, jnp.stack([j, i]), -1), state.shown)
        won = jnp.all(matched)
        event = jnp.select([match & won, match, failed, valid, action >= 0],
                           [EV_WIN, EV_MATCH, EV_MISS, EV_FIRST, EV_INVALID], 0)
        nxt = state.replace(matched=matched, first=first, shown=shown.astype(jnp.int32),
                            attempts=state.attempts + second.astype(jnp.int32))
        return nxt, jnp.where(match, 1.0 / self.pairs, 0.0), won, event

    def _render(self, state: MemoryMatchState, params):
        idx = jnp.arange(self.n)
        up = (idx == state.first) | (idx == state.shown[0]) | (idx == state.shown[1])
        codes = jnp.where(state.matched, self.pairs + 1, jnp.where(up, state.cards, self.pairs))
        return self.table[codes].reshape(self.side, self.side), (jnp.sum(state.matched) // 2,
                                                                 state.attempts)

    @staticmethod
    def scripted_policy(key, state: MemoryMatchState, params):
        """Random valid flip (a memoryless baseline): any unmatched card not already face up."""
        idx = jnp.arange(state.cards.shape[0])
        ok = ~state.matched & (idx != state.first)
        return random_cell(jax.random.uniform(key), ok)[0]


MEMORYMATCH_VARIANTS = {"easy": (4, 50), "hard": (6, 120)}
for _name, (_side, _steps) in MEMORYMATCH_VARIANTS.items():
    register(f"classics/memorymatch-{_name}",
             lambda n=_name, s=_side, t=_steps: MemoryMatch(f"classics/memorymatch-{n}", s, t))
