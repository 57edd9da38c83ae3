"""Entity pools (glyphjax/core/entities.py): spawning, moving with each edge rule, swept
collisions, occupancy and painting, with expected values worked out by hand from the rules."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from glyphjax.core import entities as E


def _pool(cells, vels=None, kinds=None, alive=None, n=None) -> E.Pool:
    n = n or len(cells)
    pool = E.empty(n)
    k = len(cells)
    vels = vels if vels is not None else [(0, 0)] * k
    kinds = kinds if kinds is not None else [0] * k
    alive = alive if alive is not None else [True] * k
    pad = n - k
    return E.Pool(
        pos=jnp.array(list(cells) + [(0, 0)] * pad, jnp.int32),
        vel=jnp.array(list(vels) + [(0, 0)] * pad, jnp.int32),
        kind=jnp.array(list(kinds) + [0] * pad, jnp.int32),
        alive=jnp.array(list(alive) + [False] * pad),
        timer=pool.timer,
    )


def test_spawn__fills_the_first_free_slot_and_is_a_noop_when_full_or_not_asked():
    pool = _pool([(1, 1), (2, 2)], alive=[True, False], n=3)
    pool = E.spawn(pool, (5, 6), (0, 1), 2, timer=7)
    assert np.asarray(pool.alive).tolist() == [True, True, False]
    assert np.asarray(pool.pos[1]).tolist() == [5, 6] and int(pool.kind[1]) == 2 and int(pool.timer[1]) == 7
    same = E.spawn(pool, (0, 0), (0, 0), 1, where=False)
    assert np.array_equal(same.alive, pool.alive) and np.array_equal(same.pos, pool.pos)
    full = E.spawn(E.spawn(pool, (3, 3), (0, 0), 1), (4, 4), (0, 0), 1)
    assert E.count(full) == 3 and np.asarray(full.pos[2]).tolist() == [3, 3]


def test_spawn_many__ith_masked_request_goes_to_ith_free_slot_and_extra_requests_drop():
    pool = _pool([(9, 9), (0, 0), (8, 8), (0, 0)], alive=[True, False, True, False])
    pos = jnp.array([[1, 1], [2, 2], [3, 3]], jnp.int32)
    out = E.spawn_many(pool, pos, jnp.zeros((3, 2), jnp.int32), jnp.array([4, 5, 6]),
                       jnp.array([False, True, True]))
    assert np.asarray(out.alive).tolist() == [True, True, True, True]
    assert np.asarray(out.pos).tolist() == [[9, 9], [2, 2], [8, 8], [3, 3]]
    assert np.asarray(out.kind).tolist() == [0, 5, 0, 6]
    over = E.spawn_many(out, pos, jnp.zeros((3, 2), jnp.int32), jnp.array([4, 5, 6]), jnp.ones(3, bool))
    assert np.array_equal(over.pos, out.pos)  # no free slot: nothing changes


@pytest.mark.parametrize("edge, pos, vel, alive", [
    ("kill", [[0, 4], [2, 2]], [[-1, 1], [1, 1]], [False, True]),   # (0,4)+(-1,1) leaves the top
    ("wrap", [[4, 0], [3, 3]], [[-1, 1], [1, 1]], [True, True]),    # (-1,5) wraps to (4,0) on 5x5
    ("clip", [[0, 4], [3, 3]], [[-1, 1], [1, 1]], [True, True]),
    ("bounce", [[1, 3], [3, 3]], [[1, 1], [1, 1]], [True, True]),   # (-1,5) reflects to (1,3)
])
def test_advance__edge_rules(edge, pos, vel, alive):
    pool = _pool([(0, 4), (2, 2)], vels=[(-1, 1), (1, 1)])
    out = E.advance(pool, 5, 5, edge)
    assert np.asarray(out.alive).tolist() == alive
    if edge != "kill":
        assert np.asarray(out.pos).tolist() == pos
    if edge == "bounce":
        assert np.asarray(out.vel).tolist() == [[1, -1], [1, 1]]


def test_advance__dead_entities_do_not_move_and_bad_edge_is_refused():
    pool = _pool([(2, 2)], vels=[(1, 0)], alive=[False])
    assert np.asarray(E.advance(pool, 5, 5).pos).tolist() == [[2, 2]]
    with pytest.raises(ValueError, match="edge must be one of"):
        E.advance(pool, 5, 5, "teleport")


def test_hits__a_fast_shot_cannot_jump_over_its_target():
    shot0 = _pool([(5, 3)], vels=[(-2, 0)])
    shot1 = E.advance(shot0, 8, 8)               # (5,3) -> (3,3), passing (4,3)
    target = _pool([(4, 3), (1, 1)])              # standing still
    got = E.hits(shot0, shot1, target, target)
    assert np.asarray(got).tolist() == [[True, False]]


def test_hits__swapped_cells_count_and_dead_pairs_do_not():
    a0, a1 = _pool([(2, 2)]), _pool([(2, 3)])
    b0, b1 = _pool([(2, 3)]), _pool([(2, 2)])
    assert bool(E.hits(a0, a1, b0, b1, sweep=1)[0, 0])
    dead = _pool([(2, 2)], alive=[False])
    assert not bool(E.hits(a0, a1, b0, dead, sweep=1)[0, 0])
    apart = _pool([(6, 6)])
    assert not bool(E.hits(a0, a1, apart, apart)[0, 0])


def test_point_hits__body_walking_into_a_bullet_path_either_way():
    bullets0 = _pool([(0, 2), (7, 7)], vels=[(2, 0), (0, 0)])
    bullets1 = E.advance(bullets0, 8, 8)          # (0,2) -> (2,2)
    # body stays at (1,2): on the bullet's path
    assert np.asarray(E.point_hits(bullets0, bullets1, jnp.array([1, 2]), jnp.array([1, 2]))).tolist() == [True, False]
    # body runs (7,5) -> (7,7): its own path reaches the still bullet at (7,7)
    got = E.point_hits(bullets0, bullets1, jnp.array([7, 5]), jnp.array([7, 7]))
    assert np.asarray(got).tolist() == [False, True]


def test_occupancy_on_cells_nearest():
    pool = _pool([(1, 1), (1, 1), (3, 0), (9, 9)], kinds=[0, 1, 1, 0], alive=[True, True, True, True])
    occ = np.asarray(E.occupancy(pool, 4, 4))
    assert occ[1, 1] == 2 and occ[3, 0] == 1 and occ.sum() == 3    # (9,9) is off the field
    assert np.asarray(E.occupancy(pool, 4, 4, kinds=[1])).sum() == 2
    mask = jnp.zeros((4, 4), bool).at[3, 0].set(True)
    assert np.asarray(E.on_cells(pool, mask)).tolist() == [False, False, True, False]
    i, d = E.nearest(pool, jnp.array([3, 1]))   # (3,0) is 1 away, (1,1) 2
    assert int(i) == 2 and int(d) == 1
    i, d = E.nearest(pool, jnp.array([3, 2]))   # both 2 away: the lower slot wins
    assert int(i) == 0 and int(d) == 2
    i, d = E.nearest(E.empty(3), jnp.array([0, 0]))
    assert int(i) == -1 and int(d) == int(E.FAR)


def test_paint__highest_slot_on_top_and_off_field_ignored():
    codes = jnp.full((3, 3), ord("."), jnp.uint32)
    pool = _pool([(0, 0), (0, 0), (2, 1), (5, 5)], kinds=[0, 1, 0, 1])
    table = jnp.array([ord("a"), ord("b")], jnp.uint32)
    out = "".join(chr(c) for c in np.asarray(E.paint(codes, pool, table)).ravel())
    assert out == "b......a."


def test_pool__functions_vmap_and_jit():
    pools = jax.vmap(lambda r: E.spawn(E.empty(2), jnp.stack([r, r]), jnp.array([0, 1]), 0))(jnp.arange(3))
    moved = jax.jit(jax.vmap(lambda p: E.advance(p, 4, 4, "wrap")))(pools)
    assert np.asarray(moved.pos[:, 0]).tolist() == [[0, 1], [1, 2], [2, 3]]


def test_advance__moving_mask_moves_only_those_and_keeps_the_others_velocity():
    pool = _pool([(2, 2), (2, 2), (0, 4)], vels=[(1, 0), (1, 0), (-1, 1)])
    out = E.advance(pool, 5, 5, "bounce", moving=jnp.array([True, False, True]))
    assert np.asarray(out.pos).tolist() == [[3, 2], [2, 2], [1, 3]]  # slot 2 reflects at the top/right
    assert np.asarray(out.vel).tolist() == [[1, 0], [1, 0], [1, -1]]  # only a mover's velocity flips
    waiting = E.advance(pool, 5, 5, "kill", moving=jnp.array([False, False, False]))
    assert np.array_equal(waiting.pos, pool.pos) and np.array_equal(waiting.alive, pool.alive)


def test_put__fills_fixed_slots_with_per_slot_fields():
    pool = _pool([(9, 9), (0, 0)], alive=[True, False])
    out = E.put(pool, jnp.array([False, True]), jnp.array([[1, 1], [3, 4]]), jnp.array([[0, 1], [0, -1]]),
                jnp.array([5, 6]), jnp.array([0, 2]))
    assert np.asarray(out.alive).tolist() == [True, True]
    assert np.asarray(out.pos).tolist() == [[9, 9], [3, 4]] and np.asarray(out.kind).tolist() == [0, 6]
    assert np.asarray(out.vel[1]).tolist() == [0, -1] and int(out.timer[1]) == 2
