"""The bitboard outcome clauses (`gridbits`) against the array form of `gridgame`, on random
boards under random rule clauses (one vmapped call per board size), and the select helpers."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from glyphjax.zerosum import gridbits as gb
from glyphjax.zerosum import gridgame as g
from glyphjax.zerosum.onehot import choose, flag, put, take


def _random_params(rng: np.random.Generator, n: int, count: int) -> g.GridParams:
    return g.GridParams(
        k=jnp.asarray(rng.integers(2, n + 1, count), jnp.int32), dirs=jnp.asarray(rng.random((count, 4)) < 0.7),
        torus=jnp.asarray(rng.random(count) < 0.5), gravity=jnp.asarray(rng.random(count) < 0.5),
        misere=jnp.asarray(rng.random(count) < 0.3), shared=jnp.asarray(rng.random(count) < 0.3),
        square=jnp.asarray(np.where(rng.random(count) < 0.3, 0, rng.integers(2, n + 1, count)), jnp.int32),
        valid=jnp.asarray(rng.random((count, n, n)) < 0.85),
        first_forbidden=jnp.asarray(rng.random((count, n, n)) < 0.2),
        glyphs=jnp.zeros((count, 4), jnp.uint32), display=jnp.zeros((count, n * n), jnp.int32))


@pytest.mark.parametrize("n", [3, 4, 5])
def test_gridbits__clauses_equal_the_array_form_on_random_boards(n):
    rng = np.random.default_rng(n)
    count = 6000
    params = _random_params(rng, n, count)
    # dense boards, so that lines and squares are common enough to be compared
    board = jnp.asarray(rng.choice(3, (count, n, n), p=[0.3, 0.35, 0.35]), jnp.int8) * params.valid.astype(jnp.int8)
    mover = jnp.asarray(rng.integers(0, 2, count), jnp.int32)
    ply = jnp.asarray(rng.integers(-1, 3, count), jnp.int32)

    def arrays(b, m, p, pr):
        mine = b == m + 1
        return jnp.stack([g.has_line(jnp.where(pr.shared, b != 0, mine), pr), g.has_square(mine, pr),
                          jnp.any(g.legal_cells(b, p + 1, pr))])

    def bits(b, m, p, pr):
        mine, taken = gb.to_bits(b == m + 1), gb.to_bits(b != 0)
        return jnp.stack([gb.has_line_bits(jnp.where(pr.shared, taken, mine), n, pr),
                          gb.has_square_bits(mine, n, pr), gb.any_legal_bits(taken, n, p + 1, pr)])
    want = np.asarray(jax.jit(jax.vmap(arrays))(board, mover, ply, params))
    got = np.asarray(jax.jit(jax.vmap(bits))(board, mover, ply, params))
    assert want[:, 0].mean() > 0.2 and want[:, 1].sum() > 20 and (~want[:, 2]).sum() >= 5, "too few cases"
    bad = np.flatnonzero(np.any(want != got, axis=1))
    assert bad.size == 0, f"{bad.size} boards differ, e.g. #{bad[:3]}: array {want[bad[:3]]} vs bits {got[bad[:3]]}"


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
