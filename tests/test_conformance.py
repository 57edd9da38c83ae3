"""One conformance test run over every registered task (pgx `api_test` style).

For each task: random vmapped play over many episodes stays in bounds (return within the card's
range inside [-1, 1], length <= max_steps <= 512, finite rewards); truncation never coincides with
termination; stepping the recorded actions again, one batched step at a time, reproduces the
vmapped run bit for bit, and stepping a finished episode changes nothing; every glyph on screen has a legend entry; glyph meanings are unique
within a suite; NO_ACTION and bad action indices behave as documented; reset, step and render
each trace once (a step fed its own output state does not retrace); every state leaf, Transition
field and Frame field has a documented dtype and no weak type.

Multi-seat games (card.num_players > 1) also: under random legal self-play the legal mask is never
empty while playing, to_play is a seat, zero-sum rewards sum to 0 on every step, every seat's view
draws only legend glyphs, and perturbing one seat's private state (`perturb_private`) leaves every
other seat's whole text byte-identical.

GLYPHJAX_PROPERTY_EPISODES sets the number of random episodes per task (default 2,000); tasks
whose episodes may run past 512 turns (extended track: a WITNESS game of up to 20 levels of 300
actions, an Atari game of 10,000 turns) play the count whose random steps match 1/40 of a
standard task's (EPISODES x 512 / 40 / max_steps), at least 64, so their random runs cost about
a standard task's while a 10,000-turn horizon does not multiply the cost by 20. An env whose steps are expensive (a large engine such as Craftax, a few thousand steps
per CPU-second) may cap its count with an integer attribute `conformance_episodes`, and the batch
of the batched checks with `conformance_batch` (>= 8); its full range check then lives in the
suite's own certify command.
"""

from __future__ import annotations

import collections
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.rollout import random_policy
from glyphjax.core.packed import FrameLayout, pack_frame, unpack_frames
from glyphjax.render.text import (glyph_presence, hud_strings, observation_strings, observation_text, render_batch,
                                  render_text)
from tests.seat_checks import hidden_information_leaks, multi_seat_ids, random_legal_play, seat_render

EPISODES = int(os.environ.get("GLYPHJAX_PROPERTY_EPISODES", "2000"))
ALL = glyphjax.all_ids()
LONG_MIN_EPISODES = 64  # random episodes of a task whose episodes may run past 512 turns, at least
BATCH = 64  # one batch size for every batched check, so each task compiles its programs once
MULTI_SEAT = multi_seat_ids()
# Documented dtypes of state leaves: bool, int32, uint32, float32, and narrow integers for compact
# storage (Snake's body, Ski's course). No 64-bit or half-precision leaves, no weak types.
STATE_DTYPES = {np.dtype(d) for d in ("bool", "int8", "int16", "uint8", "uint16", "int32", "uint32", "float32")}


def batch_for(env) -> int:
    """Batch of the batched checks: BATCH, or less for an env with an expensive step."""
    return max(8, min(BATCH, getattr(env, "conformance_batch", BATCH)))


