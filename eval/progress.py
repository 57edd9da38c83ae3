"""Rich progress bars on stderr (stdout stays clean for tables)."""

from __future__ import annotations

import contextlib
from typing import Callable, Iterator


@contextlib.contextmanager
def task_progress(total: int, label: str, enabled: bool = True) -> Iterator[Callable[[str], None]]:
    """Yields `advance(task_name)`: call it before each task; the bar counts finished tasks."""
    if not enabled or total == 0:
        yield lambda name: None
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                               TimeElapsedColumn)
    console = Console(stderr=True)
    with Progress(SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("{task.fields[current]}"),
                  console=console, transient=False) as prog:
        bar = prog.add_task(label, total=total, current="")
        started = [False]

        def advance(name: str) -> None:
            if started[0]:
                prog.advance(bar)
            started[0] = True
            prog.update(bar, current=name)
        yield advance
        if started[0]:
            prog.advance(bar)
        prog.update(bar, current="done")
