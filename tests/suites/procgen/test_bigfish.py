"""Procgen bigfish on hand-placed fish: eating, being eaten, growing, winning, the sea's edge and a
golden frame; expected values from the rules in bigfish.py."""

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.core import entities
from glyphjax.suites.procgen import bigfish as bf
from glyphjax.suites.procgen.engine import fresh_state
from glyphjax.suites.procgen.planner import single_level

KEY = glyphjax.step_key(0, 0)


def _sea(you, fish=(), items=0):
    """fish: (row, col, d_col, size) each."""
    pool = entities.empty(bf.POOL)
    for r, c, d, k in fish:
        pool = entities.spawn(pool, jnp.array([r, c]), jnp.array([0, d]), k)
    s = fresh_state(jnp.zeros((bf.ROWS, bf.COLS), jnp.int8), you, 5, total=bf.GOAL, pool=pool)
    return s.replace(items=jnp.int32(items), keys=bf.your_size(jnp.int32(items)))


def _step(env, s, action):
    s, tr = env.step(KEY, s, env.card.action_index(action))
    return s, float(tr.reward), bool(tr.terminated), int(tr.event)


def test_bigfish__a_smaller_fish_met_head_on_or_by_swapping_is_eaten():
    env = glyphjax.make("procgen/bigfish")
    for fish_col in (12, 11):  # it moves to 11 as you do (same cell) / to 10 as you leave it (swap)
        s, r, term, ev = _step(env, _sea((5, 10), [(5, fish_col, -1, 0)]), "RIGHT")
        assert (term, ev, int(s.items)) == (False, bf.EV_ATE, 1) and abs(r - 1 / 30) < 1e-7
        assert not bool(s.pool.alive[0])


def test_bigfish__a_fish_as_big_as_you_eats_you():
    env = glyphjax.make("procgen/bigfish")
    s, r, term, ev = _step(env, _sea((5, 10), [(5, 12, -1, 1)]), "RIGHT")
    assert (r, term, ev) == (-1.0, True, bf.EV_EATEN)


def test_bigfish__you_grow_every_six_fish_and_the_thirtieth_wins():
    env = glyphjax.make("procgen/bigfish")
    s, r, term, ev = _step(env, _sea((5, 10), [(5, 12, -1, 0)], items=5), "RIGHT")
    assert int(s.keys) == 2 and not term
    # at 29 fish you are size 5: a size-4 fish is food, and the 30th ends the episode
    s, r, term, ev = _step(env, _sea((5, 10), [(5, 12, -1, 4)], items=29), "RIGHT")
    assert (term, ev) == (True, bf.EV_WON) and abs(r - 1 / 30) < 1e-7


def test_bigfish__the_edge_stops_you_and_fish_leave_at_the_far_side():
    env = glyphjax.make("procgen/bigfish")
    s, r, term, ev = _step(env, _sea((0, 0), [(3, 19, 1, 2)]), "UP")
    assert tuple(np.asarray(s.pos)) == (0, 0) and not bool(s.pool.alive[0]) and r == 0.0


def test_bigfish__golden_frame_and_hud():
    env = glyphjax.make("procgen/bigfish")
    text = glyphjax.render_text(env.card, env.render(_sea((1, 2), [(0, 0, 1, 3), (1, 5, -1, 0)], items=7)))
    blank = " " * 20
    assert text.grid.split("\n") == ["3" + " " * 19, "  @  0" + " " * 14] + [blank] * 10
    assert "Fish eaten: 7 / 30    Your size: 2" in text.hud


def test_bigfish__a_level_seed_gives_the_same_start_whatever_the_episode_key():
    env = glyphjax.make("procgen/bigfish-hard")
    reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
    one = reset(jax.vmap(glyphjax.reset_key)(jnp.arange(3, dtype=jnp.uint32)), single_level(env.default_params(), 4242))
    for leaf in jax.tree.leaves(one):
        assert (np.asarray(leaf) == np.asarray(leaf)[:1]).all()
    assert int(one.pool.alive[0].sum()) == 10 and set(np.asarray(one.pool.kind[0][:10]).tolist()) <= {0, 1, 2}
