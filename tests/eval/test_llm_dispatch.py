"""`glyphjax-eval policy=vllm|local` dispatches to rl.llm_eval.evaluate_llm per task, turns its
episodes into the summary (tokens, parse failures) and resumes finished tasks."""

from __future__ import annotations

import json
import types

import numpy as np
import pytest
from hydra import compose, initialize_config_dir

from eval.cli import CONF_DIR, rewrite_model_arg, run_eval
from eval.fixtures import synthetic_episode


def compose_eval(overrides):
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        return compose("eval", overrides=overrides)


def test_llm_dispatch__calls_evaluate_llm_per_task_and_resumes(tmp_path, monkeypatch):
    import rl.llm_eval
    calls = []

    def fake_evaluate_llm(policy, task_ids, seeds, harness=None, sampling=None, out_path=None, *,
                          model=None, server_url=None, **kw):
        calls.append((policy, tuple(task_ids), tuple(seeds), model, server_url, harness["name"], sampling["max_new_tokens"]))
        eps = [synthetic_episode(t, s, fail_every=3, max_turns=6) for t in task_ids for s in seeds]
        return types.SimpleNamespace(episodes=eps)

    monkeypatch.setattr(rl.llm_eval, "evaluate_llm", fake_evaluate_llm)
    out = tmp_path / "llm.json"
    args = rewrite_model_arg(["policy=vllm", "server.url=http://127.0.0.1:9", "model=served-name",
                              "tasks.ids=[dummy/arrow-4,classics/snake-easy]", "seeds=3", "harness=memory",
                              "policy.max_new_tokens=64", f"out={out}", "progress=false"])
    assert "model_ref=served-name" in args
    doc = run_eval(compose_eval(args))
    seeds = (1_000_000_000, 1_000_000_001, 1_000_000_002)
    assert calls == [("vllm", ("dummy/arrow-4",), seeds, "served-name", "http://127.0.0.1:9", "memory", 64),
                     ("vllm", ("classics/snake-easy",), seeds, "served-name", "http://127.0.0.1:9", "memory", 64)]
    run = doc["runs"]["vllm:served-name"]
    for task in ("dummy/arrow-4", "classics/snake-easy"):
        eps = [synthetic_episode(task, s, fail_every=3, max_turns=6) for s in seeds]
        s = run["summary"][task]
        turns = sum(len(e["turns"]) for e in eps)
        assert s["mean_return"] == pytest.approx(np.mean([e["return"] for e in eps])), task
        assert s["mean_prompt_tokens"] == pytest.approx(np.mean([e["prompt_tokens"] for e in eps])), task
        assert s["mean_completion_tokens"] == pytest.approx(np.mean([e["completion_tokens"] for e in eps])), task
        assert s["parse_failure_rate"] == pytest.approx(sum(e["parse_failures"] for e in eps) / turns), task
    assert json.loads(out.read_text())["runs"]["vllm:served-name"]["summary"].keys() == run["summary"].keys()

    calls.clear()  # a second run finds both tasks finished in the partial file
    run_eval(compose_eval(args))
    assert calls == []


def test_llm_dispatch__vllm_without_server_url_is_a_clear_error(capsys):
    cfg = compose_eval(rewrite_model_arg(["policy=vllm", "model=x", "tasks=dummy", "out=null", "progress=false"]))
    with pytest.raises(SystemExit) as e:
        run_eval(cfg)
    assert e.value.code == 2 and "server.url" in capsys.readouterr().err
