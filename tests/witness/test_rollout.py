"""WITNESS games played by a text policy through the real LLM rollout path (`rl.llm_eval.evaluate_llm`
with `harness=witness`), with a scripted fake model, and the RHAE read back from its actions."""

from __future__ import annotations

import json
import re

import pytest

from eval.witness import rhae, run_from_actions
from glyphjax.witness.bank import load_bank
from glyphjax.witness.games import BY_ID
from rl.llm_eval import evaluate_llm
from rl.policies.base import Completion

TASK = "witness/test/polyomino"


class SolutionPolicy:
    """Replies with the bank's stored solution of the level the prompt shows, as one plan; its
    first reply is not JSON (a parse failure that costs a call)."""

    name = "fake-solution"

    def __init__(self, task: str):
        game = BY_ID[task]
        self.levels, self.sigma, self.prompts = load_bank()[game.name], game.sigma, []

    def complete(self, conversations, sampling):
        prompt = conversations[0][-1]["content"]
        self.prompts.append(prompt)
        if len(self.prompts) == 1:
            text = "I think A1 is up"
        else:
            k = int(re.search(r"Level: (\d+) /", prompt).group(1)) - 1
            plan = [f"A{self.sigma.index(d) + 1}" for d in self.levels[k].solution] + ["CONFIRM"]
            text = json.dumps({"analysis": "known solution", "plan": plan,
                               "memory_ops": [{"op": "add", "rule": "pieces fill regions", "evidence": [0, 1]}]})
        return [Completion(text, [1] * 7, [2] * 3, [0.0] * 3, "stop")]


def test_witness_rollout__scripted_model_through_evaluate_llm_solves_every_level_at_rhae_100():
    policy = SolutionPolicy(TASK)
    out = evaluate_llm(policy, [TASK], [0], harness="witness")
    (rec,) = out.records
    levels = load_bank()[BY_ID[TASK].name]
    assert rec.harness == "witness" and rec.parse_failures == 1 and rec.terminated
    acted = [t for t in rec.turns if t.action >= 0]
    assert len(acted) == sum(len(lv.solution) + 1 for lv in levels)  # exactly the optimal actions, no more
    failed = rec.turns[0]  # the unparseable first reply: a NO_ACTION turn that carries its call
    assert (failed.action, failed.completion, failed.completion_ids) == (-1, "I think A1 is up", [2] * 3)
    calls = [t for t in rec.turns if t.finish_reason != "plan"]
    assert len(calls) == len(levels) + 1 and all(t.prompt_tokens == 7 for t in calls)
    assert "pieces fill regions" in policy.prompts[-1]  # the rule memory persists across levels
    run = run_from_actions(TASK, 0, rec.actions)
    assert run.completed and rhae(run, 5) == pytest.approx(100.0) and rhae(run, 20) == pytest.approx(100.0)
    assert rec.episode_return == pytest.approx(1.0)


def test_witness_rollout__other_tasks_are_refused_with_the_harness_to_use():
    with pytest.raises(ValueError, match="harness=basic or harness=memory"):
        evaluate_llm(SolutionPolicy(TASK), ["dummy/arrow-1"], [0], harness="witness")


def _eval_cfg(tmp_path, *overrides):
    from hydra import compose, initialize_config_dir

    from eval.config import register_eval_schema
    from rl.hydra_cli import CONF_DIR, rewrite_task_arg
    register_eval_schema()
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        return compose("eval", overrides=rewrite_task_arg([f"tasks={TASK}", "policy=vllm", "model_ref=fake", "seeds=1",
                                                          "server.url=http://127.0.0.1:9/v1",
                                                          "progress=false", "replay=false", "resume=false",
                                                          f"out={tmp_path / 'r.json'}", *overrides]))


class Mumbler:
    """A fake model that never gives a parseable reply."""

    name = "fake-mumbler"

    def __init__(self):
        self.calls = 0

    def complete(self, conversations, sampling):
        self.calls += 1
        return [Completion("let me think", [1] * 7, [2] * 3, [0.0] * 3, "stop")]


def test_glyphjax_eval__call_budget_ends_witness_runs_and_each_run_reports_why(tmp_path, monkeypatch, capsys):
    """`call_budget=N` (witness.md §2.3 (c)): a run ends after its N-th model call and the results say
    so per run; the default is 1,000 calls; a budget below 1 or on another harness is refused."""
    import rl.llm_eval
    from eval.cli import run_eval
    mumbler = Mumbler()
    monkeypatch.setattr(rl.llm_eval, "make_policy", lambda *a, **k: mumbler)
    doc = run_eval(_eval_cfg(tmp_path, "call_budget=3"))
    (run,) = doc["witness_runs"]
    assert mumbler.calls == 3 and (run["calls"], run["call_budget"], run["end"], run["solved"]) == (3, 3, "call budget", 0)
    assert json.loads((tmp_path / "r.json").read_text())["witness_runs"] == [run]
    assert "runs ended by: call budget 1 (call budget 3 model calls per run)" in capsys.readouterr().out

    solver = SolutionPolicy(TASK)
    monkeypatch.setattr(rl.llm_eval, "make_policy", lambda *a, **k: solver)
    (run,) = run_eval(_eval_cfg(tmp_path))["witness_runs"]
    n = len(load_bank()[BY_ID[TASK].name])
    assert (run["call_budget"], run["calls"], run["end"], run["solved"]) == (1000, n + 1, "solved", n)

    for bad, why in (("call_budget=0", "call_budget must be >= 1"), ("harness=compact", "applies to WITNESS runs")):
        with pytest.raises(SystemExit):
            run_eval(_eval_cfg(tmp_path, bad, *(["call_budget=5"] if bad.startswith("harness") else [])))
        assert why in capsys.readouterr().err
