"""Flood Fill: recolour rule, reward shares, golden board, budget certification on 1,000 seeds."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import ndimage

import glyphjax
from glyphjax.core.types import init_state_fields
from glyphjax.suites.classics.floodfill import FloodState

IDS = ["classics/floodfill-easy", "classics/floodfill-hard"]


def host_region(colours, region):
    """Cells 4-connected to (0, 0) within region | same colour as (0, 0) (scipy labelling)."""
    lab, _ = ndimage.label(region | (colours == colours[0, 0]))
    return lab == lab[0, 0]


def host_greedy(colours, budget):
    """Independent greedy solver: moves to fill the board (None if not within budget)."""
    colours = colours.copy()
    region = host_region(colours, np.zeros_like(colours, bool))
    for move in range(budget + 1):
        if region.all():
            return move
        best, best_c = -1, 0
        for c in range(6):
            trial = np.where(region, c, colours)
            size = host_region(trial, region).sum()
            if size > best:
                best, best_c = size, c
        colours = np.where(region, best_c, colours)
        region = host_region(colours, region)
    return None


def state_from(rows):
    colours = np.array([[int(ch) for ch in row] for row in rows])
    region = host_region(colours, np.zeros_like(colours, bool))
    return FloodState(**init_state_fields(), colours=jnp.asarray(colours, jnp.int32), region=jnp.asarray(region),
                      to_absorb=jnp.int32(colours.size - region.sum()))


@pytest.mark.parametrize("task_id", IDS)
def test_floodfill__every_board_is_fillable_within_budget_on_1000_seeds(task_id):
    env = glyphjax.make(task_id)
    st = jax.device_get(jax.jit(jax.vmap(env.reset))(
        jax.vmap(glyphjax.reset_key)(jnp.arange(1000, dtype=jnp.uint32))))
    budget = env.card.max_steps
    worst = 0
    for seed in range(1000):
        colours = np.asarray(st.colours[seed])
        assert colours.min() >= 0 and colours.max() < 6
        region = host_region(colours, np.zeros_like(colours, bool))
        np.testing.assert_array_equal(np.asarray(st.region[seed]), region, err_msg=f"{task_id} seed {seed}")
        assert int(st.to_absorb[seed]) == colours.size - region.sum() > 0
        k = host_greedy(colours, budget)
        assert k is not None, f"{task_id} seed {seed}: greedy did not fill the board in {budget} moves"
        worst = max(worst, k)
    assert worst <= budget


def test_floodfill__recolour_absorbs_neighbours_and_pays_share():
    env = glyphjax.make("classics/floodfill-easy")
    s = state_from(["0011", "0012", "2222", "3333"])  # region = four 0s, 12 cells to absorb
    s1, tr = env.step(glyphjax.step_key(0, 0), s, jnp.int32(1))
    # the 0s become 1 and absorb the three 1s -> 7 cells
    assert int(s1.region.sum()) == 7 and float(tr.reward) == pytest.approx(3 / 12)
    s2, tr = env.step(glyphjax.step_key(0, 1), s1, jnp.int32(1))  # same colour: nothing
    assert int(s2.region.sum()) == 7 and float(tr.reward) == 0.0
    board = glyphjax.render_text(env.card, env.render(s1)).grid
    assert board == ("①①①①\n"
                     "①①①②\n"
                     "②②②②\n"
                     "③③③③")
    s3, tr = env.step(glyphjax.step_key(0, 2), s2, jnp.int32(2))
    assert int(s3.region.sum()) == 12 and float(tr.reward) == pytest.approx(5 / 12)
    s4, tr = env.step(glyphjax.step_key(0, 3), s3, jnp.int32(3))
    assert bool(tr.terminated) and int(tr.event) == 1 and float(tr.reward) == pytest.approx(4 / 12)
    assert glyphjax.render_text(env.card, env.render(s4)).grid == "③③③③\n" * 3 + "③③③③"


@pytest.mark.parametrize("task_id", IDS)
def test_floodfill__greedy_policy_fills_within_budget_with_return_one(task_id):
    env = glyphjax.make(task_id)
    res = jax.device_get(glyphjax.rollout(env, env.scripted_policy, jnp.arange(32, dtype=jnp.uint32)))
    assert res.terminated.all(), f"{task_id}: greedy missed seeds {np.flatnonzero(~res.terminated)}"
    np.testing.assert_allclose(res.returns, 1.0, atol=1e-5)


def test_floodfill__jax_greedy_counts_equal_host_greedy():
    from glyphjax.suites.classics.floodfill import greedy_moves
    rng = np.random.default_rng(7)
    for n, budget in ((8, 25), (12, 20)):  # budget 20 on 12x12: some boards fail within it
        boards = rng.integers(0, 6, (150, n, n))
        got = np.asarray(jax.jit(jax.vmap(lambda b: greedy_moves(b, budget)))(jnp.asarray(boards, jnp.int32)))
        for i, b in enumerate(boards):
            want = host_greedy(b, budget)
            assert got[i] == (budget + 1 if want is None else want), f"n={n} board {i}"
