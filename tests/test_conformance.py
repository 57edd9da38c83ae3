"""One conformance test run over every registered task (pgx `api_test` style).

For each task: random vmapped play over many episodes stays in bounds (return within the card's
range inside [-1, 1], length <= max_steps <= 512, finite rewards); truncation never coincides with
termination; stepping a finished episode changes nothing; replaying recorded actions reproduces
the vmapped run bit for bit; every glyph on screen has a legend entry; glyph meanings are unique
within a suite; NO_ACTION and bad action indices behave as documented.

GLYPHJAX_PROPERTY_EPISODES sets the number of random episodes per task (default 10,000).
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.rollout import AutoReset, random_policy, replay
from glyphjax.render.text import glyph_presence, hud_strings, render_batch

EPISODES = int(os.environ.get("GLYPHJAX_PROPERTY_EPISODES", "10000"))
ALL = glyphjax.all_ids()


def _random_results(env):
    seeds = jnp.arange(EPISODES, dtype=jnp.uint32)
    return glyphjax.rollout(env, random_policy(env.card.num_actions), seeds, record_actions=True)


@pytest.fixture(scope="module", params=ALL)
def task_id(request):
    """Module-scoped so pytest runs all checks of one task together (one random run per task)."""
    return request.param


@pytest.fixture(scope="module")
def results(task_id):
    return jax.device_get(_random_results(glyphjax.make(task_id)))


def test_task__random_play_stays_in_bounds(task_id, results):
    env = glyphjax.make(task_id)
    card = env.card
    r = results
    lo, hi = card.return_range
    assert -1.0 <= lo <= hi <= 1.0, f"{task_id}: declared return range {card.return_range}"
    assert np.isfinite(r.returns).all(), f"{task_id}: non-finite return"
    bad = np.flatnonzero((r.returns < lo - 1e-5) | (r.returns > hi + 1e-5))
    assert bad.size == 0, f"{task_id}: seed {bad[0]} returned {r.returns[bad[0]]} outside {card.return_range}"
    assert card.max_steps <= 512 or card.track == glyphjax.EXTENDED
    assert (r.lengths >= 1).all() and (r.lengths <= card.max_steps).all()
    assert not (r.terminated & r.truncated).any(), f"{task_id}: terminated and truncated together"
    assert (r.terminated | r.truncated).all(), f"{task_id}: an episode neither ended nor truncated"
    # truncation happens exactly at max_steps
    assert (r.lengths[r.truncated] == card.max_steps).all()
    # actions recorded until the episode ended, -1 afterwards
    played = (r.actions >= 0).sum(axis=1)
    np.testing.assert_array_equal(played, r.lengths)


def test_task__replay_matches_vmapped_run_bit_for_bit(task_id, results):
    env = glyphjax.make(task_id)
    r = results
    for seed in (0, 1, EPISODES - 1):
        actions = r.actions[seed][: r.lengths[seed]]
        frames_a, trans_a = replay(env, seed, actions)
        frames_b, trans_b = replay(env, seed, actions)
        for a, b in zip(jax.tree.leaves((frames_a, trans_a)), jax.tree.leaves((frames_b, trans_b))):
            np.testing.assert_array_equal(a, b, err_msg=f"{task_id} seed {seed}")
        ret = np.float32(0)
        for reward in trans_a.reward:  # same summation order as the scan in rollout
            ret = np.float32(ret + reward)
        assert ret == r.returns[seed], f"{task_id} seed {seed}: replay {ret} vs vmapped {r.returns[seed]}"
        ended = trans_a.terminated[-1] | trans_a.truncated[-1]
        assert bool(np.all(ended)), f"{task_id} seed {seed}: replay did not end where the run did"


def test_task__finished_episode_is_frozen(task_id):
    env = glyphjax.make(task_id)
    params = env.default_params()
    n = 64
    seeds = jnp.arange(n, dtype=jnp.uint32)
    pol = random_policy(env.card.num_actions)

    @jax.jit
    def play_out(seeds):
        def one(seed):
            state = env.reset(glyphjax.reset_key(seed), params)

            def body(t, s):
                a = pol(jax.random.fold_in(jax.random.PRNGKey(7), t), s, params)
                return env.step(glyphjax.step_key(seed, t), s, a, params)[0]
            return jax.lax.fori_loop(0, env.card.max_steps, body, state)
        return jax.vmap(one)(seeds)

    final = play_out(seeds)
    assert bool(jnp.all(final.done))
    actions = jnp.arange(n, dtype=jnp.int32) % env.card.num_actions
    keys = jax.vmap(lambda s: glyphjax.step_key(s, 999))(seeds)
    again, tr = jax.jit(jax.vmap(lambda k, s, a: env.step(k, s, a, params)))(keys, final, actions)
    for a, b in zip(jax.tree.leaves(final), jax.tree.leaves(again)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=task_id)
    assert not bool(jnp.any(tr.reward != 0)) and not bool(jnp.any(tr.terminated | tr.truncated))


def test_task__every_glyph_on_screen_is_in_the_legend(task_id):
    env = glyphjax.make(task_id)
    card = env.card
    params = env.default_params()
    wrapped = AutoReset(env)
    n, turns = 128, min(card.max_steps, 96)
    pol = random_policy(card.num_actions)

    @jax.jit
    def frames(seeds):
        def one(seed):
            s0 = wrapped.reset(seed, params)

            def body(s, t):
                a = pol(glyphjax.step_key(seed + 12345, t), s.env_state, params)
                s, _, frame = wrapped.step(s, a, params)
                return s, frame
            first = env.render(s0.env_state, params)
            _, fs = jax.lax.scan(body, s0, jnp.arange(turns))
            return first, fs
        return jax.vmap(one)(seeds)

    first, fs = jax.device_get(frames(jnp.arange(n, dtype=jnp.uint32)))
    grids = np.concatenate([first.grid[:, None], fs.grid], axis=1)
    h, w = grids.shape[-2:]
    present = glyph_presence(card, grids.reshape(-1, h, w))  # raises on an unknown glyph
    assert present.any(axis=1).all()
    huds = np.concatenate([first.hud[:, None], fs.hud], axis=1).reshape(-1, first.hud.shape[-1])
    hud_strings(card, huds[:: max(1, len(huds) // 500)])  # the template formats every field
    # the text legend lists exactly the glyphs drawn
    batch = jax.tree.map(lambda x: x[:8], first)
    for obs, grid in zip(render_batch(card, batch), batch.grid):
        listed = {line.split(" — ")[0] for line in obs.legend.splitlines()}
        drawn = {chr(c) for c in np.unique(grid)}
        assert listed == drawn, f"{task_id}: legend {sorted(listed)} vs drawn {sorted(drawn)}"


@pytest.mark.parametrize("suite", glyphjax.suite_names())
def test_suite__no_glyph_has_two_meanings(suite):
    meanings: dict[str, tuple[str, str]] = {}
    for task_id in glyphjax.task_ids(suite=suite):
        for glyph, meaning in glyphjax.make(task_id).card.glyphs.items():
            if glyph in meanings:
                assert meanings[glyph][0] == meaning, (
                    f"{suite}: {glyph!r} means {meanings[glyph][0]!r} in {meanings[glyph][1]} "
                    f"but {meaning!r} in {task_id}")
            else:
                meanings[glyph] = (meaning, task_id)


def test_task__no_action_and_bad_indices(task_id):
    env = glyphjax.make(task_id)
    state = env.reset(glyphjax.reset_key(3))
    state2, tr = env.step(glyphjax.step_key(3, 0), state, glyphjax.NO_ACTION)
    assert int(state2.t) == 1 and np.isfinite(float(np.sum(tr.reward)))
    with pytest.raises(ValueError, match="out of range"):
        env.step(glyphjax.step_key(3, 0), state, env.card.num_actions)
    with pytest.raises(ValueError, match="out of range"):
        env.step(glyphjax.step_key(3, 0), state, -2)
