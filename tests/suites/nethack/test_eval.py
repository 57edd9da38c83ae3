"""`glyphjax-eval tasks=nethack/full`: the random policy and LLM policies on the host env, with the
usual result files and statistics, and clear errors where a policy cannot apply."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hydra import compose, initialize_config_dir

from eval.cli import CONF_DIR, rewrite_model_arg, run_eval
from rl.hydra_cli import rewrite_task_arg

TURNS = 12


def _cfg(args):
    pytest.importorskip("nle", reason="nethack/full needs the nethack extra (nle)")
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        return compose("eval", overrides=rewrite_task_arg(rewrite_model_arg(args)))


def test_nethack_eval__random_policy_figures_are_the_replayed_episodes(tmp_path):
    from eval.host import random_actions
    from glyphjax.core.host import make_host
    out = tmp_path / "nh.json"
    doc = run_eval(_cfg(["tasks=nethack/full", "policy=random", "seeds=2", f"max_turns={TURNS}",
                         f"out={out}", "progress=false"]))
    assert json.loads(out.read_text())["runs"].keys() == {"random"}
    run = doc["runs"]["random"]
    eps = run["episodes"]["nethack/full"]
    env = make_host("nethack/full")
    assert eps["seeds"] == [1_000_000_000, 1_000_000_001]
    for i, seed in enumerate(eps["seeds"]):  # each episode is its seed's random actions, replayed here
        _, rewards = env.replay(seed, random_actions(seed, env.card.num_actions, TURNS).tolist())
        assert eps["returns"][i] == pytest.approx(sum(rewards))
        assert eps["lengths"][i] == len(rewards) == TURNS
        assert eps["truncated"][i] and not eps["terminated"][i]  # stopped by max_turns
    s = run["summary"]["nethack/full"]
    assert s["episodes"] == 2 and s["mean_length"] == TURNS and s["success_rate"] is None
    assert s["mean_return"] == pytest.approx(np.mean(eps["returns"]))
    assert "errors" not in doc


def test_nethack_eval__an_llm_policy_plays_through_the_rollout_engine(tmp_path, monkeypatch):
    import rl.llm_eval
    from rl.policies.base import Completion

    class East:
        name = "east"

        def complete(self, conversations, sampling):
            return [Completion("<action>MOVE_E</action>", [], [], [], "stop") for _ in conversations]

    monkeypatch.setattr(rl.llm_eval, "make_policy", lambda name, **kw: East())
    out = tmp_path / "llm.json"
    doc = run_eval(_cfg(["tasks=nethack/full", "policy=vllm", "server.url=http://127.0.0.1:9", "model=m",
                         "seeds=2", "max_turns=3", f"out={out}", "progress=false", "replay=false"]))
    eps = doc["runs"]["vllm:m"]["episodes"]["nethack/full"]
    assert eps["lengths"] == [3, 3] and eps["truncated"] == [True, True] and eps["turns"] == [3, 3]
    records = [json.loads(line) for line in out.with_name("llm.json.trajectories.jsonl").read_text().splitlines()]
    assert sorted(r["seed"] for r in records) == eps["seeds"]
    for r in records:
        assert [t["action_name"] for t in r["turns"]] == ["MOVE_E"] * 3
        assert "Dlvl: 1" in r["turns"][0]["observation"]


@pytest.mark.parametrize("args, words", [
    (["policy=scripted"], ["host env", "needs a JAX env", "policy=random"]),
    (["policy=random", "split=train"], ["host env", "split="]),
])
def test_nethack_eval__a_policy_that_cannot_apply_is_a_clear_error(args, words, capsys):
    with pytest.raises(SystemExit) as e:
        run_eval(_cfg(["tasks=nethack/full", "seeds=2", "out=null", "progress=false", *args]))
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert all(w in err for w in words), err


def test_nethack_eval__max_turns_with_an_array_policy_on_jax_tasks_is_refused(capsys):
    with pytest.raises(SystemExit) as e:
        run_eval(_cfg(["tasks=dummy/arrow-1", "policy=random", "max_turns=5", "out=null", "progress=false"]))
    assert e.value.code == 2 and "max_turns" in capsys.readouterr().err


def test_nethack_eval__a_game_that_fails_ends_only_its_episode_with_its_error(monkeypatch):
    pytest.importorskip("nle", reason="nethack/full needs the nethack extra (nle)")
    from eval.host import evaluate_host_random
    from glyphjax.suites.nethack.host import NetHackGame
    reset, step = NetHackGame.reset, NetHackGame.step

    def seeded_reset(self, seed):
        self.our_seed = seed
        return reset(self, seed)

    def failing_step(self, action):
        if self.our_seed == 21 and self.t == 2:
            raise RuntimeError("NLE exploded")
        return step(self, action)

    monkeypatch.setattr(NetHackGame, "reset", seeded_reset)
    monkeypatch.setattr(NetHackGame, "step", failing_step)
    errors = {}
    r = evaluate_host_random("nethack/full", [21, 22], max_turns=5, processes=False, errors=errors)
    assert r.lengths.tolist() == [2, 5] and r.truncated.tolist() == [True, True]
    assert list(errors) == [21] and "seed 21" in errors[21] and "NLE exploded" in errors[21]
