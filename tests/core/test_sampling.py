"""core.sampling.kth_true against the plain reference argmax(cumsum(mask) > k)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from glyphjax.core.sampling import kth_true, mask_at


@pytest.mark.parametrize("small_graph", [None, False])
def test_kth_true__equals_argmax_of_cumsum_on_random_masks_of_every_size_and_k(small_graph):
    rng = np.random.default_rng(0)
    f = jax.jit(jax.vmap(lambda m, k: kth_true(m, k, small_graph)))
    sizes = (1, 2, 3, 7, 16, 17, 49, 63, 64, 65, 100, 127, 128, 129, 361, 625, 1024, 1025, 1500)  # every path
    for n in sizes if small_graph is None else (1, 31, 32, 33, 100, 128):  # False: the word path below 129
        density = rng.uniform(0, 1, (500, 1))
        masks = rng.uniform(0, 1, (500, n)) < density
        masks[:20] = False  # empty masks: index 0
        counts = masks.sum(1)
        ks = rng.integers(0, np.maximum(counts, 1) + 2)  # includes k >= count (index 0)
        want = np.where(ks < counts, np.argmax(np.cumsum(masks, 1) > ks[:, None], 1), 0)
        got = np.asarray(f(jnp.asarray(masks), jnp.asarray(ks, jnp.int32)))
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, f"n={n}: mask {masks[bad[0]].astype(int).tolist()} k={ks[bad[0]]}: {got[bad[0]]} != {want[bad[0]]}"


def test_hash_bits__uniform_bytes_and_key_dependent():
    from glyphjax.core.sampling import hash_bits
    keys = jax.random.split(jax.random.PRNGKey(0), 4096)
    bits = np.asarray(jax.jit(jax.vmap(lambda k: hash_bits(k, 16)))(keys), np.uint64)  # [4096, 16]
    # every byte of the words is uniform on 256 values (chi-square, 255 dof: mean 255, sd ~22.6)
    for shift in (0, 8, 16, 24):
        counts = np.bincount(((bits >> shift) & 255).ravel().astype(np.int64), minlength=256)
        expected = bits.size / 256
        chi2 = ((counts - expected) ** 2 / expected).sum()
        assert chi2 < 255 + 5 * 22.6, f"byte at bit {shift}: chi-square {chi2:.0f}"
    # (neighbouring counters / keys uncorrelated: tests/core/test_draws.py)
    # the same key gives the same words; a different key a different stream
    assert np.array_equal(np.asarray(hash_bits(keys[5], 16)), bits[5].astype(np.uint32))
    assert len({row.tobytes() for row in bits}) == len(bits)


@pytest.mark.parametrize("n", [1, 5, 8, 9, 49])
def test_mask_at__equals_indexing_and_is_false_outside_the_mask(n):
    """Both paths (a select chain up to CHAIN_MASK entries, a reduction above): mask[i] for i in range,
    False for the no-action index -1 and for n."""
    masks = jax.random.bernoulli(jax.random.PRNGKey(n), 0.5, (64, n))
    idx = jnp.arange(-1, n + 1)
    got = jax.vmap(lambda m: jax.vmap(lambda i: mask_at(m, i))(idx))(masks)
    want = np.concatenate([np.zeros((64, 1), bool), np.asarray(masks), np.zeros((64, 1), bool)], axis=1)
    assert np.array_equal(np.asarray(got), want)
