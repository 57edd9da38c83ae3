"""Matched-seed benchmark runs, resumable task by task.

Every policy sees the same held-out seeds (default 25 per task from `EVAL_SEED_START`), so two
runs can be compared seed by seed (`eval.stats.paired_difference`). Each finished task is
appended at once to `<out>.partial.jsonl` (flushed and fsynced); a rerun after a crash reads that
file and only evaluates the tasks still missing (the key also holds the code version,
`eval.runid`). Ctrl-C stops with one line and exit status 130, finished tasks kept. The final
results JSON and a table are written when every task is done.

    python -m eval.benchmark --policy random --tasks 'classics/*' --seeds 25 --out bench.json
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import hashlib
import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

import numpy as np

from eval.results import TaskResult
from eval.seeds import EVAL_SEED_START, eval_seeds

DEFAULT_SEEDS_PER_TASK = 25

TaskEvaluator = Callable[[str, np.ndarray], TaskResult]


def run_key(label: str, seeds: np.ndarray, identity: str = "") -> str:
    """Identifies a run in the partial file: the policy label, the exact seeds and `identity`
    (everything else that changes results: config, checkpoint, code; `eval.runid`)."""
    h = hashlib.sha1(np.asarray(seeds, np.int64).tobytes() + identity.encode("utf-8")).hexdigest()[:12]
    return f"{label}@{h}"


def partial_path(out: str | os.PathLike) -> Path:
    return Path(str(out) + ".partial.jsonl")


def load_partial(path: Path, key: str, others: set[str] | None = None) -> dict[str, TaskResult]:
    """Finished tasks of run `key`; a torn last line (crash while writing) is ignored. Tasks
    finished under another key with the same label are added to `others` when given."""
    done: dict[str, TaskResult] = {}
    if not path.exists():
        return done
    label = key.rsplit("@", 1)[0]
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if rec.get("key") == key:
            r = TaskResult.from_json(rec["result"])
            done[r.task] = r
        elif others is not None and str(rec.get("key", "")).rsplit("@", 1)[0] == label:
            others.add(rec.get("result", {}).get("task", "?"))
    return done


def report_resume(path: Path, task_ids: Sequence[str], n_seeds: int, done: Mapping[str, TaskResult],
                  stale: set[str]) -> None:
    """One line on stderr saying what a resume reused (and what it could not reuse)."""
    reused = sum(len(done[t]) for t in task_ids if t in done)
    if reused:
        print(f"resumed {reused} of {len(task_ids) * n_seeds} episodes from {path}", file=sys.stderr)
    stale = {t for t in stale if t in set(task_ids) and t not in done}
    if stale:
        print(f"{path}: {len(stale)} task(s) there were run with another config, checkpoint, seeds or "
              "code version; evaluating them again", file=sys.stderr)


def append_partial(path: Path, key: str, result: TaskResult) -> None:
    """Append one finished task as a line (after a newline if a torn line ends the file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    torn = False
    if path.exists() and path.stat().st_size:
        with open(path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            torn = f.read(1) != b"\n"
    line = ("\n" if torn else "") + json.dumps({"key": key, "result": result.to_json()}) + "\n"
    with open(path, "a", encoding="utf-8") as f:
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


class EvaluationInterrupted(KeyboardInterrupt):
    """Ctrl-C inside `run_tasks`: the finished tasks are on disk in `partial` (if any). Still a
    KeyboardInterrupt, so `except Exception` handlers let it through and callers that catch
    KeyboardInterrupt keep working."""

    def __init__(self, label: str, finished: int, total: int, partial: Path | None):
        self.label, self.finished, self.total, self.partial = label, finished, total, partial
        where = (f"saved in {partial}; rerun the same command to resume" if partial
                 else "not saved (no output file)")
        super().__init__(f"interrupted: {finished} of {total} tasks of {label} finished, {where}")


EXIT_INTERRUPTED = 130  # 128 + SIGINT, what shells report for a Ctrl-C


@contextlib.contextmanager
def sigint_seen() -> Iterator[Callable[[], bool]]:
    """Yields `seen()`: whether SIGINT arrived inside the block. The previous handler still runs
    (KeyboardInterrupt as usual); this only remembers it, for code that swallows it (a
    KeyboardInterrupt raised inside a garbage-collector callback is "ignored" by Python: that
    report is silenced here, the run stops at the next check). Outside the main thread (no
    signal handlers there) or with SIGINT ignored, `seen()` is always False."""
    hit = [False]
    previous = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
    if previous is None or previous == signal.SIG_IGN:  # not ours to handle, or Ctrl-C is ignored
        yield lambda: False
        return

    def handler(signum, frame):
        hit[0] = True
        if callable(previous):
            previous(signum, frame)
    unraisable = sys.unraisablehook

    def quiet(info):
        if not (hit[0] and isinstance(info.exc_value, KeyboardInterrupt)):
            unraisable(info)
    signal.signal(signal.SIGINT, handler)
    sys.unraisablehook = quiet
    try:
        yield lambda: hit[0]
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = unraisable


def run_tasks(task_ids: Sequence[str], seeds: np.ndarray, evaluate: TaskEvaluator, label: str,
              out: str | os.PathLike | None = None, resume: bool = True,
              progress: bool = False, identity: str = "") -> dict[str, TaskResult]:
    """Evaluate every task on `seeds`, skipping tasks already in the partial file of `out` under
    the same key (label, seeds, `identity`)."""
    seeds = np.asarray(seeds, np.int64)
    key = run_key(label, seeds, identity)
    ppath = partial_path(out) if out else None
    done: dict[str, TaskResult] = {}
    if ppath and resume:
        stale: set[str] = set()
        done = load_partial(ppath, key, stale)
        report_resume(ppath, task_ids, len(seeds), done, stale)
    todo = [t for t in task_ids if t not in done]
    from eval.progress import task_progress
    from glyphjax.core.compiled import release_if_crowded
    try:
        with sigint_seen() as seen, task_progress(len(todo), f"{label}", enabled=progress) as advance:
            for task in todo:
                if seen():  # a Ctrl-C that library code swallowed still stops the run here
                    raise KeyboardInterrupt
                advance(task)
                r = evaluate(task, seeds)
                if not np.array_equal(np.sort(r.seeds), np.sort(seeds)):
                    raise RuntimeError(f"{task}: evaluator returned seeds that differ from the requested ones")
                if ppath:
                    append_partial(ppath, key, r)
                done[task] = r
                release_if_crowded()  # a whole-registry run must not reach the kernel's map cap
    except KeyboardInterrupt:
        raise EvaluationInterrupted(label, sum(t in done for t in task_ids), len(task_ids), ppath) from None
    return {t: done[t] for t in task_ids}


def results_document(runs: Mapping[str, Mapping[str, TaskResult]], config: dict | None = None,
                     n_resamples: int = 10_000, bootstrap_seed: int = 0, confidence: float = 0.95) -> dict:
    """The results JSON: per run (policy) the per-task summaries, the suite-balanced aggregate
    and the per-episode columns."""
    import glyphjax
    from eval.stats import aggregate, task_summary
    doc = {"glyphjax_version": glyphjax.__version__,
           "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "config": config or {}, "runs": {}}
    for label, results in runs.items():
        doc["runs"][label] = {
            "summary": {t: task_summary(r, n_resamples, bootstrap_seed, confidence) for t, r in results.items()},
            "aggregate": aggregate(results, n_resamples=n_resamples, seed=bootstrap_seed, confidence=confidence),
            "episodes": {t: r.to_json() for t, r in results.items()},
        }
    return doc


def load_results(path: str | os.PathLike) -> dict[str, dict[str, TaskResult]]:
    """Runs of a results JSON -> {label: {task: TaskResult}}."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if "runs" not in doc:
        raise ValueError(f"{path}: not a glyphjax results file (no 'runs')")
    return {label: {t: TaskResult.from_json(e) for t, e in run["episodes"].items()}
            for label, run in doc["runs"].items()}


def write_json(path: str | os.PathLike, doc: dict) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    tmp.replace(path)


def array_evaluator(policy: str, batch_size: int = 4096, split: str | None = None,
                    num_levels: int = 200) -> TaskEvaluator:
    """Vmapped evaluation of an array policy; with `split` (train/test), each task plays that
    level set (`eval.generalisation.split_params`)."""
    from eval.runner import evaluate_task
    if split is None:
        return lambda task, seeds: evaluate_task(task, policy, seeds, batch_size)
    from eval.generalisation import split_params
    return lambda task, seeds: evaluate_task(task, policy, seeds, batch_size,
                                             params=split_params(task, split, num_levels))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.benchmark", description=__doc__.split("\n\n")[0])
    ap.add_argument("--policy", default="random", choices=["random", "scripted"])
    ap.add_argument("--tasks", nargs="+", default=["*"], help="task ids, globs or suite names")
    ap.add_argument("--seeds", type=int, default=DEFAULT_SEEDS_PER_TASK)
    ap.add_argument("--seed-start", type=int, default=EVAL_SEED_START)
    ap.add_argument("--out", default="benchmark_results.json")
    ap.add_argument("--no-resume", action="store_true")
    args = ap.parse_args(argv)
    import glyphjax
    from eval.tables import print_summary_table
    from eval.tasksets import resolve_tasks
    try:
        tasks = resolve_tasks(args.tasks)
        seeds = eval_seeds(args.seeds, args.seed_start)
    except (glyphjax.UnknownTaskError, ValueError) as e:
        print(f"eval.benchmark: error: {e}", file=sys.stderr)
        return 2
    from eval.runid import array_identity
    try:
        results = run_tasks(tasks, seeds, array_evaluator(args.policy), args.policy, args.out,
                            resume=not args.no_resume, progress=True, identity=array_identity())
    except EvaluationInterrupted as e:
        print(f"eval.benchmark: {e}", file=sys.stderr)
        return EXIT_INTERRUPTED
    doc = results_document({args.policy: results}, vars(args))
    write_json(args.out, doc)
    print_summary_table(doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
