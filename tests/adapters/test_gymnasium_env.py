"""The Gymnasium adapter plays exactly our episodes: same seed and actions, same text, rewards
and flags as `glyphjax.replay`; the spaces hold what the adapter returns."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import glyphjax
from glyphjax.adapters.gymnasium_env import GENERIC_ID, gym_id, register_envs


def _adapter_episode(env: gymnasium.Env, seed: int, actions: list[int]):
    """Play `actions` from reset(seed) until the episode ends; observations, steps, infos."""
    obs, info = env.reset(seed=seed)
    observations, infos, steps = [obs], [info], []
    for a in actions:
        obs, reward, terminated, truncated, info = env.step(a)
        observations.append(obs)
        infos.append(info)
        steps.append((reward, terminated, truncated))
        if terminated or truncated:
            break
    return observations, infos, steps


@pytest.mark.parametrize("task_id,seed", [("classics/snake-easy", 11), ("dummy/arrow-4", 5)])
def test_gymnasium_episode__equals_glyphjax_replay(task_id, seed):
    env = gymnasium.make(gym_id(task_id))
    card = glyphjax.make(task_id).card
    actions = np.random.default_rng(seed).integers(0, card.num_actions, card.max_steps).tolist()
    observations, infos, steps = _adapter_episode(env, seed, actions)
    n = len(steps)
    frames, trans = glyphjax.replay(glyphjax.make(task_id), seed, actions[:n])
    expected = [glyphjax.render_text(card, glyphjax.Frame(frames.grid[i], frames.hud[i], frames.event[i])).render()
                for i in range(n + 1)]
    assert observations == expected
    np.testing.assert_array_equal([s[0] for s in steps], np.asarray(trans.reward, np.float32))
    assert [s[1] for s in steps] == np.asarray(trans.terminated).tolist()
    assert [s[2] for s in steps] == np.asarray(trans.truncated).tolist()
    assert steps[-1][1] or steps[-1][2], f"{task_id} seed {seed}: episode did not end within {len(actions)} actions"
    for i, info in enumerate(infos):
        np.testing.assert_array_equal(info["grid"], frames.grid[i])
        np.testing.assert_array_equal(info["hud"], frames.hud[i])
        assert info["seed"] == seed and info["step"] == i
    assert all(env.observation_space.contains(o) for o in observations)


def test_gymnasium_reset__seed_fixes_the_episode_and_none_draws_reproducibly():
    env = gymnasium.make(GENERIC_ID, task="classics/snake-easy")
    first, _ = env.reset(seed=3)
    again, _ = env.reset(seed=3)
    other, _ = env.reset(seed=4)
    assert first == again and first != other
    env.reset(seed=9)
    drawn = [env.reset()[1]["seed"] for _ in range(3)]
    env.reset(seed=9)
    assert [env.reset()[1]["seed"] for _ in range(3)] == drawn
    assert env.action_space == gymnasium.spaces.Discrete(4)


def test_gymnasium_adapter__rejects_bad_actions_and_multi_seat_tasks():
    env = gymnasium.make(gym_id("dummy/arrow-4"))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="not in Discrete"):
        env.step(4)
    multi = [t for t in glyphjax.all_ids() if glyphjax.make(t).card.num_players > 1]
    assert multi and gym_id(multi[0]) not in register_envs(multi[:1])
    with pytest.raises(ValueError, match="single-seat tasks only"):
        gymnasium.make(GENERIC_ID, task=multi[0])
