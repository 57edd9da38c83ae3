"""Resumable matched-seed benchmark runs (eval.benchmark)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from eval.benchmark import load_partial, partial_path, run_key, run_tasks
from eval.results import TaskResult
from eval.seeds import EVAL_SEED_START, TRAIN_SEED_START, eval_seeds

TASKS = ["a/one", "a/two", "b/three", "b/four"]


class Crash(RuntimeError):
    pass


def fake_evaluator(calls: list, crash_on: str | None = None):
    def evaluate(task, seeds):
        calls.append(task)
        if task == crash_on:
            raise Crash(task)
        ret = (np.asarray(seeds) % 7) / 7.0 + len(task) / 100
        return TaskResult(task=task, seeds=seeds, returns=ret, lengths=np.full(len(seeds), 3),
                          terminated=np.ones(len(seeds), bool), truncated=np.zeros(len(seeds), bool),
                          success=ret > 0.5)
    return evaluate


def test_benchmark__interrupted_run_resumes_without_redoing_or_losing_tasks(tmp_path):
    out = tmp_path / "bench.json"
    seeds = eval_seeds(25)
    calls: list[str] = []
    with pytest.raises(Crash):
        run_tasks(TASKS, seeds, fake_evaluator(calls, crash_on="b/three"), "random", out)
    assert calls == ["a/one", "a/two", "b/three"]
    done = load_partial(partial_path(out), run_key("random", seeds))
    assert sorted(done) == ["a/one", "a/two"], "finished tasks must be on disk before the crash"

    calls.clear()
    resumed = run_tasks(TASKS, seeds, fake_evaluator(calls), "random", out)
    assert calls == ["b/three", "b/four"], f"resumed run redid or skipped tasks: {calls}"
    fresh = run_tasks(TASKS, seeds, fake_evaluator([]), "random", None)
    for t in TASKS:
        np.testing.assert_array_equal(resumed[t].returns, fresh[t].returns, err_msg=t)
        np.testing.assert_array_equal(resumed[t].seeds, fresh[t].seeds, err_msg=t)


def test_benchmark__torn_last_line_and_other_runs_are_ignored(tmp_path):
    out = tmp_path / "bench.json"
    seeds = eval_seeds(5)
    run_tasks(TASKS[:1], seeds, fake_evaluator([]), "random", out)
    with open(partial_path(out), "a") as f:
        f.write('{"key": "random@')  # a crash while writing
    calls: list[str] = []
    run_tasks(TASKS[:2], seeds, fake_evaluator(calls), "random", out)
    assert calls == ["a/two"]
    other: list[str] = []  # a different policy or different seeds is a different run
    run_tasks(TASKS[:1], seeds, fake_evaluator(other), "scripted", out)
    run_tasks(TASKS[:1], eval_seeds(6), fake_evaluator(other), "random", out)
    assert other == ["a/one", "a/one"]
    lines = partial_path(out).read_text().splitlines()
    assert sum(1 for l in lines if l.startswith('{"key"') and l.endswith("}")) == 4


def test_eval_seeds__held_out_range_never_overlaps_training():
    s = eval_seeds(25)
    assert s[0] == EVAL_SEED_START == 1_000_000_000 and len(s) == 25 and len(set(s.tolist())) == 25
    assert TRAIN_SEED_START == 0
    with pytest.raises(ValueError, match="held out"):
        eval_seeds(10, start=5)
