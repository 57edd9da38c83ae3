"""Figures of the Snake learning-rate x group-size study, drawn from run logs.

Input: a sweep folder (e.g. multirun/snake_grid/<date>) whose run folders each hold `config.json`
and `metrics.jsonl` written by rl/trainer.py. Per run: difficulty (from the task id), G, LR, and
per update the episode returns of its batch (in order).

- Curves: pale = each update's batch mean return; solid = trailing mean over the last 512
  rollouts (episode returns, across batch boundaries); dot = the final trailing mean.
- Peak and final: final = the trailing mean after the last update; peak = the maximum trailing
  mean over update ends **(ours: counted once at least `window` rollouts have been seen, so early
  small-sample means do not count as peaks; runs shorter than the window use every point)**.
Figures: `grid_figure` (rows LR, columns difficulty, colours G) and `peak_final_figure` (per
difficulty, peak and final trailing means against LR, one colour per G), plus a table.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Sequence

import numpy as np

DIFFICULTIES = ("easy", "medium", "hard")
WINDOW = 512


@dataclasses.dataclass
class Run:
    path: Path
    difficulty: str
    group_size: int
    lr: float
    batch_returns: list[list[float]]  # per update, that batch's episode returns

    @property
    def rollouts(self) -> np.ndarray:
        return np.cumsum([len(b) for b in self.batch_returns])

    def batch_means(self) -> np.ndarray:
        return np.array([np.mean(b) for b in self.batch_returns])

    def trailing(self, window: int = WINDOW) -> np.ndarray:
        return trailing_means(self.batch_returns, window)


def trailing_means(batch_returns: Sequence[Sequence[float]], window: int = WINDOW) -> np.ndarray:
    """Mean of the last `window` episode returns at the end of each update."""
    flat = np.concatenate([np.asarray(b, float) for b in batch_returns]) if batch_returns else np.zeros(0)
    csum = np.concatenate([[0.0], np.cumsum(flat)])
    ends = np.cumsum([len(b) for b in batch_returns])
    starts = np.maximum(ends - window, 0)
    return (csum[ends] - csum[starts]) / (ends - starts)


def peak_and_final(batch_returns: Sequence[Sequence[float]], window: int = WINDOW) -> tuple[float, float]:
    tr = trailing_means(batch_returns, window)
    ends = np.cumsum([len(b) for b in batch_returns])
    eligible = tr[ends >= window] if (ends >= window).any() else tr
    return float(eligible.max()), float(tr[-1])


def _difficulty(task_ids: Sequence[str]) -> str:
    for t in task_ids:
        for d in DIFFICULTIES:
            if t.endswith(f"snake-{d}"):
                return d
    return ",".join(task_ids)


def load_runs(root: str | Path) -> list[Run]:
    """Every run under `root` with a config.json and at least one training update."""
    runs = []
    for metrics in sorted(Path(root).rglob("metrics.jsonl")):
        cfg_file = metrics.parent / "config.json"
        if not cfg_file.is_file():
            continue
        cfg = json.loads(cfg_file.read_text())
        batches = [r["returns"] for r in map(json.loads, metrics.read_text().splitlines())
                   if r.get("kind") == "train"]
        if not batches:
            continue
        runs.append(Run(metrics.parent, _difficulty(cfg["tasks"]["ids"]), int(cfg["rl"]["group_size"]),
                        float(cfg["rl"]["lr"]), batches))
    if not runs:
        raise FileNotFoundError(f"no runs (config.json + metrics.jsonl) under {root}; pass the sweep folder")
    return runs


def _colours(groups: Sequence[int]):
    import matplotlib.pyplot as plt
    cmap = plt.get_cmap("viridis")
    gs = sorted(set(groups))
    return {g: cmap(i / max(1, len(gs) - 1)) for i, g in enumerate(gs)}


def grid_figure(runs: Sequence[Run], out: str | Path, window: int = WINDOW):
    """Rows LR, columns difficulty, colours G: pale batch returns, trailing means, final dots."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    lrs = sorted({r.lr for r in runs})
    diffs = [d for d in DIFFICULTIES if any(r.difficulty == d for r in runs)] or sorted({r.difficulty for r in runs})
    colour = _colours([r.group_size for r in runs])
    fig, axes = plt.subplots(len(lrs), len(diffs), figsize=(4 * len(diffs), 2.6 * len(lrs)), squeeze=False,
                             sharex=True, sharey=True)
    for i, lr in enumerate(lrs):
        for j, d in enumerate(diffs):
            ax = axes[i][j]
            for r in sorted((r for r in runs if r.lr == lr and r.difficulty == d), key=lambda r: r.group_size):
                x, c = r.rollouts, colour[r.group_size]
                ax.plot(x, r.batch_means(), color=c, alpha=0.25, lw=0.8)
                tr = r.trailing(window)
                ax.plot(x, tr, color=c, lw=1.8, label=f"G={r.group_size}")
                ax.plot(x[-1:], tr[-1:], "o", color=c, ms=4)
            if i == 0:
                ax.set_title(f"Snake {d}")
            if j == 0:
                ax.set_ylabel(f"LR {lr:g}\nreturn")
            if i == len(lrs) - 1:
                ax.set_xlabel("rollouts")
    handles, labels = axes[0][0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="upper center", ncol=len(handles), frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def peak_final_table(runs: Sequence[Run], window: int = WINDOW) -> list[dict]:
    rows = []
    for r in sorted(runs, key=lambda r: (DIFFICULTIES.index(r.difficulty) if r.difficulty in DIFFICULTIES else 9,
                                         r.lr, r.group_size)):
        peak, final = peak_and_final(r.batch_returns, window)
        rows.append({"difficulty": r.difficulty, "lr": r.lr, "group_size": r.group_size, "updates": len(r.batch_returns),
                     "rollouts": int(r.rollouts[-1]), "peak": peak, "final": final})
    return rows


def peak_final_figure(runs: Sequence[Run], out: str | Path, window: int = WINDOW):
    """Per difficulty: peak (open) and final (filled) trailing means against LR, colour = G."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    table = peak_final_table(runs, window)
    diffs = [d for d in DIFFICULTIES if any(r["difficulty"] == d for r in table)] or sorted({r["difficulty"] for r in table})
    colour = _colours([r["group_size"] for r in table])
    fig, axes = plt.subplots(1, len(diffs), figsize=(4 * len(diffs), 3.2), squeeze=False, sharey=True)
    for j, d in enumerate(diffs):
        ax = axes[0][j]
        for g in sorted(colour):
            rows = sorted((r for r in table if r["difficulty"] == d and r["group_size"] == g), key=lambda r: r["lr"])
            if not rows:
                continue
            lr = [r["lr"] for r in rows]
            ax.plot(lr, [r["peak"] for r in rows], "o--", mfc="none", color=colour[g], lw=1)
            ax.plot(lr, [r["final"] for r in rows], "o-", color=colour[g], lw=1.5, label=f"G={g}")
        ax.set_xscale("log")
        ax.set_title(f"Snake {d}: peak (open) vs final (filled)")
        ax.set_xlabel("learning rate")
    axes[0][0].set_ylabel(f"trailing {window}-rollout mean return")
    axes[0][0].legend(frameon=False, fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def make_all(root: str | Path, out_dir: str | Path | None = None, window: int = WINDOW) -> dict:
    """Both figures and the peak/final table (JSON + Markdown) for a sweep folder."""
    runs = load_runs(root)
    out = Path(out_dir or root)
    out.mkdir(parents=True, exist_ok=True)
    table = peak_final_table(runs, window)
    (out / "snake_peak_final.json").write_text(json.dumps(table, indent=1))
    md = ["| difficulty | LR | G | updates | rollouts | peak | final |", "|---|---|---|---|---|---|---|"]
    md += [f"| {r['difficulty']} | {r['lr']:g} | {r['group_size']} | {r['updates']} | {r['rollouts']} | "
           f"{r['peak']:.3f} | {r['final']:.3f} |" for r in table]
    (out / "snake_peak_final.md").write_text("\n".join(md) + "\n")
    return {"grid": str(grid_figure(runs, out / "snake_grid.png", window)),
            "peak_final": str(peak_final_figure(runs, out / "snake_peak_final.png", window)),
            "table": table}