def episodes_for(env) -> int:
    steps = env.card.max_steps
    n = EPISODES if steps <= 512 else max(LONG_MIN_EPISODES, EPISODES * 512 // (40 * steps))
    cap = getattr(env, "conformance_episodes", None)
    return n if cap is None else min(n, cap)


def _random_results(env):
    seeds = jnp.arange(episodes_for(env), dtype=jnp.uint32)
    return glyphjax.rollout(env, random_policy(env.card.num_actions), seeds, record_actions=True)


class Batched:
    """Jitted batched reset / step(+render) / render of one program, bound to one task's params:
    compiled once per `Env.program` and shared by the checks of every task of that program
    (compile time dominates these tests on a small CPU)."""

    _programs: dict = {}  # env.program -> (jitted fns taking params, trace counter)

    def __init__(self, env):
        params = env.default_params()
        if env.program not in Batched._programs:
            Batched._programs[env.program] = self._compile(env)
        (reset, render, render_seat, step), self.traces = Batched._programs[env.program]
        self.reset = lambda seeds: reset(seeds, params)
        self.render = lambda states: render(states, params)
        self.render_seat = lambda states, seat: render_seat(states, seat, params)
        self.step = lambda seeds, t, states, actions: step(seeds, t, states, actions, params)

    @staticmethod
    def _compile(env):
        traces = collections.Counter()  # how often each program was traced

        def reset(seeds, params):
            traces["reset"] += 1
            return jax.vmap(lambda s: env.reset(glyphjax.reset_key(s), params))(seeds)

        def render(states, params):
            traces["render"] += 1
            return jax.vmap(lambda s: env.render(s, params))(states)

        def render_seat(states, seat, params):
            traces["render_seat"] += 1
            return jax.vmap(lambda s: env.render(s, params, seat))(states)

        n_actions = env.card.num_actions

        def step(seeds, t, states, actions, params):
            """Step every env at turn t; actions < -1 are replaced by uniformly random ones."""
            traces["step"] += 1
            keys = jax.vmap(lambda s: glyphjax.step_key(s, t))(seeds)
            rand = jax.vmap(lambda s: jax.random.randint(glyphjax.step_key(s + 7777, t), (), 0, n_actions))(seeds)
            actions = jnp.where(actions < -1, rand, actions)

            def one(k, s, a):
                s, tr = env.step(k, s, a, params)
                return s, tr, env.render(s, params)
            return jax.vmap(one)(keys, states, actions)
        return tuple(jax.jit(f) for f in (reset, render, render_seat, step)), traces


@pytest.fixture(scope="module")
def batched(task_id):
    return Batched(glyphjax.make(task_id))


PROGRAM_OF = {t: first for first, ids in glyphjax.programs(ALL).items() for t in ids}


@pytest.fixture(scope="module", params=[pytest.param(t, marks=pytest.mark.xdist_group(PROGRAM_OF[t])) for t in ALL])
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
    bad = np.argwhere((r.returns < lo - 1e-5) | (r.returns > hi + 1e-5))  # [seed] or [seed, seat]
    assert bad.size == 0, f"{task_id}: seed/seat {bad[0].tolist()} returned {r.returns[tuple(bad[0])]} outside {card.return_range}"
    if card.zero_sum:
        assert np.abs(r.returns.sum(axis=1)).max() < 1e-5, f"{task_id}: zero-sum returns do not sum to 0"
    assert card.max_steps <= 512 or card.track == glyphjax.EXTENDED
    assert (r.lengths >= 1).all() and (r.lengths <= card.max_steps).all()
    assert not (r.terminated & r.truncated).any(), f"{task_id}: terminated and truncated together"
    assert (r.terminated | r.truncated).all(), f"{task_id}: an episode neither ended nor truncated"
    # truncation happens exactly at max_steps
    assert (r.lengths[r.truncated] == card.max_steps).all()
    # actions recorded until the episode ended, -1 afterwards
    played = (r.actions >= 0).sum(axis=1)
    np.testing.assert_array_equal(played, r.lengths)


def test_task__stepping_the_recorded_actions_reproduces_the_run_and_a_finished_episode_is_frozen(
        task_id, results, batched):
    """The vmapped scan's episodes, stepped again one jitted batched step at a time from the host
    (another program: step + render, driven as `EpisodeStepper` drives it), pay the same rewards
    bit for bit and end on the same turn the same way; then stepping every finished episode with
    any action changes no state leaf, pays nothing and raises no flag."""
    env = glyphjax.make(task_id)
    r = results
    n = min(batch_for(env), len(r.lengths))
    seeds = jnp.arange(n, dtype=jnp.uint32)
    state = batched.reset(seeds)
    ret = np.zeros_like(r.returns[:n])  # float32, [n] or [n, seats]
    length, term, trunc = np.zeros(n, np.int64), np.zeros(n, bool), np.zeros(n, bool)
    stepped = []
    for t in range(int(r.lengths[:n].max())):
        state, tr, _ = batched.step(seeds, t, state, jnp.asarray(r.actions[:n, t]))
        stepped.append(tr)
    for t, tr in enumerate(jax.device_get(stepped)):  # one copy to the host, after the loop
        ret = (ret + tr.reward).astype(np.float32)  # the scan's summation order
        ended = tr.terminated | tr.truncated
        length = np.where(ended & (length == 0), t + 1, length)
        term, trunc = term | tr.terminated, trunc | tr.truncated
    np.testing.assert_array_equal(ret, r.returns[:n], err_msg=f"{task_id}: returns differ from the vmapped run")
    np.testing.assert_array_equal(length, r.lengths[:n], err_msg=f"{task_id}: episodes end on other turns")
    np.testing.assert_array_equal(term, r.terminated[:n], err_msg=f"{task_id}: terminated flags differ")
    np.testing.assert_array_equal(trunc, r.truncated[:n], err_msg=f"{task_id}: truncated flags differ")
    assert bool(jnp.all(state.done)), f"{task_id}: episodes still running after their recorded end"
    actions = jnp.arange(n, dtype=jnp.int32) % env.card.num_actions
    again, tr, _ = batched.step(seeds, 999, state, actions)
    for a, b in zip(jax.tree.leaves(state), jax.tree.leaves(again)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=task_id)
    assert not bool(jnp.any(tr.reward != 0)) and not bool(jnp.any(tr.terminated | tr.truncated))


def test_task__every_glyph_on_screen_is_in_the_legend(task_id, batched):
    env = glyphjax.make(task_id)
    card = env.card
    n, turns = batch_for(env), min(card.max_steps, 128)
    seeds = jnp.arange(n, dtype=jnp.uint32)
    state = batched.reset(seeds)
    first = jax.device_get(batched.render(state))
    grids, huds = [first.grid], [first.hud]
    random_actions = jnp.full((n,), -2, jnp.int32)
    for t in range(turns):
        state, _, frames = batched.step(seeds, t, state, random_actions)
        frames = jax.device_get(frames)
        grids.append(frames.grid)
        huds.append(frames.hud)
        if bool(jnp.all(state.done)):  # restart everything from fresh seeds (cheap, rare)
            seeds = seeds + jnp.uint32(n)
            state = batched.reset(seeds)
    grids = np.concatenate(grids)
    present = glyph_presence(card, grids)  # raises on an unknown glyph
    assert present.any(axis=1).all()
    huds = np.concatenate(huds)
    hud_strings(card, huds[:: max(1, len(huds) // 500)])  # the template formats every field
    # the text legend lists exactly the glyphs drawn
    batch = jax.tree.map(lambda x: x[:8], first)
    for obs, grid in zip(render_batch(card, batch), batch.grid):
        listed = {line.split(" — ")[0] for line in obs.legend.splitlines()}
        drawn = {chr(c) for c in np.unique(grid)}
        assert listed == drawn, f"{task_id}: legend {sorted(listed)} vs drawn {sorted(drawn)}"


def test_task__single_frame_text_and_packed_frames_equal_the_batched_text(task_id, batched):
    """`render_text` and `observation_text` (the single-frame host paths), `observation_strings`
    (the batched strings) and frames sent through `pack_frame` / `unpack_frames` (one device copy)
    give byte for byte the text `render_batch` gives."""
    env = glyphjax.make(task_id)
    card = env.card
    n = batch_for(env)
    seeds = jnp.arange(n, dtype=jnp.uint32)
    state = batched.reset(seeds)
    frames = [jax.device_get(batched.render(state))]
    for t in range(3):
        state, _, stepped = batched.step(seeds, t, state, jnp.full((n,), -2, jnp.int32))
        frames.append(jax.device_get(stepped))
    rows = np.arange(0, n, n // 8)  # 8 episodes, each at a different turn
    picked = jax.tree.map(lambda *xs: np.stack([xs[i % 4][r] for i, r in enumerate(rows)]), *frames)
    batch_text = [o.render() for o in render_batch(card, picked)]
    layout = FrameLayout(*picked.grid.shape[1:], picked.hud.shape[1])
    unpacked = unpack_frames(np.asarray(jax.vmap(pack_frame)(picked)), layout)
    assert observation_strings(card, picked) == batch_text, f"{task_id}: observation_strings differ"
    assert observation_strings(card, unpacked) == batch_text, f"{task_id}: packed observation_strings differ"
    for i, want in enumerate(batch_text):
        one = jax.tree.map(lambda x: x[i], picked)
        assert render_text(card, one).render() == want, f"{task_id}: frame {i}: single-frame text differs"
        assert observation_text(card, one) == want, f"{task_id}: frame {i}: observation_text differs"
        packed_one = jax.tree.map(lambda x: x[i], unpacked)
        assert render_text(card, packed_one).render() == want, f"{task_id}: frame {i}: text of the packed frame differs"
        assert observation_text(card, packed_one) == want, f"{task_id}: frame {i}: observation_text of the packed frame differs"


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


def test_task__no_action_and_bad_indices(task_id, batched):
    env = glyphjax.make(task_id)
    n = batch_for(env)
    seeds = jnp.arange(3, 3 + n, dtype=jnp.uint32)
    states = batched.reset(seeds)
    states2, tr, _ = batched.step(seeds, 0, states, jnp.full((n,), glyphjax.NO_ACTION, jnp.int32))
    assert (np.asarray(states2.t) == 1).all() and np.isfinite(np.asarray(tr.reward)).all()
    state = jax.tree.map(lambda x: x[0], states)
    with pytest.raises(ValueError, match="out of range"):
        env.step(glyphjax.step_key(3, 0), state, env.card.num_actions)
    with pytest.raises(ValueError, match="out of range"):
        env.step(glyphjax.step_key(3, 0), state, -2)


def _check_dtypes(task_id, what, tree, allowed):
    for path, leaf in jax.tree_util.tree_leaves_with_path(tree):
        where = f"{task_id}: {what}{jax.tree_util.keystr(path)}"
        assert np.dtype(leaf.dtype) in allowed, f"{where} has dtype {leaf.dtype}"
        assert not getattr(leaf, "weak_type", False), f"{where} is weakly typed ({leaf.dtype})"


def test_task__one_trace_per_program_and_documented_dtypes(task_id, batched):
    env = glyphjax.make(task_id)
    card = env.card
    seats = range(card.num_players) if card.num_players > 1 else ()
    n = batch_for(env)
    seeds_a = jnp.arange(n, dtype=jnp.uint32)
    seeds_b = seeds_a + jnp.uint32(5000)
    # Counted from here: the session's map-count guard (tests/conftest.py) may have dropped the
    # compiled programs since this module-scoped fixture first ran, and then one retrace is due.
    before = dict(batched.traces)
    state_a = batched.reset(seeds_a)
    state1, tr, frame = batched.step(seeds_a, 0, state_a, jnp.full((n,), -2, jnp.int32))
    batched.render(state1)
    for seat in seats[:1]:
        batched.render_seat(state1, jnp.int32(seat))
    first = dict(batched.traces)
    # other seeds, the step's own output, another turn index and every seat: nothing retraces
    state_b = batched.reset(seeds_b)
    state2, _, _ = batched.step(seeds_b, 1, state1, jnp.zeros((n,), jnp.int32))
    frame_a, _ = batched.render(state_b), batched.render(state2)
    for seat in seats:
        batched.render_seat(state2, jnp.int32(seat))
    want = {"reset", "step", "render"} | ({"render_seat"} if seats else set())
    assert set(batched.traces) == want, f"{task_id}: traced {sorted(batched.traces)}, want {sorted(want)}"
    assert dict(batched.traces) == first, f"{task_id}: retraced {dict(batched.traces)} after {first}"
    new = {k: first[k] - before.get(k, 0) for k in first}
    assert max(new.values()) <= 1, f"{task_id}: traces {new} in one pass, want at most one per program"
    for what, state in (("reset state", state_a), ("step state", state2)):
        _check_dtypes(task_id, what, state, STATE_DTYPES)
    reward_shape = (n, card.num_players) if card.num_players > 1 else (n,)
    assert tr.reward.shape == reward_shape, f"{task_id}: reward shape {tr.reward.shape}, want {reward_shape}"
    for name, kind in (("reward", "float32"), ("terminated", "bool"), ("truncated", "bool"), ("event", "int32")):
        _check_dtypes(task_id, f"Transition.{name}", getattr(tr, name), {np.dtype(kind)})
    for f in (frame, frame_a):
        for name, kind in (("grid", "uint32"), ("hud", "int32"), ("event", "int32"), ("seat", "int32")):
            _check_dtypes(task_id, f"Frame.{name}", getattr(f, name), {np.dtype(kind)})
        assert f.grid.ndim == 3 and f.hud.shape == (n, 1 + len(card.hud_fields)) and f.seat.shape == (n,)


@pytest.mark.parametrize("game_id", [pytest.param(t, marks=pytest.mark.xdist_group(t)) for t in MULTI_SEAT])
def test_multi_seat__random_legal_play_keeps_the_seat_contract(game_id):
    env = glyphjax.make(game_id)
    card = env.card
    turns = (0, 1, 2, 3, 6, 11)
    play = random_legal_play(env, jnp.arange(BATCH, dtype=jnp.uint32), sample_turns=turns)
    seed = np.flatnonzero(play.empty_mask)
    assert seed.size == 0, f"{game_id}: seed {seed[:1]} met an empty legal mask while playing"
    assert not play.bad_to_play.any(), f"{game_id}: to_play outside 0..{card.num_players - 1}"
    if card.zero_sum:
        assert play.max_abs_sum.max() < 1e-6, f"{game_id}: rewards sum to {play.max_abs_sum.max()} on a step"
    assert play.decided.any(), f"{game_id}: no episode of random legal play paid a reward"
    states = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), play.states)
    for seat in range(card.num_players):
        frames = jax.device_get(seat_render(env)(states, jnp.int32(seat), env.default_params()))
        assert (frames.seat == seat).all()
        glyph_presence(card, frames.grid)  # raises on a glyph without a legend entry
        render_batch(card, jax.tree.map(lambda x: x[:4], frames))  # HUD and message format
    if env.perturb_private is not None:
        assert hidden_information_leaks(env, states, jax.random.PRNGKey(1)) == []
