"""Reports from evaluation results and training logs: per-suite tables, return distributions per
suite (runs side by side), episode length and token use, learning curves with trailing means.
Figures are written as PNG and SVG (matplotlib, Agg backend); tables as Markdown.

    python -m eval.reports --results base.json tuned.json --metrics runs/snake/metrics.jsonl --out report/

Inputs: results JSON from `glyphjax-eval` / `eval.benchmark` (every run in each file becomes a
column, labelled `file:run` when several files are given) and the trainer's metrics JSON Lines
(`kind: "train"` records with per-episode `returns` and cumulative `rollouts`; `kind: "eval"`
records with `return_mean`). Learning curves follow the Snake study: pale per-update batch
returns, a solid trailing mean over the last `window` rollouts (default 512), a dot at the final
observation; held-out evaluations as markers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from eval.results import TaskResult

TRAILING_WINDOW = 512


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save_figure(fig, out_dir: Path, name: str) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{name}.png", out_dir / f"{name}.svg"]
    fig.savefig(paths[0], dpi=120, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight")
    _plt().close(fig)
    return paths


# --- inputs ---------------------------------------------------------------------------------------

def load_runs(paths: Sequence[str | os.PathLike]) -> dict[str, dict[str, TaskResult]]:
    """{label: {task: TaskResult}} from results files; labels `run` (one file) or `file:run`."""
    from eval.benchmark import load_results
    runs: dict[str, dict[str, TaskResult]] = {}
    for p in paths:
        for label, res in load_results(p).items():
            runs[label if len(paths) == 1 else f"{Path(p).stem}:{label}"] = res
    return runs


def load_metrics(path: str | os.PathLike) -> tuple[list[dict], list[dict]]:
    """(train records, eval records) of a trainer metrics JSON Lines file."""
    train, evals = [], []
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            raise ValueError(f"{path}:{i}: not a JSON line") from None
        (evals if rec.get("kind") == "eval" else train).append(rec)
    return train, evals


# --- computations -----------------------------------------------------------------------------------

def trailing_mean(values: Sequence[float], window: int = TRAILING_WINDOW) -> np.ndarray:
    """out[i] = mean(values[max(0, i - window + 1) : i + 1]) (shorter windows at the start)."""
    v = np.asarray(values, np.float64)
    if window < 1:
        raise ValueError("window must be >= 1")
    c = np.concatenate([[0.0], np.cumsum(v)])
    i = np.arange(1, len(v) + 1)
    lo = np.maximum(0, i - window)
    return (c[i] - c[lo]) / (i - lo)


def curve_points(train: Sequence[dict], window: int = TRAILING_WINDOW) -> dict[str, np.ndarray]:
    """Per-episode x (rollout index, 1-based), returns and their trailing means; per-update batch
    means at the update's last rollout; peak and final trailing means."""
    returns, batch_x, batch_y, batch_u = [], [], [], []
    for rec in train:
        rs = rec.get("returns")
        if rs is None:
            rs = [rec["return_mean"]]
        returns.extend(float(r) for r in rs)
        batch_x.append(len(returns))
        batch_y.append(float(np.mean(rs)))
        batch_u.append(int(rec.get("update", len(batch_u) + 1)))
    tm = trailing_mean(returns, window) if returns else np.zeros(0)
    return {"x": np.arange(1, len(returns) + 1), "returns": np.asarray(returns), "trailing": tm,
            "batch_x": np.asarray(batch_x), "batch_y": np.asarray(batch_y), "batch_update": np.asarray(batch_u),
            "peak": float(tm.max()) if len(tm) else float("nan"),
            "final": float(tm[-1]) if len(tm) else float("nan")}


