"""Procgen engine: jump arc, gravity, ceilings, double jump, patrols, the view, and level sets
(determinism, num_levels, train/test disjointness)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.suites.procgen.engine import (TEST_LEVEL_START, agent_view, body_step, draw_level,
                                            level_params, pack_rows, patrol, unpack_row)
from glyphjax.suites.procgen.planner import single_level


def _floor(h=10, w=12, extra=()):
    solid = np.zeros((h, w), bool)
    solid[h - 1] = True
    for r, c in extra:
        solid[r, c] = True
    return jnp.asarray(solid)


def _run_body(solid, pos, moves, double_jump=False):
    """Rows and columns after each (dx, jump) move."""
    p, phase, air = jnp.array(pos, jnp.int32), jnp.int32(0), jnp.bool_(True)
    out = []
    for dx, jump in moves:
        p, phase, air, _ = body_step(solid, p, phase, air, jnp.int32(dx), jnp.bool_(jump), double_jump)
        out.append(tuple(int(x) for x in p))
    return out


def test_jump__follows_the_seven_turn_arc():
    # standing on the floor at row 8: up 3 over 3 turns, 1 level, down 3, then stays grounded
    path = _run_body(_floor(), (8, 2), [(1, True)] + [(1, False)] * 7)
    assert path == [(7, 3), (6, 4), (5, 5), (5, 6), (6, 7), (7, 8), (8, 9), (8, 10)]


def test_jump__only_from_the_ground_and_gravity_is_one_row_per_turn():
    path = _run_body(_floor(), (3, 2), [(0, True), (0, True), (0, False)])
    assert path == [(4, 2), (5, 2), (6, 2)]


def test_jump__a_ceiling_ends_the_rise():
    # a block two rows above you: rise one row, bump, then fall back
    path = _run_body(_floor(extra=[(6, 2)]), (8, 2), [(0, True)] + [(0, False)] * 3)
    assert path == [(7, 2), (7, 2), (8, 2), (8, 2)]  # the bump turn keeps the row


def test_jump__a_wall_blocks_the_sideways_move_only():
    path = _run_body(_floor(extra=[(8, 3), (7, 3)]), (8, 2), [(1, True), (1, False), (1, False), (1, False)])
    assert path == [(7, 2), (6, 2), (5, 3), (5, 4)]


def test_double_jump__restarts_the_arc_once_in_the_air():
    moves = [(0, True), (0, False), (0, True), (0, True), (0, False)]
    assert _run_body(_floor(h=12), (10, 2), moves, double_jump=True) == [(9, 2), (8, 2), (7, 2), (6, 2), (5, 2)]
    assert _run_body(_floor(h=12), (10, 2), moves, double_jump=False) == [(9, 2), (8, 2), (7, 2), (7, 2), (8, 2)]


def test_patrol__walkers_turn_at_ledges_and_walls():
    solid = _floor(w=6, extra=[(8, 5)])  # a wall block at the right end, a ledge past column 0
    ents = jnp.array([[8, 3, 1], [8, 1, -1]], jnp.int32)
    alive = jnp.array([True, True])
    one = patrol(solid, ents, alive)
    np.testing.assert_array_equal(one, [[8, 4, 1], [8, 0, -1]])
    two = patrol(solid, one, alive)
    np.testing.assert_array_equal(two, [[8, 4, -1], [8, 0, 1]])  # wall ahead / nothing ahead (col -1)


def test_agent_view__centres_you_and_pads_with_outside():
    codes = jnp.arange(12, dtype=jnp.int32).reshape(3, 4)
    view = agent_view(codes, jnp.array([0, 0]), 3, 3, 99)
    np.testing.assert_array_equal(view, [[99, 99, 99], [99, 0, 1], [99, 4, 5]])


# --- level sets ---------------------------------------------------------------------------------
def test_level_params__train_and_test_ranges_never_intersect():
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(4000, dtype=jnp.uint32))
    train = np.asarray(jax.vmap(lambda k: draw_level(k, level_params(0)))(keys))
    test = np.asarray(jax.vmap(lambda k: draw_level(k, level_params(0, split="test")))(keys))
    assert train.max() < TEST_LEVEL_START <= test.min()
    assert test.max() < 2 ** 31


def test_num_levels__n_gives_exactly_n_level_seeds():
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(3000, dtype=jnp.uint32))
    seeds = np.asarray(jax.vmap(lambda k: draw_level(k, level_params(7, start_level=100)))(keys))
    assert set(seeds.tolist()) == set(range(100, 107))


@pytest.mark.parametrize("bad", [dict(num_levels=5, start_level=TEST_LEVEL_START - 2),
                                 dict(num_levels=-1), dict(split="valid"), dict(distribution_mode="medium")])
def test_level_params__bad_sets_name_the_problem(bad):
    with pytest.raises(ValueError, match="num_levels|split|distribution_mode"):
        level_params(**bad)


def test_levels__same_seed_same_level_whatever_the_episode_key():
    env = glyphjax.make("procgen/coinrun")
    reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(6, dtype=jnp.uint32))
    one = reset(keys, single_level(env.default_params(), 12345))
    for leaf in jax.tree.leaves(one):
        assert (np.asarray(leaf) == np.asarray(leaf)[:1]).all()
    # num_levels = 5: exactly 5 distinct levels (worlds) over many episodes
    many = reset(jax.vmap(glyphjax.reset_key)(jnp.arange(400, dtype=jnp.uint32)), level_params(5))
    worlds = {np.asarray(w).tobytes() for w in many.world}
    assert len(worlds) == 5 and set(np.asarray(many.level).tolist()) == set(range(5))


def _tree_equal(a, b) -> bool:
    return all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))


def test_level_bank__reset_copies_exactly_what_the_generator_builds():
    # 60 episodes over the 200 default levels, a level outside the bank (single_level, the
    # planner's params) and a set too large to bank (1000 levels), against the generator itself
    env = glyphjax.make("procgen/maze-hard")
    reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
    generate = jax.jit(jax.vmap(env._generate, in_axes=(0, None)))
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(60, dtype=jnp.uint32))
    banked = env.default_params()
    assert int(banked.bank.count) == 200 and int(banked.bank.first) == 0
    for params in (banked, single_level(banked, 5000), env.with_levels(1000).default_params()):
        got = reset(keys, params)
        assert _tree_equal(got, generate(got.level, params.hard))
    assert set(np.asarray(reset(keys, single_level(banked, 5000)).level).tolist()) == {5000}
    assert int(env.with_levels(1000).default_params().bank.count) == 0


def test_pack_rows__round_trip_is_exact_for_every_leaf_type():
    tree = {"b": jnp.array([[True, False], [False, True]]),
            "i8": jnp.array([[-128, 127], [0, -1]], jnp.int8),
            "u32": jnp.array([0xFFFFFFFF, 7], jnp.uint32),
            "f": jnp.array([[-0.0, jnp.nan, 1.5], [jnp.inf, -2.0, 1e-40]], jnp.float32),
            "i": jnp.array([[[-(2**31), 5]], [[2**31 - 1, 0]]], jnp.int32)}
    words, layout = pack_rows(tree)
    assert words.shape == (2, 2 + 2 + 1 + 3 + 2) and words.dtype == jnp.int32
    for r in range(2):
        got = unpack_row(words[r], layout)
        for k in tree:
            want = np.asarray(tree[k][r])
            assert got[k].dtype == want.dtype and got[k].shape == want.shape
            assert np.asarray(got[k]).tobytes() == want.tobytes()  # bit for bit (NaN, -0.0 included)


@pytest.mark.parametrize("task", ["procgen/starpilot-hard", "procgen/dodgeball"])
def test_level_bank__constant_params_reset_equals_the_generator(task):
    # params closed over (the default): reset traces only the bank copy, and it must still be the
    # generator's level, field for field (float, uint32, int8 and bool leaves)
    env = glyphjax.make(task)
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(40, dtype=jnp.uint32))
    got = jax.jit(jax.vmap(env.reset))(keys)
    hard = env.default_params().hard
    assert _tree_equal(got, jax.jit(jax.vmap(env._generate, in_axes=(0, None)))(got.level, hard))
    assert len(set(np.asarray(got.level).tolist())) > 10
