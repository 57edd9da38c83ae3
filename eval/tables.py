"""Readable tables (rich) of a results document: one table per run (policy)."""

from __future__ import annotations

import sys
from typing import Any


def _console(file=None):
    from rich.console import Console
    file = file or sys.stdout
    return Console(file=file, width=None if file.isatty() else 140, highlight=False)


def fmt_ci(mean: float, ci) -> str:
    return f"{mean:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"


def fmt_rate(rate: float | None) -> str:
    """A share as a percentage; "—" when the figure does not apply (no success notion)."""
    return "—" if rate is None else f"{rate:.1%}"


def summary_table(label: str, run: dict[str, Any], title: str | None = None):
    from rich.table import Table
    summary = run["summary"]
    has_tokens = any("mean_prompt_tokens" in s for s in summary.values())
    t = Table(title=title or f"policy: {label}", title_justify="left")
    t.add_column("task")
    t.add_column("episodes", justify="right")
    t.add_column("mean return [95% CI]", justify="right")
    t.add_column("success", justify="right")
    t.add_column("mean length", justify="right")
    if has_tokens:
        t.add_column("prompt tok", justify="right")
        t.add_column("completion tok", justify="right")
        t.add_column("parse fail", justify="right")
        t.add_column("trunc", justify="right")
    for task, s in summary.items():
        row = [task, str(s["episodes"]), fmt_ci(s["mean_return"], s["return_ci"]),
               fmt_rate(s["success_rate"]), f"{s['mean_length']:.1f}"]
        if has_tokens:
            row += [f"{s.get('mean_prompt_tokens', 0):.0f}", f"{s.get('mean_completion_tokens', 0):.0f}",
                    f"{s.get('parse_failure_rate') or 0:.1%}", f"{s.get('completion_truncation_rate') or 0:.1%}"]
        t.add_row(*row)
    agg = run.get("aggregate")
    if agg:
        t.add_section()
        for suite, a in agg["suites"].items():
            t.add_row(f"suite {suite} ({a['tasks']} tasks)", "", fmt_ci(a["score"], a["score_ci"]), "", "",
                      *([""] * 4 if has_tokens else []))
        t.add_row("[bold]score (suites equal)[/bold]", "", fmt_ci(agg["score"], agg["score_ci"]), "", "",
                  *([""] * 4 if has_tokens else []))
    return t


def print_summary_table(doc: dict[str, Any], file=None) -> None:
    console = _console(file)
    for label, run in doc["runs"].items():
        console.print(summary_table(label, run))
    for label, note in doc.get("skipped", {}).items():
        console.print(f"[yellow]{label}: {note}[/yellow]")
