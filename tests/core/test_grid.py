"""core.grid (and the random cells of core.sampling) against plain numpy / Python references on
random masks: shifts, dilation, neighbour counts, floods, BFS distances, k random cells, borders,
the direction table and glyph tables."""

from collections import deque

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

from glyphjax.core import grid
from glyphjax.core.sampling import random_cell, random_cells

RNG = np.random.default_rng(12)
SHAPES = [(1, 1), (1, 7), (5, 5), (6, 9), (13, 8)]


def random_masks(shape, n=6, p=0.6):
    return [RNG.random(shape) < p for _ in range(n)]


def offsets(eight):
    return [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
            if (dr, dc) != (0, 0) and (eight or dr == 0 or dc == 0)]


def ref_neighbours(r, c, shape, eight):
    for dr, dc in offsets(eight):
        rr, cc = r + dr, c + dc
        if 0 <= rr < shape[0] and 0 <= cc < shape[1]:
            yield rr, cc


def ref_bfs(passable, source, eight):
    """Plain Python BFS: dict cell -> distance from the passable source cells."""
    dist, queue = {}, deque()
    for cell in zip(*np.nonzero(source & passable)):
        dist[cell] = 0
        queue.append(cell)
    while queue:
        cell = queue.popleft()
        for nb in ref_neighbours(*cell, passable.shape, eight):
            if passable[nb] and nb not in dist:
                dist[nb] = dist[cell] + 1
                queue.append(nb)
    return dist


def dist_array(dist, shape, limit=None):
    out = np.full(shape, grid.UNREACHED, np.int64)
    for cell, d in dist.items():
        if limit is None or d <= limit:
            out[cell] = d
    return out


@pytest.mark.parametrize("shape", SHAPES)
def test_shift__equals_numpy_indexing_with_fill(shape):
    a = RNG.integers(0, 100, shape)
    for dr in range(-2, 3):
        for dc in range(-2, 3):
            want = np.full(shape, -7)
            for r in range(shape[0]):
                for c in range(shape[1]):
                    if 0 <= r - dr < shape[0] and 0 <= c - dc < shape[1]:
                        want[r, c] = a[r - dr, c - dc]
            got = np.asarray(grid.shift(jnp.asarray(a), dr, dc, -7))
            np.testing.assert_array_equal(got, want, err_msg=f"shift {(dr, dc)} of {shape}")


