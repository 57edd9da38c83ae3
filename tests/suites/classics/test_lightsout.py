"""Lights Out: press rule, rewards, golden board, and solver certification on 1,000 seeds."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.types import init_state_fields
from glyphjax.suites.classics.lightsout import LightsOutState

IDS = ["classics/lightsout-easy", "classics/lightsout-hard"]


def chase_solve(lights):
    """Independent solver ("light chasing"): try every first-row press pattern, then press below
    each lit cell row by row; a pattern that leaves the last row dark is a solution.
    Returns the fewest presses found, or None if the board is unsolvable."""
    n = lights.shape[0]
    best = None
    for first in itertools.product((0, 1), repeat=n):
        b = lights.astype(np.uint8).copy()
        presses = np.zeros((n, n), np.uint8)
        presses[0] = first
        for r in range(n):
            if r > 0:
                presses[r] = b[r - 1]
            for c in np.nonzero(presses[r])[0]:
                for dr, dc in ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)):
                    rr, cc = r + dr, c + dc
                    if 0 <= rr < n and 0 <= cc < n:
                        b[rr, cc] ^= 1
        if not b.any():
            k = int(presses.sum())
            best = k if best is None else min(best, k)
    return best


def state_from(rows):
    lights = np.array([[ch == "1" for ch in row] for row in rows])
    return LightsOutState(**init_state_fields(), lights=jnp.asarray(lights), presses=jnp.int32(0))


@pytest.mark.parametrize("task_id", IDS)
def test_lightsout__every_start_is_solvable_on_1000_seeds(task_id):
    env = glyphjax.make(task_id)
    states = jax.jit(jax.vmap(env.reset))(jax.vmap(glyphjax.reset_key)(jnp.arange(1000, dtype=jnp.uint32)))
    lights = np.asarray(states.lights)
    sols = jax.device_get(jax.jit(jax.vmap(env.solution))(states.lights))
    for seed in range(1000):
        assert lights[seed].any(), f"{task_id} seed {seed}: starts already solved"
        k = chase_solve(lights[seed])
        assert k is not None, f"{task_id} seed {seed}: unsolvable start"
        assert k < env.card.max_steps
        # the module's GF(2) solver (used by the scripted policy) agrees on the optimum
        assert int(sols[seed].sum()) == k, f"{task_id} seed {seed}: module solution {sols[seed].sum()} vs {k}"


def test_lightsout__press_toggles_cell_and_neighbours_with_cost():
    env = glyphjax.make("classics/lightsout-easy")
    s = state_from(["00000", "00000", "00000", "00000", "00001"])
    s2, tr = env.step(glyphjax.step_key(0, 0), s, jnp.int32(0))  # corner: 3 cells toggle
    expect = np.zeros((5, 5), bool)
    expect[0, 0] = expect[0, 1] = expect[1, 0] = True
    expect[4, 4] = True
    np.testing.assert_array_equal(np.asarray(s2.lights), expect)
    assert float(tr.reward) == pytest.approx(-1 / 100) and not bool(tr.terminated)
    s3, tr = env.step(glyphjax.step_key(0, 1), s2, jnp.int32(-1))
    np.testing.assert_array_equal(np.asarray(s3.lights), expect)
    assert float(tr.reward) == 0.0


def test_lightsout__golden_boards_and_win_pays_one():
    env = glyphjax.make("classics/lightsout-easy")
    # the "plus" pattern of pressing the centre, plus the corner pattern of pressing cell 24
    s = state_from(["00000", "00100", "01110", "00101", "00011"])
    board = glyphjax.render_text(env.card, env.render(s)).grid
    assert board == ("  01234\n"
                     "0 ○○○○○\n"
                     "1 ○○◉○○\n"
                     "2 ○◉◉◉○\n"
                     "3 ○○◉○◉\n"
                     "4 ○○○◉◉")
    s, tr = env.step(glyphjax.step_key(0, 0), s, jnp.int32(12))
    assert glyphjax.render_text(env.card, env.render(s)).grid == ("  01234\n"
                                                                  "0 ○○○○○\n"
                                                                  "1 ○○○○○\n"
                                                                  "2 ○○○○○\n"
                                                                  "3 ○○○○◉\n"
                                                                  "4 ○○○◉◉")
    assert float(tr.reward) == pytest.approx(-0.01)
    s, tr = env.step(glyphjax.step_key(0, 1), s, jnp.int32(24))
    assert bool(tr.terminated) and float(tr.reward) == 1.0 and int(tr.event) == 1


@pytest.mark.parametrize("task_id", IDS)
def test_lightsout__scripted_policy_solves_optimally(task_id):
    env = glyphjax.make(task_id)
    seeds = jnp.arange(20, dtype=jnp.uint32)
    res = jax.device_get(glyphjax.rollout(env, env.scripted_policy, seeds))
    states = jax.vmap(env.reset)(jax.vmap(glyphjax.reset_key)(seeds))
    for i in range(20):
        k = chase_solve(np.asarray(states.lights[i]))
        assert bool(res.terminated[i]) and res.lengths[i] == k, f"{task_id} seed {i}: {res.lengths[i]} vs {k}"
        assert res.returns[i] == pytest.approx(1 - (k - 1) / env.card.max_steps, abs=1e-5)
