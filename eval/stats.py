"""Statistics over evaluation results: per-task summaries, equally weighted suite scores,
bootstrap confidence intervals and paired comparisons.

Protocol (formulas.md §1, the GlyphBench paper): returns are averaged within a task; tasks weigh
equally within a suite and suites equally across suites:

    score = (1/|S|) sum_s (1/|T_s|) sum_{t in T_s} mean_i R_{t,i}

95% intervals are percentile bootstrap intervals that resample seeds *within* each task
(10,000 resamples by default, fixed seed). The random draws follow one documented order so an
independent implementation can reproduce them exactly: `rng = numpy.random.default_rng(seed)`;
for each task in sorted id order, for each block of at most `BLOCK` resamples,
`idx = rng.integers(0, n_task, size=(block, n_task))` and the block's means are
`values[idx].mean(axis=1)`. A per-task interval uses a fresh `default_rng(seed)` for that task
alone (so it does not depend on which other tasks are in the run). Quantiles use numpy's default
(linear) interpolation.

Paired comparisons of two runs on the same seeds bootstrap the per-seed differences (one index
draw shared by both runs), which removes seed-to-seed variance from the comparison.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from eval.results import TaskResult

N_RESAMPLES = 10_000
BOOTSTRAP_SEED = 0
CONFIDENCE = 0.95
BLOCK = 1_000  # resamples drawn per block (bounds memory: block x n_seeds indices)


def bootstrap_means(values: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of `n_resamples` resamples (with replacement) of `values`, float64 [n_resamples]."""
    values = np.asarray(values, np.float64).reshape(-1)
    n = len(values)
    if n == 0:
        raise ValueError("cannot bootstrap an empty set of values")
    out = np.empty(n_resamples, np.float64)
    for lo in range(0, n_resamples, BLOCK):
        m = min(BLOCK, n_resamples - lo)
        idx = rng.integers(0, n, size=(m, n))
        out[lo: lo + m] = values[idx].mean(axis=1)
    return out


def percentile_interval(samples: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float]:
    a = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(samples, [a, 1.0 - a])
    return float(lo), float(hi)


