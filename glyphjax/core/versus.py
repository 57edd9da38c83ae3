"""One multi-seat game plus opponent array policies -> a single-agent task (`versus`).

The agent plays `seat`; after each agent move the opponent policy `opponent(key, state, params)`
(over the multi-seat game's state) moves for as long as it is not the agent's turn and the game is
not over, at most `max_opponent_moves` times per step. The agent's reward is its seat's reward
summed over the moves of the step; its frame is the game's render for its seat, and its message
the game's message for its seat (`card.events` must list the game's messages in the game's order).

Games open with seat 0 to move; with the agent in a later seat the opponent moves first at reset.

Keys: the opponent's first move of a step draws from the step key itself (so a built-in AI that
used to draw from the step key plays the same), later ones from `fold_in(key, i)`; the game's own
moves take `fold_in(fold_in(key, 0), j)`. Moves the opponent makes before the agent's first turn
(agent in a later seat) use `fold_in(reset_key, 1)` as their step key.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.types import NOOP, Env, EnvState, TaskCard, init_state_fields

# An array policy over a game's state: (key, state, params) -> int32 action.
Policy = Callable[[jax.Array, EnvState, Any], jax.Array]


@struct.dataclass
class VersusState(EnvState):
    game: EnvState  # the multi-seat game's own state (its t counts every seat's moves)


def _select(pred: jax.Array, on_true: Any, on_false: Any) -> Any:
    return jax.tree.map(lambda a, b: jnp.where(pred, a, b), on_true, on_false)


class Versus(Env):
    """A multi-seat game seen from one seat, the other seats played by an array policy."""

    def __init__(self, game: Env, opponent: Policy, seat: int, card: TaskCard,
                 max_opponent_moves: int, no_action: Callable | None, scripted: Policy | None):
        self.game, self.opponent, self.seat = game, opponent, seat
        self.card, self.max_opponent_moves, self.no_action = card, max_opponent_moves, no_action
        if scripted is not None:
            self.scripted_policy = lambda key, state, params: scripted(key, state.game, params)

    def default_params(self) -> Any:
        return self.game.default_params()

    def _reset(self, key, params):
        g = self.game.reset(key, params)
        if self.seat != 0:  # games open with seat 0 to move
            g, _, _ = self._opponent_moves(jax.random.fold_in(key, 1), g, params)
        return VersusState(**{**init_state_fields(), "event": self.game._seat_event(g, self.seat)}, game=g)

    def _step(self, key, state: VersusState, action, params):
        g, seat = state.game, self.seat
        if self.no_action is not None:
            action = jnp.where(action < 0, self.no_action(g, params), action)
        mine = (self.game.to_play(g) == seat) & ~g.done
        moved, tr = self.game.step(jax.random.fold_in(jax.random.fold_in(key, 0), 0), g, action, params)
        g = _select(mine, moved, g)
        reward = jnp.where(mine, tr.reward[seat], 0.0)
        g, r_opp, ended = self._opponent_moves(key, g, params)
        terminated = (mine & tr.terminated) | ended
        return state.replace(game=g), reward + r_opp, terminated, self.game._seat_event(g, seat)

    def _opponent_moves(self, key, g, params):
        """The opponent moves while it is not the agent's turn -> (state, agent reward, ended)."""
        reward, ended = jnp.float32(0.0), jnp.zeros((), jnp.bool_)
        for i in range(self.max_opponent_moves):
            active = (self.game.to_play(g) != self.seat) & ~g.done
            a = self.opponent(key if i == 0 else jax.random.fold_in(key, i), g, params)
            moved, tr = self.game.step(jax.random.fold_in(jax.random.fold_in(key, 0), i + 1), g,
                                       jnp.asarray(a, jnp.int32), params)
            g = _select(active, moved, g)
            reward = reward + jnp.where(active, tr.reward[self.seat], 0.0)
            ended = ended | (active & tr.terminated)
        return g, reward, ended

    def _render(self, state: VersusState, params):
        return self.game._render(state.game, params, jnp.int32(self.seat))

    def _legal(self, state: VersusState, params):
        """The agent seat's legal moves (all True while the game waits on the opponent)."""
        g = state.game
        return self.game.legal(g, params) | (self.game.to_play(g) != self.seat)


def versus(game: Env, opponent: Policy, seat: int = 0, *, card: TaskCard | None = None,
           max_opponent_moves: int | None = None, no_action: Callable | None = None,
           scripted: Policy | None = None) -> Env:
    """The single-agent task of playing `seat` of `game` against `opponent`.

    card: the task's card (default: the game's card for one player, id `<game id>@seat<seat>`,
      max_steps as many agent turns as the game's budget allows). Its actions must be the game's.
    max_opponent_moves: opponent moves per step at most (default num_players - 1).
    no_action: `(state, params) -> action` the agent's NO_ACTION stands for (e.g. "keep going" in
      a real-time game); by default NO_ACTION reaches the game, which applies `card.illegal`.
    scripted: an array policy over the game's state for the agent's seat (the task's baseline).
    """
    p = game.card.num_players
    if p < 2:
        raise ValueError(f"versus needs a multi-seat game; {game.card.id} has num_players={p}")
    if not 0 <= seat < p:
        raise ValueError(f"versus: seat {seat} is not a seat of {game.card.id}; use 0..{p - 1}")
    k = p - 1 if max_opponent_moves is None else int(max_opponent_moves)
    if k < 1:
        raise ValueError(f"versus: max_opponent_moves must be >= 1, got {max_opponent_moves}")
    if card is None:
        card = dataclasses.replace(game.card, id=f"{game.card.id}@seat{seat}", num_players=1,
                                   zero_sum=False, illegal=NOOP,
                                   max_steps=(game.card.max_steps - (k if seat else 0)) // (1 + k))
    if card.num_players != 1 or tuple(card.actions) != tuple(game.card.actions):
        raise ValueError(f"versus: card {card.id} must be single-player with the actions of "
                         f"{game.card.id} ({', '.join(game.card.actions)})")
    need = card.max_steps * (1 + k) + (k if seat else 0)
    if game.card.max_steps < need:
        raise ValueError(f"versus: {card.id} lasts {card.max_steps} turns of up to {1 + k} moves, "
                         f"but {game.card.id} allows only {game.card.max_steps} moves; build the "
                         f"game with max_steps >= {need}")
    return Versus(game, opponent, seat, card, k, no_action, scripted)
