"""nethack/full, the host env on the real NetHack (nle): replay from seed + actions, the legend,
a crashed game ending only its episode, the rollout engine playing it, and the install hint."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from glyphjax.core import host

MOVES = list(range(8)) + [19]  # MOVE_* and MORE: wander and page through messages


def _env():
    pytest.importorskip("nle", reason="nethack/full needs the nethack extra (nle)")
    return host.make_host("nethack/full")


def test_nethack__missing_nle_is_one_clear_error_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "nle", None)  # `import nle` now fails as if not installed
    monkeypatch.setattr(host, "_MADE", {})
    with pytest.raises(ImportError, match=r"pip install 'glyphjax\[nethack\]'"):
        host.make_host("nethack/full")


def test_nethack__the_same_seed_and_actions_replay_the_episode_exactly():
    env = _env()
    actions = np.random.default_rng(1).choice(MOVES, size=60).tolist()
    texts_a, rewards_a = env.replay(11, actions)
    texts_b, rewards_b = env.replay(11, actions)
    assert [t.render() for t in texts_a] == [t.render() for t in texts_b]
    assert rewards_a == rewards_b
    other, _ = env.replay(12, actions[:1])
    assert other[0].render() != texts_a[0].render()  # another seed, another game


def test_nethack__the_legend_names_every_symbol_on_screen_and_nothing_else():
    env = _env()
    batch = env.batch([0, 5], processes=False)
    rng = np.random.default_rng(0)
    for _ in range(150):
        for obs in batch.observations([0, 1]):
            on_screen = set(obs.grid) - {"\n"} | {" "}
            named = {line.split(" — ", 1)[0] for line in obs.legend.split("\n")}
            assert named == on_screen
            assert "unknown symbol" not in obs.legend, obs.legend
        batch.step(rng.choice(MOVES, size=2))
    batch.close()


def test_nethack__a_crashed_game_ends_only_its_own_episode():
    env = _env()
    batch = env.batch([3, 4], processes=True)
    batch.step(np.array([0, 0]))
    batch._procs[0].kill()  # the game process of episode 0 dies mid-episode
    batch._procs[0].join()
    out = batch.step(np.array([1, 1]))
    assert bool(out["truncated"][0]) and batch.done[0]
    assert "seed 3" in batch.errors[0] and "process died" in batch.errors[0]
    assert not batch.done[1] and 1 not in batch.errors
    for _ in range(3):
        batch.step(np.array([2, 2]))
    assert not batch.done[1] and "Step: 5 / " in batch.observations([1])[0].hud
    batch.close()


class _Mover:
    name = "mover"

    def complete(self, conversations, sampling):
        from rl.policies.base import Completion
        return [Completion("<action>MOVE_E</action>", [], [], [], "stop") for _ in conversations]


def test_nethack__run_rollouts_plays_it_like_a_jax_task():
    _env()
    from rl.rollout import run_rollouts
    recs = run_rollouts(_Mover(), [("nethack/full", 7), ("nethack/full", 8)], max_turns=4)
    assert [r.seed for r in recs] == [7, 8]
    for r in recs:
        assert r.length == 4 and r.truncated and r.error is None
        assert all(t.action_name == "MOVE_E" for t in r.turns)
        assert "[Grid]" in r.turns[0].observation and "Dlvl: 1" in r.turns[0].observation


def test_nethack__glyphjax_make_points_to_the_host_registry():
    import glyphjax
    with pytest.raises(glyphjax.UnknownTaskError, match=r"host env .*make_host\('nethack/full'\)"):
        glyphjax.make("nethack/full")
