"""eval.stats against hand-computed values and an independent slow bootstrap reference."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eval.results import TaskResult
from eval.stats import (BLOCK, aggregate, mean_ci, paired_difference, suite_weights, task_summary,
                        weighted_score)


def result(task, returns, seeds=None, **kw):
    n = len(returns)
    seeds = list(range(n)) if seeds is None else seeds
    kw.setdefault("lengths", [10] * n)
    kw.setdefault("terminated", [True] * n)
    kw.setdefault("truncated", [False] * n)
    kw.setdefault("success", [r >= 1.0 for r in returns])
    return TaskResult(task=task, seeds=seeds, returns=returns, **kw)


def slow_quantile(sorted_vals, q):
    h = (len(sorted_vals) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (h - lo) * (sorted_vals[hi] - sorted_vals[lo])


def slow_bootstrap_score(tasks: dict[str, list[float]], n_resamples, seed, confidence=0.95):
    """Independent reference: Python loops, the documented draw order, hand-written weights."""
    rng = np.random.default_rng(seed)
    per_task_means = {}
    for name in sorted(tasks):
        vals = tasks[name]
        n = len(vals)
        means = []
        for lo in range(0, n_resamples, BLOCK):
            m = min(BLOCK, n_resamples - lo)
            idx = rng.integers(0, n, size=(m, n))
            for row in idx.tolist():
                means.append(sum(vals[i] for i in row) / n)
        per_task_means[name] = means
    suites = {}
    for name in tasks:
        suites.setdefault(name.split("/")[0], []).append(name)
    scores = []
    for r in range(n_resamples):
        suite_means = [sum(per_task_means[t][r] for t in ts) / len(ts) for ts in suites.values()]
        scores.append(sum(suite_means) / len(suite_means))
    scores.sort()
    a = (1 - confidence) / 2
    return slow_quantile(scores, a), slow_quantile(scores, 1 - a)


def test_task_summary__hand_computed_means_and_rates():
    r = result("classics/x", [0.0, 1.0, 0.5, 0.5], lengths=[4, 8, 6, 2], truncated=[False, False, True, True],
               prompt_tokens=[100, 200, 300, 400], completion_tokens=[10, 20, 30, 40],
               turns=[4, 8, 6, 2], parse_failures=[1, 0, 2, 2], completion_truncations=[0, 0, 1, 0])
    s = task_summary(r, n_resamples=2000)
    assert s["mean_return"] == pytest.approx(0.5)
    assert s["success_rate"] == pytest.approx(0.25)
    assert s["mean_length"] == pytest.approx(5.0)
    assert s["episode_truncation_rate"] == pytest.approx(0.5)
    assert s["mean_prompt_tokens"] == pytest.approx(250.0)
    assert s["mean_completion_tokens"] == pytest.approx(25.0)
    assert s["parse_failure_rate"] == pytest.approx(5 / 20)  # per turn, pooled over episodes
    assert s["completion_truncation_rate"] == pytest.approx(1 / 20)
    lo, hi = s["return_ci"]
    assert 0.0 <= lo < 0.5 < hi <= 1.0


def test_weighted_score__tasks_equal_within_suite_and_suites_equal():
    results = {
        "a/x": result("a/x", [1.0, 1.0]),  # mean 1
        "a/y": result("a/y", [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),  # mean 0 (more seeds: must not weigh more)
        "b/z": result("b/z", [0.2, 0.6]),  # mean 0.4
    }
    # suite a = (1 + 0) / 2 = 0.5; suite b = 0.4; score = (0.5 + 0.4) / 2 = 0.45
    agg = aggregate(results, n_resamples=500)
    assert agg["score"] == pytest.approx(0.45)
    assert agg["suites"]["a"]["score"] == pytest.approx(0.5)
    assert agg["suites"]["b"]["score"] == pytest.approx(0.4)
    assert suite_weights(["a/x", "a/y", "b/z"]) == pytest.approx({"a/x": 0.25, "a/y": 0.25, "b/z": 0.5})
    assert weighted_score({"a/x": 1.0, "a/y": 0.0, "b/z": 0.4}) == pytest.approx(0.45)


def test_bootstrap_interval__matches_slow_reference_on_fixed_seed():
    rng = np.random.default_rng(123)
    tasks = {"a/x": rng.uniform(0, 1, 17).round(3).tolist(), "a/y": rng.uniform(-1, 1, 9).round(3).tolist(),
             "b/z": rng.uniform(0, 1, 25).round(3).tolist()}
    results = {t: result(t, v) for t, v in tasks.items()}
    n_resamples = 2_500  # spans several draw blocks, including a partial one
    agg = aggregate(results, n_resamples=n_resamples, seed=7)
    ref_lo, ref_hi = slow_bootstrap_score(tasks, n_resamples, seed=7)
    assert agg["score_ci"] == pytest.approx([ref_lo, ref_hi], abs=1e-12)
    # a single task's interval uses a fresh generator on that task alone
    m, lo, hi = mean_ci(tasks["b/z"], n_resamples=n_resamples, seed=7)
    assert (lo, hi) == pytest.approx(slow_bootstrap_score({"b/z": tasks["b/z"]}, n_resamples, seed=7), abs=1e-12)
    assert m == pytest.approx(sum(tasks["b/z"]) / 25)


def test_bootstrap_interval__width_matches_normal_approximation():
    values = np.array([1.0] * 300 + [0.0] * 700)  # p = 0.3, n = 1000
    _, lo, hi = mean_ci(values, n_resamples=10_000, seed=0)
    half = 1.959964 * math.sqrt(0.3 * 0.7 / 1000)
    assert (hi - lo) / 2 == pytest.approx(half, rel=0.08)
    assert lo < 0.3 < hi


def test_bootstrap_interval__constant_values_give_a_point():
    _, lo, hi = mean_ci([0.25] * 40, n_resamples=1000)
    assert lo == pytest.approx(0.25) and hi == pytest.approx(0.25)


def test_paired_difference__aligns_seeds_and_removes_shared_noise():
    rng = np.random.default_rng(5)
    seeds = list(range(100, 160))
    base = rng.uniform(0, 1, 60)
    a = {"a/x": result("a/x", (base + 0.1).tolist(), seeds)}
    order = rng.permutation(60)  # run B lists the same seeds in another order
    b = {"a/x": result("a/x", base[order].tolist(), [seeds[i] for i in order])}
    d = paired_difference(a, b, n_resamples=2000)
    assert d["mean_difference"] == pytest.approx(0.1)
    assert d["difference_ci"] == pytest.approx([0.1, 0.1], abs=1e-9)  # every per-seed difference is 0.1
    assert d["prob_a_better"] == 1.0


def test_paired_difference__suite_weighted_and_hand_computed():
    a = {"a/x": result("a/x", [1.0, 0.0], [1, 2]), "a/y": result("a/y", [0.5, 0.5], [1, 2]),
         "b/z": result("b/z", [0.0, 0.0], [1, 2])}
    b = {"a/x": result("a/x", [0.0, 0.0], [1, 2]), "a/y": result("a/y", [0.5, 0.5], [1, 2]),
         "b/z": result("b/z", [0.2, 0.4], [1, 2])}
    d = paired_difference(a, b, n_resamples=500)
    # per task: a/x +0.5, a/y 0, b/z -0.3 ; suites: a 0.25, b -0.3 ; overall -0.025
    assert d["tasks"]["a/x"]["mean_difference"] == pytest.approx(0.5)
    assert d["tasks"]["b/z"]["mean_difference"] == pytest.approx(-0.3)
    assert d["mean_difference"] == pytest.approx(-0.025)


def test_paired_difference__different_seeds_is_an_error():
    with pytest.raises(ValueError, match="same seeds"):
        paired_difference({"a/x": result("a/x", [1.0], [1])}, {"a/x": result("a/x", [1.0], [2])})
