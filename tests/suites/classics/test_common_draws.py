"""common.Draws: a level generator's random numbers from one jax.random call, handed out in order."""

import jax
import numpy as np
import pytest

from glyphjax.suites.classics.common import Draws


def test_draws__slices_are_consecutive_parts_of_one_uniform_call_and_budget_is_enforced():
    key = jax.random.PRNGKey(3)
    rnd = Draws(key, 10)
    a, b = rnd.uniform((2, 3)), rnd.uniform((4,))
    whole = np.asarray(jax.random.uniform(key, (10,)))
    np.testing.assert_array_equal(np.asarray(a).reshape(-1), whole[:6])
    np.testing.assert_array_equal(np.asarray(b), whole[6:10])
    with pytest.raises(RuntimeError):
        rnd.uniform(())


def test_draws__randint_and_bernoulli_ranges_and_frequencies():
    rnd = Draws(jax.random.PRNGKey(0), 40_000)
    ints = np.asarray(rnd.randint(-3, 4, (20_000,)))
    assert ints.min() == -3 and ints.max() == 3
    freq = np.bincount(ints + 3, minlength=7) / ints.size
    assert np.all(np.abs(freq - 1 / 7) < 0.015), freq
    coins = np.asarray(rnd.bernoulli(0.3, (20_000,)))
    assert abs(coins.mean() - 0.3) < 0.015
