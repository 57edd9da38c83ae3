"""Cold compile CPU-seconds of the whole registry, one compile per distinct program.

    python bench/compile_registry.py                      # every id, B = 4096
    python bench/compile_registry.py --tasks 'minigrid/*' --batch 1024 --json out.json
    python bench/compile_registry.py --sample 3          # 3 programs per suite, the rest estimated

A program is what `glyphjax.programs` groups: envs of one engine and one static config (ids
that differ only in traced params). Per program: `jax.jit(...).lower(...).compile()` of the
vmapped reset, step and render at batch B, params passed as a jit argument (so every variant of
the program reuses the compile); `jax.clear_caches()` before each program; the persistent
compilation cache is off. On a tree without `glyphjax.programs` every id is its own program.
Figures are process CPU seconds (robust to load on a shared machine). With `--sample K` only K
programs per suite (evenly spread over its programs in registry order) are compiled and each
suite's total is estimated as its measured mean times its program count (printed as an estimate).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import jax
import jax.numpy as jnp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import glyphjax  # noqa: E402
from compile_times import timed_compile  # noqa: E402

PARTS = ("reset", "step", "render")


def distinct_programs(ids: list[str]) -> dict[str, list[str]]:
    """{program name: ids}: `glyphjax.programs` where it exists, else one program per id."""
    if hasattr(glyphjax, "programs"):
        return glyphjax.programs(ids)
    return {i: [i] for i in ids}


def _cpu_compile(fn, *args) -> float:
    return timed_compile(fn, *args)[0]


def program_compile_seconds(task_id: str, b: int) -> dict[str, float]:
    """CPU-s to compile vmapped reset, step and render of one id's program at batch b."""
    env = glyphjax.make(task_id)
    params = env.default_params()
    keys = jax.random.split(jax.random.PRNGKey(0), b)
    reset = jax.vmap(lambda k, p: env.reset(k, p), in_axes=(0, None))
    step = jax.vmap(lambda k, s, a, p: env.step(k, s, a, p), in_axes=(0, 0, 0, None))
    render = jax.vmap(lambda s, p: env.render(s, p), in_axes=(0, None))
    states = jax.eval_shape(reset, keys, params)
    actions = jax.ShapeDtypeStruct((b,), jnp.int32)
    jax.clear_caches()
    return {"reset": _cpu_compile(reset, keys, params),
            "step": _cpu_compile(step, keys, states, actions, params),
            "render": _cpu_compile(render, states, params)}


def sample_programs(progs: dict[str, list[str]], k: int | None) -> dict[str, list[str]]:
    """At most k programs of each suite, evenly spread over its programs (all of them for None)."""
    if k is None:
        return dict(progs)
    by_suite: dict[str, list[str]] = {}
    for name, members in progs.items():
        by_suite.setdefault(members[0].split("/")[0], []).append(name)
    chosen = set()
    for names in by_suite.values():
        n = min(k, len(names))
        chosen.update(names[round(i * (len(names) - 1) / max(n - 1, 1))] for i in range(n))
    return {name: members for name, members in progs.items() if name in chosen}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", nargs="+", default=["*"], help="task ids or globs")
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--json", default=None, help="also write the per-program figures here (after every program)")
    ap.add_argument("--sample", type=int, default=None,
                    help="compile only this many programs per suite and estimate each suite's total")
    args = ap.parse_args(argv)
    if args.sample is not None and args.sample < 1:
        ap.error(f"--sample must be at least 1 (programs per suite), got {args.sample}")
    jax.config.update("jax_enable_compilation_cache", False)
    try:
        ids = glyphjax.task_ids(args.tasks)
    except glyphjax.UnknownTaskError as e:
        print(f"compile_registry: error: {e}", file=sys.stderr)
        return 2
    _cpu_compile(lambda x: x + 1, jnp.zeros(3))  # JAX's one-off start-up cost
    progs = distinct_programs(ids)
    measured = sample_programs(progs, args.sample)
    rows: dict[str, dict[str, float]] = {}
    for name, members in measured.items():
        rows[name] = program_compile_seconds(members[0], args.batch)
        print(f"{name} ({len(members)} ids): " + ", ".join(f"{p} {rows[name][p]:.2f}" for p in PARTS),
              file=sys.stderr, flush=True)
        if args.json:
            write_json(args.json, args.batch, ids, progs, rows)
    report(ids, progs, rows)
    return 0


def write_json(path: str, batch: int, ids: list[str], progs: dict, rows: dict) -> None:
    with open(path, "w") as f:
        json.dump({"batch": batch, "ids": len(ids), "programs": len(progs),
                   "compiled": {n: {"ids": progs[n], **rows[n]} for n in rows}}, f, indent=1)


def report(ids: list[str], progs: dict[str, list[str]], rows: dict[str, dict[str, float]]) -> None:
    """Totals: measured CPU-s, and per suite the estimate (mean x programs) where it was sampled."""
    total = sum(sum(r.values()) for r in rows.values())
    sampled = len(rows) < len(progs)
    print(f"{len(ids)} ids, {len(progs)} distinct programs, {len(rows)} compiled: cold compile "
          f"{total:.1f} CPU-s (reset + step + render); load averages "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    estimate = 0.0
    for suite in sorted({i.split('/')[0] for i in ids}):
        names = [n for n, m in progs.items() if m[0].startswith(suite + "/")]
        done = [n for n in names if n in rows]
        cpu = sum(sum(rows[n].values()) for n in done)
        est = cpu / len(done) * len(names) if done else float("nan")
        estimate += est
        print(f"  {suite}: {sum(len(progs[n]) for n in names)} ids, {len(names)} programs, {len(done)} compiled "
              f"{cpu:.1f} CPU-s" + (f", estimated total {est:.1f} CPU-s" if len(done) < len(names) else ""))
    if sampled:
        print(f"estimated whole-set cold compile: {estimate:.0f} CPU-s (suite means x program counts)")


if __name__ == "__main__":
    sys.exit(main())
