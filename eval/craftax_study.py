"""The Craftax observation-format study's table and figure (`+experiment=craftax_obs_formats`).

    python -m eval.craftax_study multirun/craftax_obs_formats/<date> [--out DIR]

Reads every `trajectories.jsonl` under the sweep folder and groups the craftax/full episodes by
(observation format, harness). Per episode the score is 100 R / 226: R is the achievement weight
earned (1, 3, 5 or 8 each; the 67 sum to 226), which is 226 x the sum of the positive step rewards
of craftax/full (its death step pays -1 instead, and is left out). Per cell: mean score, a 95%
Student-t interval (mean +- t(0.975, n-1) s / sqrt(n); none for n = 1) and n. A cell without
episodes is reported as not run (pixels: "needs a vision model"), never as a number. Writes
`craftax_obs_formats.md` (the table) and `craftax_obs_formats.png` (the figure).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Iterable

FORMATS = ("glyph", "native_text", "pixels")
HARNESSES = ("basic", "guided_memory")
TASK = "craftax/full"
NOT_RUN = {"pixels": "not run: needs a vision model (policy=vllm serving one)"}


def episode_score(turn_rewards: Iterable[float]) -> float:
    """100 R / 226 of one craftax/full episode (R = achievement weight earned)."""
    return 100.0 * sum(r for r in turn_rewards if r > 0)


def t_interval(xs: list[float], confidence: float = 0.95) -> tuple[float, float | None]:
    """(mean, half-width of the Student-t interval); half-width None for fewer than 2 values."""
    from scipy import stats

    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return mean, None
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    return mean, float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)


def load_scores(root: str | Path) -> dict[tuple[str, str], list[float]]:
    """{(obs_format, harness): episode scores} of every craftax/full episode under `root`."""
    cells: dict[tuple[str, str], list[float]] = {}
    for path in sorted(Path(root).rglob("*trajectories.jsonl")):
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            ep = json.loads(line)
            if ep.get("task") != TASK:
                continue
            key = (ep.get("obs_format", "glyph"), ep.get("harness", "basic"))
            cells.setdefault(key, []).append(episode_score(t["reward"] for t in ep["turns"]))
    return cells


def table(cells: dict[tuple[str, str], list[float]]) -> str:
    """Markdown: one row per format, one column per harness, 'mean ± half-width (n)'."""
    lines = ["| obs_format | " + " | ".join(HARNESSES) + " |", "|---|" + "---:|" * len(HARNESSES)]
    for fmt in FORMATS:
        row = []
        for h in HARNESSES:
            xs = cells.get((fmt, h))
            if not xs:
                row.append(NOT_RUN.get(fmt, "not run"))
                continue
            mean, half = t_interval(xs)
            row.append(f"{mean:.2f} ± {half:.2f} (n={len(xs)})" if half is not None else f"{mean:.2f} (n=1)")
        lines.append(f"| {fmt} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def figure(cells: dict[tuple[str, str], list[float]], path: str | Path, title: str = "") -> None:
    """Grouped bars (format x harness), 95% t intervals as error bars, unrun cells labelled."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.38
    spans = [t_interval(xs) for xs in cells.values() if xs]
    top = max([m + (h or 0.0) for m, h in spans] + [1.0]) * 1.15
    ax.set_ylim(0, top)
    for k, h in enumerate(HARNESSES):
        for i, fmt in enumerate(FORMATS):
            x = i + (k - 0.5) * width
            xs = cells.get((fmt, h))
            if not xs:
                why = NOT_RUN.get(fmt, "not run").split(": ")
                ax.text(x, top / 2, "\n".join(["not run", *why[1:]]).replace(" (", "\n("), rotation=90,
                        ha="center", va="center", fontsize=7, color="0.35")
                continue
            mean, half = t_interval(xs)
            ax.bar(x, mean, width, yerr=half or 0.0, capsize=4, color=f"C{k}", label=h if i == 0 else None)
            ax.text(x, mean, f"n={len(xs)}", ha="center", va="bottom", fontsize=7)
    ax.set_xlim(-0.6, len(FORMATS) - 0.4)
    ax.set_xticks(range(len(FORMATS)), FORMATS)
    ax.set_ylabel("score = 100 R / 226 (mean, 95% t interval)")
    ax.set_title(title or "Craftax (full): observation format x harness")
    ax.legend(title="harness", loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def report(root: str | Path, out: str | Path | None = None) -> tuple[str, Path]:
    """Write the table and the figure for a sweep folder; -> (table, figure path)."""
    out = Path(out or root)
    out.mkdir(parents=True, exist_ok=True)
    cells = load_scores(root)
    if not cells:
        raise FileNotFoundError(f"no {TASK} episodes in any trajectories.jsonl under {root}")
    text = table(cells)
    (out / "craftax_obs_formats.md").write_text(text + "\n")
    fig = out / "craftax_obs_formats.png"
    figure(cells, fig, f"Craftax (full): observation format x harness ({Path(root).name})")
    return text, fig


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", help="the sweep folder (multirun/craftax_obs_formats/<date>)")
    ap.add_argument("--out", default=None, help="where to write (default: the sweep folder)")
    a = ap.parse_args(argv)
    try:
        text, fig = report(a.root, a.out)
    except FileNotFoundError as e:
        raise SystemExit(f"craftax_study: {e}")
    print(text)
    print(f"figure: {fig}")


if __name__ == "__main__":
    main()
