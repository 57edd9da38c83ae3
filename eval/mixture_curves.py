"""Learning curves of a multitask run (rl/trainer.py metrics.jsonl): per task and per suite.

    python -m eval.mixture_curves RUN_DIR [--out FIG.png] [--window 64]

Training: each task's episode returns in the order they were played; its curve is the trailing
mean over its last `window` rollouts, plotted against the run's rollout count at each update the
task was trained in. A suite's training curve is the mean of its tasks' latest trailing means
(tasks weighted equally, from the update each task first appears). Held-out: the `eval`
records' per-task and per-suite means (tasks weighted equally) at each evaluation update.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def read_metrics(run_dir: str | Path) -> list[dict]:
    path = Path(run_dir) / "metrics.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found; give a training run directory (it holds metrics.jsonl)")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def curves(records: list[dict], window: int = 64) -> dict:
    """{"train": {task: {"rollouts", "trailing"}}, "train_suites": {suite: {"rollouts", "mean"}},
    "heldout": {"updates", "mean", "per_task", "per_suite"}} from a run's metric records."""
    seen: dict[str, list[float]] = {}
    train: dict[str, dict[str, list]] = {}
    suites: dict[str, dict[str, list]] = {}
    for r in (r for r in records if r.get("kind") == "train"):
        g = len(r["returns"]) // max(1, len(r["tasks"]))
        for i, task in enumerate(r["tasks"]):
            seen.setdefault(task, []).extend(r["returns"][i * g:(i + 1) * g])
            curve = train.setdefault(task, {"rollouts": [], "trailing": []})
            if curve["rollouts"] and curve["rollouts"][-1] == r["rollouts"]:
                curve["trailing"][-1] = float(np.mean(seen[task][-window:]))
            else:
                curve["rollouts"].append(r["rollouts"])
                curve["trailing"].append(float(np.mean(seen[task][-window:])))
        latest: dict[str, list[float]] = {}
        for task, c in train.items():
            latest.setdefault(task.split("/", 1)[0], []).append(c["trailing"][-1])
        for s, values in latest.items():
            suites.setdefault(s, {"rollouts": [], "mean": []})
            suites[s]["rollouts"].append(r["rollouts"])
            suites[s]["mean"].append(float(np.mean(values)))
    evals = [r for r in records if r.get("kind") == "eval"]
    tasks = sorted({t for r in evals for t in r.get("per_task", {})})
    suite_names = sorted({s for r in evals for s in r.get("per_suite", {})})
    heldout = {"updates": [r["update"] for r in evals], "mean": [r["return_mean"] for r in evals],
               "per_task": {t: [r["per_task"].get(t) for r in evals] for t in tasks},
               "per_suite": {s: [r.get("per_suite", {}).get(s) for r in evals] for s in suite_names}}
    return {"train": train, "train_suites": suites, "heldout": heldout}


def draw(c: dict, out: str | Path, title: str = "") -> Path:
    """Two panels: training trailing means (tasks pale, suites bold) and held-out returns."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax_train, ax_eval) = plt.subplots(1, 2, figsize=(12, 4.5))
    colours = {s: plt.cm.tab10(i % 10) for i, s in enumerate(sorted(c["train_suites"] | c["heldout"]["per_suite"]))}
    for task, tc in c["train"].items():
        ax_train.plot(tc["rollouts"], tc["trailing"], color=colours[task.split("/", 1)[0]], alpha=0.25, lw=0.8)
    for s, sc in c["train_suites"].items():
        ax_train.plot(sc["rollouts"], sc["mean"], color=colours[s], lw=2, label=s)
    h = c["heldout"]
    for s, values in h["per_suite"].items():
        ax_eval.plot(h["updates"], values, "o-", color=colours[s], label=s)
    if h["updates"]:
        ax_eval.plot(h["updates"], h["mean"], "k--", lw=2, label="all tasks")
    ax_train.set(xlabel="rollouts", ylabel="training return (trailing mean)", title="training")
    ax_eval.set(xlabel="update", ylabel="held-out return", title="held-out evaluation")
    for ax in (ax_train, ax_eval):
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="per-task and per-suite curves of a multitask run")
    ap.add_argument("run_dir")
    ap.add_argument("--out", default=None, help="figure path (default RUN_DIR/report/mixture_curves.png)")
    ap.add_argument("--window", type=int, default=64)
    a = ap.parse_args(argv)
    c = curves(read_metrics(a.run_dir), a.window)
    out = draw(c, a.out or Path(a.run_dir) / "report" / "mixture_curves.png", title=str(a.run_dir))
    print(out)


if __name__ == "__main__":
    main()
