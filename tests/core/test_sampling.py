"""core.sampling.kth_true against the plain reference argmax(cumsum(mask) > k)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.sampling import kth_true


def test_kth_true__equals_argmax_of_cumsum_on_random_masks_of_every_size_and_k():
    rng = np.random.default_rng(0)
    f = jax.jit(jax.vmap(kth_true))
    for n in (1, 2, 3, 7, 16, 49, 63, 64, 65, 100, 127, 128, 129, 361, 625):  # both strategies
        density = rng.uniform(0, 1, (500, 1))
        masks = rng.uniform(0, 1, (500, n)) < density
        masks[:20] = False  # empty masks: index 0
        counts = masks.sum(1)
        ks = rng.integers(0, np.maximum(counts, 1) + 2)  # includes k >= count (index 0)
        want = np.where(ks < counts, np.argmax(np.cumsum(masks, 1) > ks[:, None], 1), 0)
        got = np.asarray(f(jnp.asarray(masks), jnp.asarray(ks, jnp.int32)))
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, f"n={n}: mask {masks[bad[0]].astype(int).tolist()} k={ks[bad[0]]}: {got[bad[0]]} != {want[bad[0]]}"