@pytest.mark.parametrize("eight", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
def test_dilate_and_neighbour_count__equal_python_neighbour_loops(shape, eight):
    masks = np.stack(random_masks(shape, p=0.3))
    dil, cnt = (np.asarray(x) for x in jax.vmap(
        lambda m: (grid.dilate(m, eight), grid.neighbour_count(m, eight)))(jnp.asarray(masks)))
    for m, d, n in zip(masks, dil, cnt):
        for r in range(shape[0]):
            for c in range(shape[1]):
                nbs = [m[x] for x in ref_neighbours(r, c, shape, eight)]
                assert d[r, c] == (m[r, c] or any(nbs)), (shape, eight, r, c)
                assert n[r, c] == sum(nbs), (shape, eight, r, c)


@pytest.mark.parametrize("eight", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
def test_flood__fixed_point_and_bounded_equal_python_bfs(shape, eight):
    masks = random_masks(shape)
    seeds = [RNG.random(shape) < 0.08 for _ in masks]
    for steps in (None, 0, 1, 3):
        got = np.asarray(jax.vmap(lambda s, p: grid.flood(s, p, steps, eight))(
            jnp.asarray(np.stack(seeds)), jnp.asarray(np.stack(masks))))
        for seed, passable, g in zip(seeds, masks, got):
            want = dist_array(ref_bfs(passable, seed, eight), shape, limit=steps) < grid.UNREACHED
            np.testing.assert_array_equal(g, want, err_msg=f"{shape} steps={steps}")


@pytest.mark.parametrize("eight", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
def test_bfs_distances__equal_python_bfs_with_unreached_sentinel(shape, eight):
    masks = random_masks(shape)
    sources = [RNG.random(shape) < 0.05 for _ in masks]
    got = np.asarray(jax.jit(jax.vmap(lambda p, s: grid.bfs_distances(p, s, eight=eight)))(
        jnp.asarray(np.stack(masks)), jnp.asarray(np.stack(sources))))
    for p, s, g in zip(masks, sources, got):
        np.testing.assert_array_equal(g, dist_array(ref_bfs(p, s, eight), shape))
    bounded = np.asarray(grid.bfs_distances(jnp.asarray(masks[0]), jnp.asarray(sources[0]), 2, eight))
    np.testing.assert_array_equal(bounded, dist_array(ref_bfs(masks[0], sources[0], eight), shape, 2))


def test_bfs_distances__impassable_source_is_unreached_and_sentinel_exceeds_every_distance():
    passable = np.ones((4, 4), bool)
    passable[0, 0] = False
    source = np.zeros((4, 4), bool)
    source[0, 0] = True
    d = np.asarray(grid.bfs_distances(jnp.asarray(passable), jnp.asarray(source)))
    assert (d == grid.UNREACHED).all()
    assert grid.UNREACHED > 1000 * 1000 and 2 * grid.UNREACHED < np.iinfo(np.int32).max


@pytest.mark.parametrize("shape", [(1, 1), (3, 4), (9, 9), (20, 19)])
def test_random_cells__distinct_inside_the_mask_and_flags_missing_picks(shape):
    n = shape[0] * shape[1]
    for count in (0, 1, min(3, n), n):
        mask = np.zeros(n, bool)
        mask[RNG.choice(n, count, replace=False)] = True
        mask = mask.reshape(shape)
        for k in sorted({1, max(count - 1, 1), count, min(count + 2, n)}):
            if k > n or k == 0:
                continue
            u = jax.random.uniform(jax.random.PRNGKey(k + count), (n,))
            idx, found = (np.asarray(x) for x in random_cells(u, jnp.asarray(mask), k))
            assert len(set(idx.tolist())) == k, (shape, count, k)
            assert found.tolist() == [True] * min(k, count) + [False] * max(k - count, 0)
            assert mask.reshape(-1)[idx].tolist() == found.tolist()


def test_random_cells__rejects_a_wrong_number_of_uniforms():
    with pytest.raises(ValueError, match="one uniform per cell"):
        random_cells(jnp.zeros((5,)), jnp.ones((2, 3), bool), 2)


def chi_square_p(counts):
    return stats.chisquare(counts).pvalue


def test_random_cells__every_true_cell_equally_likely_chi_square():
    mask = RNG.random((6, 7)) < 0.5
    flat = np.flatnonzero(mask)
    keys = jax.random.split(jax.random.PRNGKey(5), 6000)
    idx = np.asarray(jax.vmap(lambda k: random_cells(
        jax.random.uniform(k, (mask.size,)), jnp.asarray(mask), 3)[0])(keys))
    counts = np.bincount(idx.reshape(-1), minlength=mask.size)
    assert counts[~mask.reshape(-1)].sum() == 0
    assert chi_square_p(counts[flat]) > 1e-3, counts[flat]
    first = np.bincount(idx[:, 0], minlength=mask.size)[flat]  # the best pick alone is uniform too
    assert chi_square_p(first) > 1e-3, first


def test_random_cell__uniform_over_true_cells_chi_square_and_empty_mask_flag():
    mask = RNG.random((5, 8)) < 0.4
    flat = np.flatnonzero(mask)
    u = jax.random.uniform(jax.random.PRNGKey(9), (8000,))
    idx, found = (np.asarray(x) for x in jax.vmap(lambda x: random_cell(x, jnp.asarray(mask)))(u))
    assert found.all() and mask.reshape(-1)[idx].all()
    assert chi_square_p(np.bincount(idx, minlength=mask.size)[flat]) > 1e-3
    idx0, found0 = random_cell(jnp.float32(0.7), jnp.zeros((3, 3), bool))
    assert int(idx0) == 0 and not bool(found0)


def test_directions__one_table_opposites_and_clockwise_index_table():
    deltas = np.asarray(grid.DIR_DELTAS)
    assert [tuple(d) for d in deltas] == list(grid.DIR_OFFSETS)
    assert grid.DIR_NAMES == ("UP", "DOWN", "LEFT", "RIGHT")
    assert tuple(deltas[grid.UP]) == (-1, 0) and tuple(deltas[grid.RIGHT]) == (0, 1)
    np.testing.assert_array_equal(deltas[np.asarray(grid.OPPOSITE)], -deltas)
    cw = [tuple(deltas[d]) for d in grid.CLOCKWISE]
    for a, b in zip(cw, cw[1:] + cw[:1]):  # each next heading is the previous turned 90 degrees right
        assert b == (a[1], -a[0]), (a, b)
    assert len(set(grid.NEIGHBOURS8)) == 8 and (0, 0) not in grid.NEIGHBOURS8
    assert list(grid.NEIGHBOURS8) == sorted(grid.NEIGHBOURS8)  # row-major


@pytest.mark.parametrize("shape", [(1, 1), (2, 5), (4, 4), (7, 3)])
def test_border_mask__is_the_outer_ring(shape):
    want = np.zeros(shape, bool)
    want[0, :] = want[-1, :] = want[:, 0] = want[:, -1] = True
    np.testing.assert_array_equal(grid.border_mask(*shape), want)
    if shape[0] == shape[1]:
        np.testing.assert_array_equal(grid.border_mask(shape[0]), want)


def test_glyph_tables__codes_map_to_code_points_and_bad_glyph_is_refused():
    table = grid.codepoints("·█@★")
    assert table.dtype == jnp.uint32
    codes = jnp.array([[0, 1], [3, 2]])
    got = np.asarray(grid.glyph_grid(codes, table))
    assert [[chr(c) for c in row] for row in got.tolist()] == [["·", "█"], ["★", "@"]]
    assert grid.codepoint("★") == 0x2605 and grid.codepoint("★").dtype == np.uint32
    with pytest.raises(ValueError, match="one character"):
        grid.codepoint("ab")
