"""Progress of evaluation runs on stderr (stdout stays clean for tables).

On a terminal: a rich progress bar (tasks done, elapsed time, the current task and its status).
Off a terminal (cluster logs, pipes): plain-text lines, the first when the run starts, then at
most one every `GLYPHJAX_PROGRESS_SECONDS` (default 30) and one at the end, each complete in
itself: `[random] 12/50 tasks, 0:03:10 elapsed, ~0:12:40 left; now minigrid/doorkey-8x8: ...`.

Code deep inside a task (the LLM rollout) reports a status with `report_status(text)`; it goes to
the innermost active progress display, or nowhere.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import sys
import time
from typing import Callable, Iterator, TextIO

DEFAULT_SECONDS = 30.0
_ACTIVE: list["_Display"] = []


def report_status(text: str) -> None:
    """Show `text` as the current task's status in the innermost active progress display."""
    if _ACTIVE:
        _ACTIVE[-1].status(text)


def _hms(seconds: float) -> str:
    return str(datetime.timedelta(seconds=int(seconds)))


class _Display:
    """What every progress display does: count tasks, remember the current one and its status."""

    def __init__(self, total: int, label: str, unit: str = "tasks"):
        self.total, self.label, self.unit = total, label, unit
        self.finished, self.current, self.text = 0, "", ""

    def __call__(self, name: str) -> None:
        """Called before each task; the previous one (if any) counts as finished."""
        if self.current:
            self.finished += 1
        self.current, self.text = name, ""
        self.refresh()

    def status(self, text: str) -> None:
        self.text = text
        self.refresh()

    def refresh(self, final: bool = False) -> None:
        raise NotImplementedError

    def close(self) -> None:
        if self.current:
            self.finished += 1
        self.current, self.text = "", ""
        self.refresh(final=True)


class PlainProgress(_Display):
    """Rate-limited plain-text progress lines for logs (see the module docstring)."""

    def __init__(self, total: int, label: str, stream: TextIO, interval: float,
                 clock: Callable[[], float] = time.monotonic, unit: str = "tasks"):
        super().__init__(total, label, unit)
        self.stream, self.interval, self.clock = stream, interval, clock
        self.start = clock()
        self.last: float | None = None

    def line(self) -> str:
        elapsed = self.clock() - self.start
        out = f"[{self.label}] {self.finished}/{self.total} {self.unit}, {_hms(elapsed)} elapsed"
        if 0 < self.finished < self.total:
            out += f", ~{_hms(elapsed / self.finished * (self.total - self.finished))} left"
        if self.current:
            out += f"; now {self.current}" + (f": {self.text}" if self.text else "")
        return out

    def refresh(self, final: bool = False) -> None:
        now = self.clock()
        if final or self.last is None or now - self.last >= self.interval:
            self.last = now
            print(self.line() + (" (done)" if final and self.finished == self.total else ""),
                  file=self.stream, flush=True)


class RichProgress(_Display):
    """A rich progress bar on a terminal."""

    def __init__(self, total: int, label: str, prog, bar):
        super().__init__(total, label)
        self.prog, self.bar = prog, bar

    def refresh(self, final: bool = False) -> None:
        shown = "done" if final else self.current + (f" · {self.text}" if self.text else "")
        self.prog.update(self.bar, completed=self.finished, current=shown)


def _interval() -> float:
    try:
        return float(os.environ.get("GLYPHJAX_PROGRESS_SECONDS", DEFAULT_SECONDS))
    except ValueError:
        return DEFAULT_SECONDS


@contextlib.contextmanager
def task_progress(total: int, label: str, enabled: bool = True, stream: TextIO | None = None,
                  unit: str = "tasks") -> Iterator[Callable[[str], None]]:
    """Yields `advance(name)`: call it before each item (task, episode: `unit`). A bar on a
    terminal, plain-text lines otherwise; `report_status` inside updates the current status."""
    if not enabled or total == 0:
        yield lambda name: None
        return
    stream = stream or sys.stderr
    if not stream.isatty():
        display: _Display = PlainProgress(total, label, stream, _interval(), unit=unit)
        with _active(display):
            yield display
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                               TimeElapsedColumn)
    with Progress(SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("{task.fields[current]}"),
                  console=Console(file=stream), transient=False) as prog:
        display = RichProgress(total, label, prog, prog.add_task(label, total=total, current=""))
        with _active(display):
            yield display


@contextlib.contextmanager
def _active(display: _Display) -> Iterator[None]:
    _ACTIVE.append(display)
    try:
        yield
    finally:
        _ACTIVE.remove(display)
    display.close()  # not reached on an exception: a failed run does not report "done"


class LLMTaskMeter:
    """Status of one task's LLM rollout after each policy call (one per turn, two with the
    memory harness): calls, finished episodes, completion and prompt tokens per second of wall
    time since the task started."""

    def __init__(self, episodes: int, clock: Callable[[], float] = time.monotonic):
        self.episodes, self.clock = episodes, clock
        self.start = clock()
        self.turns = self.done = self.prompt_tokens = self.completion_tokens = 0

    def call(self, completions, seconds: float = 0.0) -> None:
        """After each policy call (`completions`: objects with prompt_ids and completion_ids)."""
        self.turns += 1
        self.prompt_tokens += sum(len(c.prompt_ids) for c in completions)
        self.completion_tokens += sum(len(c.completion_ids) for c in completions)
        report_status(self.text())

    def episode(self, record) -> None:
        self.done += 1
        report_status(self.text())

    def text(self) -> str:
        wall = max(self.clock() - self.start, 1e-9)
        return (f"call {self.turns}, {self.done}/{self.episodes} episodes, "
                f"{self.completion_tokens / wall:,.0f} completion tok/s, "
                f"{self.prompt_tokens / wall:,.0f} prompt tok/s")