def suite_rows(runs: Mapping[str, Mapping[str, TaskResult]], n_resamples: int = 10_000) -> dict:
    """{suite: {label: aggregate}} plus 'all' (suites weighted equally), from eval.stats.aggregate."""
    from eval.stats import aggregate
    table: dict[str, dict[str, dict]] = {}
    for label, res in runs.items():
        agg = aggregate(res, n_resamples=n_resamples)
        for suite, a in agg["suites"].items():
            lengths = float(np.mean([res[t].lengths.mean() for t in res if res[t].suite == suite]))
            tok = [res[t] for t in res if res[t].suite == suite and res[t].prompt_tokens is not None]
            table.setdefault(suite, {})[label] = {
                **a, "mean_length": lengths,
                "tokens": float(np.mean([(r.prompt_tokens + r.completion_tokens).mean() for r in tok])) if tok else None}
        table.setdefault("all", {})[label] = {"score": agg["score"], "score_ci": agg["score_ci"], "tasks": agg["tasks"]}
    return table


def markdown_suite_table(table: Mapping[str, Mapping[str, dict]]) -> str:
    labels = sorted({l for row in table.values() for l in row})
    lines = ["| suite | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
    for suite in [s for s in sorted(table) if s != "all"] + (["all"] if "all" in table else []):
        cells = []
        for l in labels:
            a = table[suite].get(l)
            cells.append("-" if a is None else f"{a['score']:.3f} [{a['score_ci'][0]:.3f}, {a['score_ci'][1]:.3f}] ({a['tasks']})")
        name = "**all (suites equal)**" if suite == "all" else suite
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def eval_interval(rec: Mapping) -> tuple[float, float] | None:
    """95% percentile bootstrap interval of a held-out evaluation record's mean return (its
    `returns`, one per episode; eval.stats.mean_ci); None for a record without them or with
    several tasks (their mean weighs tasks equally, not episodes)."""
    from eval.stats import mean_ci
    rs = rec.get("returns")
    if not rs or len(rec.get("per_task") or {"": 0}) != 1:
        return None
    return mean_ci(np.asarray(rs, np.float64))[1:]


def eval_change(first: Mapping, last: Mapping) -> dict | None:
    """Held-out return of `last` minus `first` (two evaluation records of one run on the same seeds,
    one task): the mean difference and its paired 95% bootstrap interval (episodes resampled with
    their pair, eval.stats.mean_ci on the per-episode differences); None where not comparable."""
    from eval.stats import mean_ci
    a, b = first.get("returns"), last.get("returns")
    if (not a or not b or len(a) != len(b) or first.get("seeds") != last.get("seeds")
            or len(first.get("per_task") or {"": 0}) != 1):
        return None
    d = np.asarray(b, np.float64) - np.asarray(a, np.float64)
    mean, lo, hi = mean_ci(d)
    return {"from_update": first.get("update"), "to_update": last.get("update"), "episodes": len(d),
            "mean_difference": mean, "difference_ci": [lo, hi]}


# --- figures -----------------------------------------------------------------------------------------

def plot_learning_curves(curves: Mapping[str, Mapping[str, np.ndarray]], out_dir: Path,
                         evals: Mapping[str, Sequence[dict]] | None = None, window: int = TRAILING_WINDOW,
                         name: str = "learning_curves") -> list[Path]:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, (label, c) in enumerate(curves.items()):
        color = f"C{i}"
        ax.plot(c["batch_x"], c["batch_y"], color=color, alpha=0.25, lw=0.8)
        ax.plot(c["x"], c["trailing"], color=color, lw=2, label=f"{label} (peak {c['peak']:.3f}, final {c['final']:.3f})")
        if len(c["x"]):
            ax.plot(c["x"][-1], c["trailing"][-1], "o", color=color)
        ev = [e for e in (evals or {}).get(label, []) if "return_mean" in e]
        if ev:  # held-out evaluations, placed at the rollout count of their update
            at = dict(zip(c["batch_update"].tolist(), c["batch_x"].tolist()))
            ex = [at.get(int(e.get("update", 0)), 0) for e in ev]
            ey = [e["return_mean"] for e in ev]
            ax.plot(ex, ey, "s--", color=color, ms=4, lw=0.8, alpha=0.8, label=f"{label} held-out eval")
            cis = [eval_interval(e) for e in ev]
            if all(ci is not None for ci in cis):  # 95% bootstrap over the held-out episodes
                ax.errorbar(ex, ey, yerr=[[y - lo for y, (lo, _) in zip(ey, cis)], [hi - y for y, (_, hi) in zip(ey, cis)]],
                            fmt="none", ecolor=color, capsize=3, lw=1, alpha=0.8)
    ax.set_xlabel("rollouts")
    ax.set_ylabel(f"return (trailing {window}-rollout mean)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return save_figure(fig, out_dir, name)


def plot_return_distributions(runs: Mapping[str, Mapping[str, TaskResult]], out_dir: Path) -> list[Path]:
    """Per suite, the per-episode return distribution of each run side by side (box plots)."""
    plt = _plt()
    suites = sorted({r.suite for res in runs.values() for r in res.values()})
    labels = list(runs)
    fig, ax = plt.subplots(figsize=(max(5, 1.6 * len(suites) * max(1, len(labels))), 4))
    width = 0.8 / max(1, len(labels))
    for j, label in enumerate(labels):
        data = [np.concatenate([r.returns for r in runs[label].values() if r.suite == s] or [np.zeros(0)])
                for s in suites]
        pos = np.arange(len(suites)) + (j - (len(labels) - 1) / 2) * width
        bp = ax.boxplot([d if len(d) else [np.nan] for d in data], positions=pos, widths=width * 0.9,
                        patch_artist=True, showfliers=False)
        for box in bp["boxes"]:
            box.set_facecolor(f"C{j}")
            box.set_alpha(0.6)
        ax.plot([], [], color=f"C{j}", lw=8, alpha=0.6, label=label)
    ax.set_xticks(np.arange(len(suites)), suites)
    ax.set_ylabel("episode return")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    return save_figure(fig, out_dir, "return_distributions")


def plot_length_and_tokens(table: Mapping[str, Mapping[str, dict]], out_dir: Path) -> list[Path]:
    plt = _plt()
    suites = [s for s in sorted(table) if s != "all"]
    labels = sorted({l for s in suites for l in table[s]})
    has_tok = any(table[s][l].get("tokens") for s in suites for l in table[s])
    fig, axes = plt.subplots(1, 2 if has_tok else 1, figsize=(10 if has_tok else 6, 3.5), squeeze=False)
    width = 0.8 / max(1, len(labels))
    for k, (key, ylabel) in enumerate([("mean_length", "mean episode length (turns)"),
                                       ("tokens", "prompt + completion tokens / episode")][: 2 if has_tok else 1]):
        ax = axes[0][k]
        for j, l in enumerate(labels):
            vals = [(table[s].get(l) or {}).get(key) or 0.0 for s in suites]
            ax.bar(np.arange(len(suites)) + (j - (len(labels) - 1) / 2) * width, vals, width, label=l, color=f"C{j}")
        ax.set_xticks(np.arange(len(suites)), suites)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3, axis="y")
    axes[0][0].legend(fontsize=8)
    return save_figure(fig, out_dir, "length_and_tokens")


def paired_section(runs: Mapping[str, Mapping[str, TaskResult]], n_resamples: int = 10_000) -> list[str]:
    """Markdown lines comparing two runs on matched seeds (empty unless exactly two runs share
    their tasks and seeds)."""
    from eval.stats import paired_difference
    if len(runs) != 2:
        return []
    (la, a), (lb, b) = runs.items()
    try:
        d = paired_difference(a, b, n_resamples=n_resamples)
    except ValueError:
        return []
    lo, hi = d["difference_ci"]
    lines = ["## Paired comparison", "",
             f"{la} minus {lb} on the same tasks and seeds (suite-balanced): **{d['mean_difference']:+.3f}** "
             f"[{lo:+.3f}, {hi:+.3f}], A better in {d['prob_a_better']:.1%} of resamples.", "",
             "| task | difference [95% CI] |", "|---|---:|"]
    lines += [f"| {t} | {v['mean_difference']:+.3f} [{v['difference_ci'][0]:+.3f}, {v['difference_ci'][1]:+.3f}] |"
              for t, v in d["tasks"].items()]
    return lines + [""]


# --- the report ---------------------------------------------------------------------------------------

def make_report(results: Sequence[str | os.PathLike] = (), metrics: Sequence[str | os.PathLike] = (),
                out_dir: str | os.PathLike = "report", window: int = TRAILING_WINDOW,
                n_resamples: int = 10_000) -> Path:
    """Write tables and figures to `out_dir`; returns the path of `report.md`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md = ["# glyphjax report", ""]
    if results:
        runs = load_runs(results)
        table = suite_rows(runs, n_resamples)
        md += ["## Suite scores", "", "Mean return, tasks weighted equally within a suite and suites equally "
               "overall; 95% bootstrap interval (seeds resampled within tasks); number of tasks.", "",
               markdown_suite_table(table), ""]
        for p in plot_return_distributions(runs, out) + plot_length_and_tokens(table, out):
            if p.suffix == ".png":
                md.append(f"![{p.stem}]({p.name})")
        md.append("")
        (out / "suite_scores.json").write_text(json.dumps(table, indent=1), encoding="utf-8")
        md += paired_section(runs, n_resamples)
    if metrics:
        curves, evals = {}, {}
        for m in metrics:
            train, ev = load_metrics(m)
            label = Path(m).parent.name or Path(m).stem
            curves[label] = curve_points(train, window)
            evals[label] = ev
        paths = plot_learning_curves(curves, out, evals, window)
        md += ["## Learning curves", "", f"Trailing {window}-rollout means (pale: per-update batch returns).", "",
               "| run | rollouts | peak | final |", "|---|---:|---:|---:|"]
        md += [f"| {l} | {len(c['x'])} | {c['peak']:.3f} | {c['final']:.3f} |" for l, c in curves.items()]
        md += ["", f"![learning curves]({paths[0].name})", ""]
        for label, ev in evals.items():
            if ev:
                cis = [eval_interval(e) for e in ev]
                md += [f"Held-out evaluations of {label}: " + ", ".join(
                    f"update {e.get('update')}: {e.get('return_mean', float('nan')):.3f}"
                    + ("" if ci is None else f" [{ci[0]:.3f}, {ci[1]:.3f}]") for e, ci in zip(ev, cis)), ""]
                ch = eval_change(ev[0], ev[-1]) if len(ev) > 1 else None
                if ch is not None:
                    md += [f"Held-out change of {label}, update {ch['from_update']} -> {ch['to_update']} "
                           f"({ch['episodes']} paired episodes, same seeds): {ch['mean_difference']:+.3f} "
                           f"[{ch['difference_ci'][0]:+.3f}, {ch['difference_ci'][1]:+.3f}] (95% paired bootstrap)", ""]
    path = out / "report.md"
    path.write_text("\n".join(md), encoding="utf-8")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.reports", description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", nargs="*", default=[], help="results JSON files (glyphjax-eval out=...)")
    ap.add_argument("--metrics", nargs="*", default=[], help="trainer metrics.jsonl files")
    ap.add_argument("--out", default="report")
    ap.add_argument("--window", type=int, default=TRAILING_WINDOW)
    args = ap.parse_args(argv)
    if not args.results and not args.metrics:
        ap.error("give --results and/or --metrics")
    try:
        path = make_report(args.results, args.metrics, args.out, args.window)
    except (OSError, ValueError, KeyError) as e:
        print(f"eval.reports: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
