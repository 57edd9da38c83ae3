"""The gather-, scatter- and argmax-free helpers of the zero-sum kernels equal plain indexing."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.zerosum.onehot import choose, flag, put, take


def test_onehot__reads_writes_and_choices_equal_indexing():
    x = jnp.arange(24).reshape(6, 4) * 3 - 7
    idx = jnp.arange(6)
    assert np.array_equal(jax.vmap(lambda i: take(x, i))(idx), x)
    assert np.array_equal(jax.vmap(lambda i: put(x, i, jnp.full((4,), 99)))(idx),
                          jnp.stack([x.at[i].set(99) for i in range(6)]))
    hits = jax.vmap(lambda i: jax.vmap(lambda j: flag(idx == i, j))(idx))(idx)
    assert np.array_equal(hits, np.eye(6, dtype=bool))
    conds = [jnp.array([True, False, False, True]), jnp.array([True, True, False, False])]
    values = [jnp.array([1, 1, 1, 1]), jnp.array([2, 2, 2, 2])]
    assert np.array_equal(choose(conds, values, 0), jnp.select(conds, values, 0))
