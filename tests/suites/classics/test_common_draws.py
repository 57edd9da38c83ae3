"""common.Draws: a level generator's random numbers from one source (one Threefry call, or a hash
of the key with hashed=True), handed out in order."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from glyphjax.suites.classics.common import Draws


@pytest.mark.parametrize("hashed", [False, True])
def test_draws__slices_are_consecutive_parts_of_one_stream_and_budget_is_enforced(hashed):
    key = jax.random.PRNGKey(3)
    rnd = Draws(key, 10, hashed)
    a, b = rnd.uniform((2, 3)), rnd.uniform((4,))
    whole = np.asarray(Draws(key, 10, hashed).uniform((10,)))
    np.testing.assert_array_equal(np.asarray(a).reshape(-1), whole[:6])
    np.testing.assert_array_equal(np.asarray(b), whole[6:10])
    assert len(set(whole.tolist())) == 10 and (whole >= 0).all() and (whole < 1).all()
    with pytest.raises(RuntimeError):
        rnd.uniform(())
    typed = np.asarray(Draws(jax.random.wrap_key_data(key), 10, hashed).uniform((10,)))
    np.testing.assert_array_equal(typed, whole)  # raw and typed keys give the same stream


@pytest.mark.parametrize("hashed", [False, True])
def test_draws__randint_and_bernoulli_ranges_and_frequencies(hashed):
    rnd = Draws(jax.random.PRNGKey(0), 40_000, hashed)
    ints = np.asarray(rnd.randint(-3, 4, (20_000,)))
    assert ints.min() == -3 and ints.max() == 3
    freq = np.bincount(ints + 3, minlength=7) / ints.size
    assert np.all(np.abs(freq - 1 / 7) < 0.015), freq
    coins = np.asarray(rnd.bernoulli(0.3, (20_000,)))
    assert abs(coins.mean() - 0.3) < 0.015


def test_draws__hashed_streams_of_neighbouring_seeds_are_uncorrelated():
    """hashed=True, 2,000 reset keys x 64 numbers: uniform; neighbouring positions and neighbouring
    keys uncorrelated (|r| < 0.015, ~5 sigma over ~126,000 pairs)."""
    keys = jax.vmap(lambda s: jax.random.fold_in(jax.random.PRNGKey(0), s))(jnp.arange(2000))
    u = np.asarray(jax.vmap(lambda k: Draws(k, 64, hashed=True).uniform((64,)))(keys))  # [2000, 64]
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
    for x, y in ((u[:, :-1], u[:, 1:]), (u[:-1], u[1:])):
        r = np.corrcoef(x.reshape(-1), y.reshape(-1))[0, 1]
        assert abs(r) < 0.015, r
