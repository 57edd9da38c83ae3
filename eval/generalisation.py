"""Procgen's generalisation protocol: evaluate on the training levels and on unseen test levels,
and report the train-test gap per task with bootstrap intervals.

    python -m eval.generalisation --tasks procgen --policy random --seeds 1000 --num-levels 200

Tasks with level sets (`Env.with_levels`, the Procgen suite) play `split=train` on levels
[0, num_levels) and `split=test` on the disjoint test range; episode seeds are the held-out
evaluation seeds in both. The gap is mean(train) - mean(test); its interval resamples the seeds
of each split independently (percentile bootstrap, `eval.stats` conventions).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Mapping

import numpy as np

import glyphjax
from eval.results import TaskResult
from eval.stats import BOOTSTRAP_SEED, CONFIDENCE, N_RESAMPLES, bootstrap_means, percentile_interval

SPLITS = ("train", "test")


def split_params(task_id: str, split: str, num_levels: int = 200) -> Any:
    """The params that make `task_id` play the `split` level set (train: num_levels levels from
    seed 0; test: the whole test range). ValueError for a task without level sets."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    env = glyphjax.make(task_id)
    if not hasattr(env, "with_levels"):
        raise ValueError(f"{task_id} has no level sets, so split={split} does not apply to it; "
                         "use split with procgen tasks only (tasks=procgen)")
    return env.with_levels(num_levels if split == "train" else 0, 0, split).default_params()


def gap_report(train: Mapping[str, TaskResult], test: Mapping[str, TaskResult],
               n_resamples: int = N_RESAMPLES, seed: int = BOOTSTRAP_SEED,
               confidence: float = CONFIDENCE) -> dict:
    """Per task (sorted ids) and averaged over tasks: train mean, test mean, gap and its interval."""
    if set(train) != set(test):
        raise ValueError(f"the gap needs the same tasks in both splits; only train: "
                         f"{sorted(set(train) - set(test))}, only test: {sorted(set(test) - set(train))}")
    rng = np.random.default_rng(seed)
    rows, boots = {}, []
    for task in sorted(train):
        a, b = train[task].returns, test[task].returns
        boot = bootstrap_means(a, n_resamples, rng) - bootstrap_means(b, n_resamples, rng)
        boots.append(boot)
        rows[task] = {"train": float(np.mean(a)), "test": float(np.mean(b)),
                      "gap": float(np.mean(a) - np.mean(b)), "gap_ci": list(percentile_interval(boot, confidence))}
    mean_gap = float(np.mean([r["gap"] for r in rows.values()])) if rows else 0.0
    overall = list(percentile_interval(np.mean(boots, axis=0), confidence)) if rows else [0.0, 0.0]
    return {"tasks": rows, "mean_gap": mean_gap, "mean_gap_ci": overall}


def print_gap_table(report: dict) -> None:
    print(f"{'task':28s} {'train':>7s} {'test':>7s} {'gap':>7s}  95% interval")
    for task, r in report["tasks"].items():
        lo, hi = r["gap_ci"]
        print(f"{task:28s} {r['train']:7.3f} {r['test']:7.3f} {r['gap']:7.3f}  [{lo:.3f}, {hi:.3f}]")
    lo, hi = report["mean_gap_ci"]
    print(f"{'mean over tasks':28s} {'':7s} {'':7s} {report['mean_gap']:7.3f}  [{lo:.3f}, {hi:.3f}]")


def main(argv: list[str] | None = None) -> int:
    from eval.runner import evaluate_task
    from eval.seeds import EVAL_SEED_START, eval_seeds
    from eval.tasksets import resolve_tasks
    ap = argparse.ArgumentParser(prog="python -m eval.generalisation", description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", nargs="+", default=["procgen"])
    ap.add_argument("--policy", default="random", choices=["random", "scripted"])
    ap.add_argument("--seeds", type=int, default=1000)
    ap.add_argument("--seed-start", type=int, default=EVAL_SEED_START)
    ap.add_argument("--num-levels", type=int, default=200)
    ap.add_argument("--batch-size", type=int, default=4096)
    args = ap.parse_args(argv)
    try:
        tasks = resolve_tasks(args.tasks)
        seeds = eval_seeds(args.seeds, args.seed_start)
        params = {(t, s): split_params(t, s, args.num_levels) for t in tasks for s in SPLITS}
    except (glyphjax.UnknownTaskError, ValueError) as e:
        print(f"eval.generalisation: error: {e}", file=sys.stderr)
        return 2
    runs = {s: {t: evaluate_task(t, args.policy, seeds, args.batch_size, params=params[(t, s)]) for t in tasks}
            for s in SPLITS}
    print_gap_table(gap_report(runs["train"], runs["test"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
