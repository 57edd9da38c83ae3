"""Compile time of the programs users run, per task: trace + lower + XLA compile.

    python bench/compile_times.py                         # every classics/* task, B = 4096
    python bench/compile_times.py --tasks 'classics/sokoban-*' --batch 1024

Four programs per task (`--programs` picks some), each `jax.jit(fn).lower(*args).compile()` on its own: jitted vmapped
`reset` (B keys), `step` (B states, keys, actions), `render` (B states), and `rollout`, the
auto-reset scan of bench/env_throughput.py (vmap(AutoReset.step) over B envs with random actions
inside `lax.scan`). Figures are process CPU seconds (robust to load on a shared machine) and wall
seconds. The persistent compilation cache is off and `jax.clear_caches()` runs before every task,
so each task compiles from scratch. Rows are sorted by the worst program; `!` marks > --limit.
`--compiler-option xla_backend_optimization_level=1` passes XLA options to every compile
(`Lowered.compile(compiler_options=...)`), to see what a cheaper backend pipeline would save.
`--hlo` adds each program's optimized-HLO instruction count (load-independent) to its cell.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time

import jax
import jax.numpy as jnp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import glyphjax  # noqa: E402
from env_throughput import machine, scan_length  # noqa: E402
from glyphjax.core.rollout import AutoReset  # noqa: E402

PROGRAMS = ("reset", "step", "render", "rollout")


COMPILER_OPTIONS: dict = {}


def timed_compile(fn, *args) -> tuple[float, float, int]:
    """(process CPU seconds, wall seconds, optimized-HLO instructions) of trace + lower +
    compile of jit(fn) on args."""
    c, t = time.process_time(), time.perf_counter()
    compiled = jax.jit(fn).lower(*args).compile(compiler_options=COMPILER_OPTIONS or None)
    cpu, wall = time.process_time() - c, time.perf_counter() - t
    return cpu, wall, hlo_instructions(compiled.as_text())


def hlo_instructions(hlo_text: str) -> int:
    """Instructions (`name = op(...)` lines, every computation) in an HLO module's text."""
    return sum(1 for line in hlo_text.splitlines() if re.match(r"\s*(ROOT\s+)?%?[\w.\-]+ = ", line))


def task_compile_times(task: str, b: int, programs=PROGRAMS) -> dict[str, tuple[float, float, int]]:
    env = glyphjax.make(task)
    wrapped = AutoReset(env)
    n_actions = env.card.num_actions
    keys = jax.random.split(jax.random.PRNGKey(0), b)
    states = jax.eval_shape(jax.vmap(env.reset), keys)  # abstract: nothing runs
    actions = jax.ShapeDtypeStruct((b,), jnp.int32)
    ar_states = jax.eval_shape(jax.vmap(wrapped.reset), jnp.arange(b, dtype=jnp.uint32))
    n = scan_length(b)

    def rollout(state, key):  # the scan of env_throughput.glyphjax_steps (reset_share=None)
        def body(state, k):
            a = jax.random.randint(k, (b,), 0, n_actions, jnp.int32)
            state, tr, _ = jax.vmap(wrapped.step)(state, a)
            return state, tr.reward.sum()
        state, r = jax.lax.scan(body, state, jax.random.split(key, n))
        return state, r.sum()

    jax.clear_caches()
    parts = {"reset": lambda: timed_compile(jax.vmap(env.reset), keys),
             "step": lambda: timed_compile(jax.vmap(env.step), keys, states, actions),
             "render": lambda: timed_compile(jax.vmap(env.render), states),
             "rollout": lambda: timed_compile(rollout, ar_states, jax.random.PRNGKey(1))}
    return {p: parts[p]() for p in programs}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", nargs="+", default=["classics/*"], help="task ids or globs")
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--programs", nargs="+", default=list(PROGRAMS), choices=PROGRAMS,
                    help="which programs to compile (default: all four)")
    ap.add_argument("--limit", type=float, default=5.0, help="mark programs over this many CPU-s")
    ap.add_argument("--hlo", action="store_true", help="add optimized-HLO instruction counts")
    ap.add_argument("--compiler-option", action="append", default=[], metavar="NAME=VALUE",
                    help="XLA compiler option for every compile (repeatable)")
    args = ap.parse_args(argv)
    for opt in args.compiler_option:
        name, sep, value = opt.partition("=")
        if not sep:
            print(f"compile_times: error: --compiler-option {opt!r} is not NAME=VALUE", file=sys.stderr)
            return 2
        COMPILER_OPTIONS[name] = value
    jax.config.update("jax_enable_compilation_cache", False)
    try:
        tasks = glyphjax.task_ids(args.tasks)
    except glyphjax.UnknownTaskError as e:
        print(f"compile_times: error: {e}", file=sys.stderr)
        return 2
    timed_compile(lambda x: x + 1, jnp.zeros(3))  # JAX's one-off start-up cost, not a task's
    rows = {}
    for task in tasks:
        rows[task] = task_compile_times(task, args.batch, args.programs)
        print(f"{task}: " + ", ".join(f"{p} {rows[task][p][0]:.2f}" for p in args.programs),
              file=sys.stderr, flush=True)
    opts = f"; compiler options {COMPILER_OPTIONS}" if COMPILER_OPTIONS else ""
    hlo = " [optimized-HLO instructions]" if args.hlo else ""
    print(f"Compile CPU-s (wall s){hlo} at B={args.batch}{opts}; {machine()}; load averages "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end; `!` = over {args.limit:g} CPU-s\n")
    print("| task | " + " | ".join(args.programs) + " | worst |")
    print("|---|" + "---:|" * (len(args.programs) + 1))
    for task, r in sorted(rows.items(), key=lambda kv: -max(c for c, _, _ in kv[1].values())):
        cells = [f"{r[p][0]:.2f}{' !' if r[p][0] > args.limit else ''} ({r[p][1]:.1f})"
                 + (f" [{r[p][2]:,}]" if args.hlo else "") for p in args.programs]
        print(f"| {task} | " + " | ".join(cells) + f" | {max(c for c, _, _ in r.values()):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