def mean_ci(values: np.ndarray, n_resamples: int = N_RESAMPLES, seed: int = BOOTSTRAP_SEED,
            confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """(mean, low, high): the mean and its percentile bootstrap interval."""
    values = np.asarray(values, np.float64)
    samples = bootstrap_means(values, n_resamples, np.random.default_rng(seed))
    return (float(values.mean()), *percentile_interval(samples, confidence))


def _rate(num: np.ndarray | None, den: np.ndarray | None) -> float | None:
    if num is None or den is None:
        return None
    total = int(np.sum(den))
    return float(np.sum(num) / total) if total else 0.0


def task_summary(r: TaskResult, n_resamples: int = N_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                 confidence: float = CONFIDENCE) -> dict:
    """Per-task figures: mean return with its bootstrap interval, success rate (None when the
    task has no success notion), mean length, token use per episode, and parse-failure /
    truncation rates per model turn."""
    mean, lo, hi = mean_ci(r.returns, n_resamples, seed, confidence)
    out = {
        "task": r.task, "suite": r.suite, "episodes": len(r),
        "mean_return": mean, "return_ci": [lo, hi],
        "success_rate": None if r.success is None else float(r.success.mean()),
        "mean_length": float(r.lengths.mean()),
        "episode_truncation_rate": float(r.truncated.mean()),
    }
    if r.prompt_tokens is not None:
        out["mean_prompt_tokens"] = float(r.prompt_tokens.mean())
    if r.completion_tokens is not None:
        out["mean_completion_tokens"] = float(r.completion_tokens.mean())
    if r.parse_failures is not None:
        out["parse_failure_rate"] = _rate(r.parse_failures, r.turns)
    if r.completion_truncations is not None:
        out["completion_truncation_rate"] = _rate(r.completion_truncations, r.turns)
    return out


def suite_weights(tasks: Sequence[str]) -> dict[str, float]:
    """Weight of each task: 1/|S| * 1/|T_s| (tasks equal within a suite, suites equal)."""
    suites: dict[str, list[str]] = {}
    for t in tasks:
        suites.setdefault(t.split("/", 1)[0], []).append(t)
    return {t: 1.0 / len(suites) / len(ts) for ts in suites.values() for t in ts}


def weighted_score(per_task: Mapping[str, np.ndarray | float]) -> float:
    """The suite-balanced score from per-task means (floats) or per-task arrays of means."""
    w = suite_weights(list(per_task))
    return sum(w[t] * np.asarray(v, np.float64) for t, v in per_task.items())


def aggregate(results: Mapping[str, TaskResult], column: str = "returns",
              n_resamples: int = N_RESAMPLES, seed: int = BOOTSTRAP_SEED,
              confidence: float = CONFIDENCE) -> dict:
    """Suite-balanced score of `column` over all tasks and per suite, with bootstrap intervals
    resampling seeds within tasks (see the module docstring for the draw order)."""
    rng = np.random.default_rng(seed)
    tasks = sorted(results)
    boot = {t: bootstrap_means(np.asarray(getattr(results[t], column), np.float64), n_resamples, rng)
            for t in tasks}
    means = {t: float(np.mean(getattr(results[t], column))) for t in tasks}
    out = {"score": float(weighted_score(means)),
           "score_ci": list(percentile_interval(weighted_score(boot), confidence)),
           "tasks": len(tasks), "suites": {}}
    for s in sorted({t.split("/", 1)[0] for t in tasks}):
        ts = [t for t in tasks if t.split("/", 1)[0] == s]
        out["suites"][s] = {
            "score": float(np.mean([means[t] for t in ts])),
            "score_ci": list(percentile_interval(np.mean([boot[t] for t in ts], axis=0), confidence)),
            "tasks": len(ts)}
    return out


def _aligned(a: TaskResult, b: TaskResult) -> tuple[np.ndarray, np.ndarray]:
    if set(a.seeds.tolist()) != set(b.seeds.tolist()):
        only_a = sorted(set(a.seeds.tolist()) - set(b.seeds.tolist()))[:5]
        only_b = sorted(set(b.seeds.tolist()) - set(a.seeds.tolist()))[:5]
        raise ValueError(f"{a.task}: paired comparison needs the same seeds in both runs "
                         f"(only in A: {only_a}..., only in B: {only_b}...); run both on matched seeds")
    ia, ib = np.argsort(a.seeds), np.argsort(b.seeds)
    return a.returns[ia], b.returns[ib]


def paired_difference(a: Mapping[str, TaskResult], b: Mapping[str, TaskResult],
                      n_resamples: int = N_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                      confidence: float = CONFIDENCE) -> dict:
    """Run A minus run B on the same tasks and seeds: per task and suite-balanced overall, the
    mean difference with a paired bootstrap interval and the share of resamples with A > B."""
    if set(a) != set(b):
        raise ValueError(f"paired comparison needs the same tasks; only in A: {sorted(set(a) - set(b))}, "
                         f"only in B: {sorted(set(b) - set(a))}")
    tasks = sorted(a)
    rng = np.random.default_rng(seed)
    diffs = {t: np.subtract(*_aligned(a[t], b[t])) for t in tasks}
    boot = {t: bootstrap_means(diffs[t], n_resamples, rng) for t in tasks}
    per_task = {}
    for t in tasks:
        per_task[t] = {"mean_difference": float(diffs[t].mean()),
                       "difference_ci": list(percentile_interval(boot[t], confidence))}
    overall = weighted_score(boot)
    return {"mean_difference": float(weighted_score({t: diffs[t].mean() for t in tasks})),
            "difference_ci": list(percentile_interval(overall, confidence)),
            "prob_a_better": float(np.mean(overall > 0)),
            "tasks": per_task}
