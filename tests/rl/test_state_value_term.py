"""The per-decision state-value term of gamesmith.md §5.3 (ours): rollouts record V(s) of each
decision state on request, and the trainer adds beta (V(s_{t+1}) - V(s_t)) to every turn."""

from __future__ import annotations

import types

import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.rollout import reset_key, step_key
from rl.policies.base import Completion
from rl.rollout import run_rollouts
from rl.trainer import turn_advantages

TASK = "zerosum/kuhn/base"


class AlwaysCheck:
    """Text policy that checks every turn (check-check goes to showdown in Kuhn Poker)."""

    name = "check"

    def complete(self, conversations, sampling):
        return [Completion("<action>CHECK</action>", [1, 2], [7], [-0.5], "stop") for _ in conversations]


def test_rollouts__record_v_of_each_decision_state_for_the_seat_to_move():
    seeds = [0, 1, 2]
    recs = run_rollouts(AlwaysCheck(), [(TASK, s) for s in seeds], record_values=True)
    env = glyphjax.make(TASK)
    params = env.default_params()
    check = env.card.actions.index("CHECK")
    for seed in seeds:
        mine = {r.seat: r for r in recs if r.seed == seed}
        state0 = env.reset(reset_key(seed), params)
        state1, _ = env.step(step_key(seed, 0), state0, jnp.int32(check), params)
        assert mine[0].turns[0].value == pytest.approx(float(env.value(state0, params, 0)), abs=1e-6)
        assert mine[1].turns[0].value == pytest.approx(float(env.value(state1, params, 1)), abs=1e-6)
        # the two seats hold different private cards: their values are opposite-signed or zero
        assert mine[0].turns[0].value * mine[1].turns[0].value <= 1e-6
    plain = run_rollouts(AlwaysCheck(), [(TASK, 0)])
    assert all(t.value is None for r in plain for t in r.turns)


def _record(values, ret):
    return types.SimpleNamespace(turns=[types.SimpleNamespace(value=v) for v in values], episode_return=ret)


def test_turn_advantages__adds_beta_times_value_difference_ending_at_the_return():
    rec = _record([0.2, 0.5, -0.1], 1.0)
    # differences: 0.5 - 0.2, -0.1 - 0.5, 1.0 - (-0.1)
    np.testing.assert_allclose(turn_advantages(0.3, rec, 1.0), [0.3 + 0.3, 0.3 - 0.6, 0.3 + 1.1])
    np.testing.assert_allclose(turn_advantages(0.3, rec, 0.5), [0.45, 0.0, 0.85])
    np.testing.assert_allclose(turn_advantages(0.3, rec, 0.0), [0.3] * 3)
    # summed over turns the term telescopes to beta (R - V(s_0))
    assert sum(turn_advantages(0.0, rec, 1.0)) == pytest.approx(1.0 - 0.2)


def test_turn_advantages__turns_without_values_get_the_episode_advantage():
    np.testing.assert_allclose(turn_advantages(-0.25, _record([None, None], 1.0), 1.0), [-0.25, -0.25])
