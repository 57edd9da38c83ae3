"""core.packed: one-copy frames and fused turns reproduce the unpacked path exactly."""

from __future__ import annotations

import numpy as np
import pytest

import glyphjax
from glyphjax.core.packed import EpisodeStepper, FrameLayout, frame_layout, start_program, turn_program, unpack_frames


@pytest.mark.parametrize("task_id", ["classics/snake-easy", "classics/connectfour"])
def test_episode_stepper__frames_rewards_and_flags_equal_replay(task_id):
    env = glyphjax.make(task_id)
    rng = np.random.default_rng(1)
    actions = rng.integers(-1, env.card.num_actions, 40).tolist()
    episode = EpisodeStepper(env, seed=7)
    frames, outcomes = [episode.frame], []
    for a in actions:
        if episode.done:
            break
        outcomes.append(episode.step(a))
        frames.append(episode.frame)
    want_frames, want = glyphjax.replay(env, 7, actions[:len(outcomes)])
    for t, frame in enumerate(frames):
        for part in ("grid", "hud", "event"):
            np.testing.assert_array_equal(getattr(frame, part), getattr(want_frames, part)[t],
                                          err_msg=f"{task_id} turn {t}: {part}")
    for t, out in enumerate(outcomes):
        np.testing.assert_array_equal(out.reward, want.reward[t], err_msg=f"{task_id} turn {t}: reward")
        assert (out.terminated, out.truncated) == (bool(want.terminated[t]), bool(want.truncated[t])), (
            f"{task_id} turn {t}: flags")
    ended = outcomes[-1].terminated or outcomes[-1].truncated
    assert episode.done == ended


def test_episode_stepper__bad_action_raises_the_env_error():
    env = glyphjax.make("classics/snake-easy")
    with pytest.raises(ValueError, match="out of range"):
        EpisodeStepper(env, seed=0).step(env.card.num_actions)


def test_unpack_frames__wrong_width_names_the_layout():
    layout = frame_layout(glyphjax.make("classics/snake-easy"))
    assert layout == FrameLayout(10, 10, 3)
    with pytest.raises(ValueError, match="needs 105"):
        unpack_frames(np.zeros((2, 104), np.uint32), layout)


@pytest.mark.parametrize("task_id", ["classics/snake-easy", "minigrid/doorkey-5x5"])
def test_episode_stepper__one_compile_for_every_episode_and_turn(task_id):
    """New episodes (other seeds) and turns (other actions, NO_ACTION, numpy or Python ints)
    reuse the one start and one turn program: no retracing per call."""
    env = glyphjax.make(task_id)
    for seed in (0, 1, 2**31 + 5):
        episode = EpisodeStepper(env, seed=seed)
        for a in (0, np.int64(1), -1, env.card.num_actions - 1):
            if not episode.done:
                episode.step(a)
    assert start_program(env)._cache_size() == 1
    assert turn_program(env)._cache_size() == 1
