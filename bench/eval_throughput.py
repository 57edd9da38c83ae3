"""Evaluation throughput: episodes/s of the random baseline over the registered task set.

    python bench/eval_throughput.py                    # every registered task, 4,096 seeds each
    python bench/eval_throughput.py --tasks 'classics/*' --seeds 4096

Per task: the first `glyphjax.rollout` call (compile + run) is timed as compile time; then the
median of `--repeats` calls on fresh held-out seeds gives episodes/s (whole episodes, vmapped, one
`lax.while_loop` that stops when every episode is over). Totals: all episodes over all run time
(compile excluded), and the compile time summed over tasks.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from eval.runner import array_policy
from eval.seeds import EVAL_SEED_START


def bench_task(task: str, n: int, repeats: int) -> dict:
    env = glyphjax.make(task)
    pol = array_policy(env, "random")
    seeds = lambda k: jnp.asarray(np.arange(EVAL_SEED_START + k * n, EVAL_SEED_START + (k + 1) * n, dtype=np.uint32))
    t = time.process_time()
    t0 = time.perf_counter()
    res = glyphjax.rollout(env, pol, seeds(0))
    jax.block_until_ready(res.returns)
    first_wall, first_cpu = time.perf_counter() - t0, time.process_time() - t
    times, steps = [], 0
    for k in range(1, repeats + 1):
        t0 = time.perf_counter()
        res = glyphjax.rollout(env, pol, seeds(k))
        jax.block_until_ready(res.returns)
        times.append(time.perf_counter() - t0)
        steps = int(np.asarray(res.lengths).sum())
    sec = statistics.median(times)
    return {"task": task, "episodes": n, "seconds": sec, "episodes_per_s": n / sec,
            "env_steps_per_s": steps / sec, "mean_length": steps / n,
            "first_call_s": first_wall, "compile_cpu_s_upper": first_cpu,
            "mean_return": float(np.asarray(res.returns).mean())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", nargs="+", default=["*"])
    ap.add_argument("--seeds", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    try:
        tasks = glyphjax.task_ids(args.tasks)
    except glyphjax.UnknownTaskError as e:
        print(f"eval_throughput: error: {e}", file=sys.stderr)
        return 2
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table
    rows = []
    with Progress(console=Console(stderr=True)) as prog:
        bar = prog.add_task("random baseline", total=len(tasks))
        for task in tasks:
            prog.update(bar, description=task)
            rows.append(bench_task(task, args.seeds, args.repeats))
            prog.advance(bar)
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    from env_throughput import machine
    table = Table(title=f"eval throughput, random baseline, {args.seeds} seeds/task "
                        f"({datetime.date.today()}; {machine()})", title_justify="left")
    for col in ("task", "episodes/s", "env steps/s", "mean length", "first call s"):
        table.add_column(col, justify="left" if col == "task" else "right")
    for r in rows:
        table.add_row(r["task"], f"{r['episodes_per_s']:,.0f}", f"{r['env_steps_per_s']:,.0f}",
                      f"{r['mean_length']:.1f}", f"{r['first_call_s']:.1f}")
    total_eps = sum(r["episodes"] for r in rows)
    total_s = sum(r["seconds"] for r in rows)
    first = sum(r["first_call_s"] for r in rows)
    table.add_section()
    table.add_row(f"all {len(rows)} tasks", f"{total_eps / total_s:,.0f}", "", "", f"{first:.0f}")
    Console(width=140).print(table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                       "machine": machine(), "seeds": args.seeds, "tasks": rows,
                       "total_episodes_per_s": total_eps / total_s, "total_first_call_s": first}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
