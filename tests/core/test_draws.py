"""core.sampling.Draws: a level generator's random numbers from one source (one Threefry call, or
a hash of the key), handed out in order; used by the Classics and MiniGrid generators."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from glyphjax.core.sampling import Draws


def make(key, n, hashed):
    return (Draws.hashed if hashed else Draws.threefry)(key, n)


@pytest.mark.parametrize("hashed", [False, True])
def test_draws__slices_are_consecutive_parts_of_one_stream_and_budget_is_enforced(hashed):
    key = jax.random.PRNGKey(3)
    rnd = make(key, 10, hashed)
    a, b = rnd.uniform((2, 3)), rnd.uniform((4,))
    whole = np.asarray(make(key, 10, hashed).uniform((10,)))
    np.testing.assert_array_equal(np.asarray(a).reshape(-1), whole[:6])
    np.testing.assert_array_equal(np.asarray(b), whole[6:10])
    assert len(set(whole.tolist())) == 10 and (whole >= 0).all() and (whole < 1).all()
    with pytest.raises(RuntimeError):
        rnd.uniform(())
    typed = np.asarray(make(jax.random.wrap_key_data(key), 10, hashed).uniform((10,)))
    np.testing.assert_array_equal(typed, whole)  # raw and typed keys give the same stream


@pytest.mark.parametrize("hashed", [False, True])
def test_draws__randint_and_bernoulli_ranges_and_frequencies(hashed):
    rnd = make(jax.random.PRNGKey(0), 40_000, hashed)
    ints = np.asarray(rnd.randint(-3, 4, (20_000,)))
    assert ints.min() == -3 and ints.max() == 3
    freq = np.bincount(ints + 3, minlength=7) / ints.size
    assert np.all(np.abs(freq - 1 / 7) < 0.015), freq
    coins = np.asarray(rnd.bernoulli(0.3, (20_000,)))
    assert abs(coins.mean() - 0.3) < 0.015


def test_draws__hashed_streams_of_neighbouring_seeds_are_uncorrelated():
    """Draws.hashed, 2,000 reset keys x 64 numbers: uniform; neighbouring positions and neighbouring
    keys uncorrelated (|r| < 0.015, ~5 sigma over ~126,000 pairs)."""
    keys = jax.vmap(lambda s: jax.random.fold_in(jax.random.PRNGKey(0), s))(jnp.arange(2000))
    u = np.asarray(jax.vmap(lambda k: Draws.hashed(k, 64).uniform((64,)))(keys))  # [2000, 64]
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
    for x, y in ((u[:, :-1], u[:, 1:]), (u[:-1], u[1:])):
        r = np.corrcoef(x.reshape(-1), y.reshape(-1))[0, 1]
        assert abs(r) < 0.015, r


def test_draws__randint_takes_traced_bounds_and_an_empty_range_gives_lo():
    lo, hi = jnp.asarray([2, 5, 0]), jnp.asarray([3, 5, 7])
    v = np.asarray(jax.jit(lambda k: Draws.threefry(k, 3).randint(lo, hi, (3,)))(jax.random.PRNGKey(1)))
    assert v[0] == 2 and v[1] == 5 and 0 <= v[2] < 7


def test_draws__cell_is_a_uniform_true_cell_of_the_mask():
    mask = jnp.zeros((4, 5), bool).at[1, 2].set(True).at[3, 0].set(True).at[3, 4].set(True)
    keys = jax.random.split(jax.random.PRNGKey(2), 3000)
    idx = np.asarray(jax.vmap(lambda k: Draws.hashed(k, 1).cell(mask)[0])(keys))
    assert set(idx.tolist()) == {7, 15, 19}
    assert np.all(np.abs(np.bincount(idx, minlength=20)[[7, 15, 19]] / 3000 - 1 / 3) < 0.04)
