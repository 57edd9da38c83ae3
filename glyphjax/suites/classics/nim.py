"""Nim with three piles: a two-seat game and the Classics tasks against an optimal scripted AI
(misère play, as in the reference), built as `versus` of the two.

Rules (catalogue §5 row 20): three piles, (3, 5, 7) for -easy and (5, 7, 9) for -hard. Seats
alternate, seat 0 first. TAKE_p_c removes c objects from pile p (legal only while pile p holds at
least c). Misère play: whoever takes the LAST object LOSES. (Normal play, last object wins, via
`misere=False`; only misère is registered.)

Two-seat game (`classics/nim-easy-2p`, `classics/nim-hard-2p`, zero-sum): an impossible take (or
no readable move) forfeits: the mover -1, the other seat +1. Reward (terminal): -1 to the seat
that takes the last object, +1 to the other (misère). Both seats see the same piles.

Scripted AI (`NimGame.ai_policy`, optimal, deterministic given its key) for the seat to move: it
moves to a position that is lost for the player to move whenever one exists (misère: if some pile
has >= 2 objects, XOR of the piles = 0; if every pile has <= 1, an odd number of 1-piles; normal
play: XOR = 0), choosing uniformly among such moves; from a lost position it takes a uniformly
random legal move.

Classics tasks (`classics/nim-easy`, `classics/nim-hard`): you are seat 0 against the AI, drawn
from the step key; an impossible take is a no-op and the AI does not move. Winnable start:
3^5^7 = 1 and 5^7^9 = 11 are non-zero, so both starts are wins for the first mover: with perfect
play you always win; one mistake lets the AI win (a test checks both by brute force over the whole
game tree). Reward (pattern C, terminal): +1 when the AI takes the last object (you win), -1 when
you do. Return in [-1, 1] by construction.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import FORFEIT, NOOP, Env, EnvState, TaskCard, init_state_fields
from glyphjax.core.versus import versus
from glyphjax.suites.classics.common import FLOOR

OBJECT = "❚"
_TABLE = codepoints(FLOOR + OBJECT)
EV_START, EV_BAD, EV_AI, EV_WIN, EV_LOSS = 1, 2, 3, 4, 5
EV_START_2, EV_OTHER_BAD, EV_MOVED, EV_NO_MOVE, EV_OTHER_NO_MOVE = 6, 7, 8, 9, 10
# Events are stored as seat 0 reads them; seat 1 reads SWAP[event].
SWAP = jnp.array([0, EV_START_2, EV_OTHER_BAD, EV_MOVED, EV_LOSS, EV_WIN, EV_START, EV_BAD, EV_AI,
                  EV_OTHER_NO_MOVE, EV_NO_MOVE], jnp.int32)


@struct.dataclass
class NimState(EnvState):
    piles: jax.Array  # int32[3]
    mover: jax.Array  # int32: the seat to move
    last_move: jax.Array  # int32[2]: action index of each seat's last move (-1 = none yet)


def lost_for_mover(piles: jax.Array, misere: bool) -> jax.Array:
    """True if the player to move loses with optimal play (a P-position)."""
    x = piles[..., 0] ^ piles[..., 1] ^ piles[..., 2]
    if not misere:
        return x == 0
    small = jnp.all(piles <= 1, axis=-1)
    ones = jnp.sum(piles == 1, axis=-1)
    return jnp.where(small, ones % 2 == 1, x == 0)


def _events(other: str, last: str, illegal: str) -> tuple[str, ...]:
    """Messages in the order of the EV_ constants; `other` names the other seat."""
    other_cap = other[0].upper() + other[1:]
    bad = "You cannot take that many from that pile. " + (
        "An illegal move forfeits the game: you lose." if illegal == FORFEIT else "Nothing happens.")
    other_bad = f"{other_cap} tried an impossible take" + (
        " and forfeits. You win!" if illegal == FORFEIT else "; nothing happens.")
    return ("", f"You move first. Whoever takes the last object {last}.", bad,
            f"{other_cap} has moved.", "You win!", "You lose.",
            f"{other_cap} moves first. Whoever takes the last object {last}.", other_bad,
            f"You have moved; {other} moves next.",
            "You made no move: that forfeits the game. You lose.",
            f"{other_cap} made no move and forfeits. You win!")


class NimGame(Env):
    """Two-seat Nim over three piles. `other` names the other seat in the seat-relative texts."""

    def __init__(self, task_id: str, piles: tuple[int, int, int], max_steps: int, misere: bool = True,
                 illegal: str = FORFEIT, other: str = "the opponent"):
        self.initial, self.misere = piles, misere
        pairs = [(p, c) for p in range(3) for c in range(1, piles[p] + 1)]
        self.act_pile = jnp.array([p for p, _ in pairs], jnp.int32)
        self.act_count = jnp.array([c for _, c in pairs], jnp.int32)
        self.width = max(piles)
        last = "LOSES" if misere else "WINS"
        other_cap = other[0].upper() + other[1:]
        self.card = TaskCard(
            id=task_id,
            rules=(f"Nim for two players with three piles of {piles[0]}, {piles[1]} and {piles[2]} "
                   "objects. Each row of the grid is a pile (row 0 = pile 0); ❚ is an object. "
                   "TAKE_p_c removes c objects from pile p (at least 1, at most what the pile "
                   f"holds). You and {other} move in turn. An impossible take, or no move, "
                   + ("forfeits the game (you lose). " if illegal == FORFEIT else "does nothing. ")
                   + f"{'Misère' if misere else 'Normal'} play: whoever takes the last object {last}."),
            actions=tuple(f"TAKE_{p}_{c}" for p, c in pairs),
            action_descriptions=tuple(f"take {c} object{'s' if c > 1 else ''} from pile {p}"
                                      for p, c in pairs),
            glyphs={FLOOR: "empty floor", OBJECT: "an object in the pile"},
            hud="Step: {step} / {max_steps}    Piles: {p0}, {p1}, {p2}    " + other_cap + "'s last move: {other}",
            hud_fields=("p0", "p1", "p2", "other"),
            hud_enums={"other": ("none yet", *(f"took {c} from pile {p}" for p, c in pairs))},
            max_steps=max_steps,
            reward=(f"+1 if {other} takes the last object (you win), -1 if you do (you lose)"
                    if misere else f"+1 if you take the last object, -1 if {other} does")
                   + ("; an illegal move: -1 to its player, +1 to the other." if illegal == FORFEIT else "."),
            events=_events(other, last, illegal), num_players=2, illegal=illegal, zero_sum=True,
            success=(EV_WIN,) + ((EV_OTHER_BAD, EV_OTHER_NO_MOVE) if illegal == FORFEIT else ()),  # seat 0 won
        )
        self.scripted_policy = self.ai_policy

    def _reset(self, key, params):
        return NimState(**{**init_state_fields(), "event": jnp.int32(EV_START)},
                        piles=jnp.array(self.initial, jnp.int32), mover=jnp.int32(0),
                        last_move=jnp.full((2,), -1, jnp.int32))

    def _to_play(self, state):
        return state.mover

    def _legal(self, state, params):
        return self.act_count <= state.piles[self.act_pile]

    def ai_move(self, key: jax.Array, piles: jax.Array) -> jax.Array:
        """Action index the AI plays from `piles` (some legal move; piles must not be empty)."""
        legal = self.act_count <= piles[self.act_pile]
        after = piles[None, :] - jax.nn.one_hot(self.act_pile, 3, dtype=jnp.int32) * self.act_count[:, None]
        good = legal & lost_for_mover(after, self.misere)
        pick = jnp.where(jnp.any(good), good, legal)
        score = jnp.where(pick, jax.random.uniform(key, legal.shape), -1.0)
        return jnp.argmax(score).astype(jnp.int32)

    def ai_policy(self, key: jax.Array, state: NimState, params=None) -> jax.Array:
        """The optimal AI playing the seat to move."""
        return self.ai_move(key, state.piles)

    def _step(self, key, state: NimState, action, params):
        a = jnp.clip(action, 0, self.act_pile.shape[0] - 1)
        p, c = self.act_pile[a], self.act_count[a]
        piles = state.piles.at[p].add(-c)
        last = jnp.sum(piles) == 0
        taker = jnp.where(jnp.arange(2) == state.mover, 1.0, -1.0)  # +1 for the mover
        reward = jnp.where(last, -taker if self.misere else taker, 0.0)
        no_move = EV_NO_MOVE if self.card.illegal == FORFEIT else 0
        seen = jnp.select([action < 0, c > state.piles[p], last],
                          [no_move, EV_BAD, EV_LOSS if self.misere else EV_WIN], EV_MOVED)
        event = jnp.where(state.mover == 0, seen, SWAP[seen])
        nxt = state.replace(piles=piles, mover=1 - state.mover, last_move=state.last_move.at[state.mover].set(a))
        return nxt, reward, last, event

    def _seat_event(self, state, seat):
        return jnp.where(seat == 0, state.event, SWAP[state.event])

    def _render(self, state: NimState, params, seat):
        codes = (jnp.arange(self.width)[None, :] < state.piles[:, None]).astype(jnp.int32)
        return _TABLE[codes], (state.piles[0], state.piles[1], state.piles[2], state.last_move[1 - seat] + 1)


def classic_card(task_id: str, piles: tuple[int, int, int], max_steps: int, misere: bool = True) -> TaskCard:
    """The card of the Classics task (you against the optimal AI)."""
    game_card = NimGame(task_id, piles, max_steps, misere, NOOP, "the AI").card
    last = "LOSES" if misere else "WINS"
    return dataclasses.replace(
        game_card, num_players=1, zero_sum=False, events=game_card.events[:EV_LOSS + 1],
        rules=(f"Nim with three piles of {piles[0]}, {piles[1]} and {piles[2]} objects against an "
               "optimal AI. Each row of the grid is a pile (row 0 = pile 0); ❚ is an object. "
               "TAKE_p_c removes c objects from pile p (at least 1, at most what the pile "
               "holds; an impossible take does nothing). You move first, then the AI, in turn. "
               f"{'Misère' if misere else 'Normal'} play: whoever takes the last object {last}."),
        hud="Step: {step} / {max_steps}    Piles: {p0}, {p1}, {p2}    AI's last move: {ai}",
        hud_fields=("p0", "p1", "p2", "ai"), hud_enums={"ai": game_card.hud_enums["other"]},
        reward=(f"+1 if the AI takes the last object (you win), -1 if you do (you lose)."
                if misere else "+1 if you take the last object, -1 if the AI does."))


def nim_vs_ai(task_id: str, piles: tuple[int, int, int], max_steps: int, misere: bool = True) -> Env:
    """You (seat 0) against the optimal AI; an impossible take is a no-op."""
    game = NimGame(f"{task_id}:game", piles, 2 * max_steps, misere, NOOP, "the AI")
    return versus(game, game.ai_policy, 0, card=classic_card(task_id, piles, max_steps, misere),
                  scripted=game.ai_policy)


NIM_VARIANTS = {"easy": ((3, 5, 7), 100), "hard": ((5, 7, 9), 150)}
for _name, (_piles, _steps) in NIM_VARIANTS.items():
    register(f"classics/nim-{_name}",
             lambda n=_name, p=_piles, t=_steps: nim_vs_ai(f"classics/nim-{n}", p, t))
    register(f"classics/nim-{_name}-2p",
             lambda n=_name, p=_piles, t=_steps: NimGame(f"classics/nim-{n}-2p", p, 2 * t))
