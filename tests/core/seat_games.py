"""Tiny two-seat games for the contract tests (not registered): a race to 5 with a secret digit
per seat, and a leaky copy of it that shows the opponent's secret (the hidden-information check
must catch it)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.types import NOOP, Env, EnvState, TaskCard, init_state_fields

GOAL = 5
DIGITS = "0123456789"


@struct.dataclass
class RaceState(EnvState):
    total: jax.Array  # int32: the shared counter
    mover: jax.Array  # int32: seat to move
    secret: jax.Array  # int32[2]: each seat's private digit (never affects the rules)


class SecretRace(Env):
    """Seats alternately add 1 or 2 to a counter; whoever reaches 5 wins (+1, the other -1).
    ADD_3 exists but is never legal. Each seat sees its own secret digit in cell (0, 1)."""

    leaky = False

    def __init__(self, illegal: str = NOOP, max_steps: int = 20):
        self.card = TaskCard(
            id="test/secret-race", rules="Add 1 or 2 in turn; reaching 5 wins.",
            actions=("ADD_1", "ADD_2", "ADD_3"), action_descriptions=("add 1", "add 2", "never legal"),
            glyphs={d: f"digit {d}" for d in DIGITS}, hud="Step: {step}", hud_fields=(),
            max_steps=max_steps, reward="+1 for reaching 5, -1 for the other seat.",
            events=("", "moved", "illegal"), num_players=2, illegal=illegal, zero_sum=True)

    def _reset(self, key, params):
        return RaceState(**init_state_fields(), total=jnp.int32(0), mover=jnp.int32(0),
                         secret=jax.random.randint(key, (2,), 0, 10, dtype=jnp.int32))

    def _to_play(self, state):
        return state.mover

    def _legal(self, state, params):
        return jnp.array([True, True, False])

    def _step(self, key, state, action, params):
        total = state.total + action + 1
        won = total >= GOAL
        reward = jnp.where(won, jnp.where(jnp.arange(2) == state.mover, 1.0, -1.0), 0.0)
        event = jnp.where((action >= 0) & (action < 2), 1, 2)
        return state.replace(total=total, mover=1 - state.mover), reward, won, event

    def _render(self, state, params, seat):
        shown = state.secret[1 - seat] if self.leaky else state.secret[seat]
        codes = jnp.stack([jnp.minimum(state.total, 9), shown])
        return jnp.array([ord(d) for d in DIGITS], jnp.uint32)[codes][None, :], ()

    @staticmethod
    def perturb_private(key, state, seat):
        return state.replace(secret=state.secret.at[seat].set(jax.random.randint(key, (), 0, 10)))


class LeakyRace(SecretRace):
    """Draws the other seat's secret instead of its own: a hidden-information bug."""

    leaky = True
