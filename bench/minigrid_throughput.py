"""MiniGrid throughput and compile time (not a test).

    python3 bench/minigrid_throughput.py [--batch 4096] [--steps 200] [--repeats 3]
                                         [--reset-share 0.0625] [--compile-all] [--profile]
    python3 bench/minigrid_throughput.py --compile-only 'minigrid/keycorridor-*'   # compile table only

Steps/s of random play at batch B (auto-reset on episode end, as RL rollouts run it) for
empty-8x8 and doorkey-8x8, next to navix and xland-minigrid on their equivalent environments in
the same run when they are importable (install them in a throwaway venv if they would change the
JAX version). Every figure is given per wall second and per process CPU-second (robust to other
processes on a shared machine), with the load average at the time.

Auto-reset used by each:
- ours, `vmap(AutoReset.step)`: a fresh reset is built for every slot on every step and selected
  where the episode ended; the final frame is rendered every step (and consumed, so XLA keeps it).
- ours, `--reset-share S`: `AutoReset.step_batch(..., max_resets=K)` with K = max(1, B * S):
  at most K fresh episodes per step (reset cost independent of B).
- navix: its `Environment.step` auto-resets (dm_env style, on the step after the last one) with a
  `lax.cond`, which vmap turns into a select of both branches; symbolic full-grid observation.
- xland-minigrid: `Environment.step` does *not* reset; wrapped in its own
  `GymAutoResetWrapper` (reset on the same step, `lax.cond` -> select under vmap); 7x7 view.

`--compile-all` reports jit compile process-CPU-seconds of reset, step and render vmapped over B
for all MiniGrid ids (71 tasks + partial-view variants), marks those over the 5 s budget and
prints the total (`--compile-only GLOB...`: that table alone, for the matching ids). Each task
is compiled cold (`jax.clear_caches()` before it, persistent cache off). `--profile` prints op counts of doorkey-8x8's vmapped reset/step/render and
their run time per batch call.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import importlib.metadata
import os
import re
import statistics
import time

import jax
import jax.numpy as jnp

import glyphjax
from glyphjax.core.rollout import AutoReset, reset_key, step_key

BUDGET_S = 5.0  # compile budget per task (issue 5)


def load() -> str:
    return "%.1f" % os.getloadavg()[0]


def _rates(run, state, n_steps: int, repeats: int) -> tuple[float, float]:
    """Warm (compile) the scan program once, then time `repeats` calls, each from the previous
    call's final state -> median (steps per wall second, steps per process CPU-second)."""
    out = run(state, jax.random.PRNGKey(0))
    jax.block_until_ready(out)
    walls, cpus = [], []
    for i in range(repeats):
        c, t = time.process_time(), time.perf_counter()
        out = run(out[0], jax.random.PRNGKey(1 + i))
        jax.block_until_ready(out)
        walls.append(n_steps / (time.perf_counter() - t))
        cpus.append(n_steps / max(time.process_time() - c, 1e-9))
    return statistics.median(walls), statistics.median(cpus)


def ours(task: str, batch: int, steps: int, repeats: int, reset_share: float | None = None):
    env = glyphjax.make(task)
    wrapped = AutoReset(env)
    n = env.card.num_actions
    k = None if reset_share is None else max(1, int(batch * reset_share))

    @jax.jit
    def run(states, key):
        def body(s, kk):
            a = jax.random.randint(kk, (batch,), 0, n)
            if k is None:
                s, tr, fr = jax.vmap(lambda st, ac: wrapped.step(st, ac))(s, a)
            else:
                s, tr, fr = wrapped.step_batch(s, a, max_resets=k)
            return s, (tr.reward.sum(), fr.grid.sum(dtype=jnp.uint32))  # consume the frame
        return jax.lax.scan(body, states, jax.random.split(key, steps))

    states = jax.jit(jax.vmap(wrapped.reset))(jnp.arange(batch, dtype=jnp.uint32))
    return _rates(run, states, batch * steps, repeats)


def navix_rates(name: str, batch: int, steps: int, repeats: int):
    try:
        import navix as nx
    except ImportError:
        return None
    env = nx.make(name)

    @jax.jit
    def run(ts, key):
        def body(ts, k):
            a = jax.random.randint(k, (batch,), 0, 7)
            ts = jax.vmap(env.step)(ts, a)  # navix auto-resets inside step
            return ts, ts.reward.sum()
        return jax.lax.scan(body, ts, jax.random.split(key, steps))

    ts = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), batch))
    return _rates(run, ts, batch * steps, repeats)


def xminigrid_rates(name: str, batch: int, steps: int, repeats: int):
    try:
        import xminigrid
        from xminigrid.wrappers import GymAutoResetWrapper
    except ImportError:
        return None
    env, params = xminigrid.make(name)
    env = GymAutoResetWrapper(env)  # xminigrid's step does not reset by itself

    @jax.jit
    def run(ts, key):
        def body(ts, k):
            a = jax.random.randint(k, (batch,), 0, env.num_actions(params))
            ts = jax.vmap(env.step, in_axes=(None, 0, 0))(params, ts, a)
            return ts, ts.reward.sum()
        return jax.lax.scan(body, ts, jax.random.split(key, steps))

    ts = jax.jit(jax.vmap(env.reset, in_axes=(None, 0)))(params, jax.random.split(jax.random.PRNGKey(0), batch))
    return _rates(run, ts, batch * steps, repeats)


def _programs(env, batch: int):
    """The vmapped reset, step and render of one env over a batch (what auto-reset runs)."""
    reset = jax.jit(jax.vmap(lambda s: env.reset(reset_key(s))))
    step = jax.jit(jax.vmap(lambda s, st, a: env.step(step_key(s, st.t), st, a)))
    render = jax.jit(jax.vmap(env.render))
    seeds = jax.ShapeDtypeStruct((batch,), jnp.uint32)
    state = jax.eval_shape(reset, seeds)
    acts = jax.ShapeDtypeStruct((batch,), jnp.int32)
    return (("reset", reset, (seeds,)), ("step", step, (seeds, state, acts)), ("render", render, (state,)))


def compile_times(batch: int, patterns=("minigrid/*",)) -> None:
    """Compile process-CPU-seconds (trace + lower + XLA compile) per task and program."""
    jax.config.update("jax_enable_compilation_cache", False)
    ids = glyphjax.task_ids(list(patterns))
    print(f"\n# compile CPU-s, B={batch}, load {load()} at start, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    print("| task | reset | step | render | total | > 5 s |\n|---|---:|---:|---:|---:|:-:|")
    total, over = 0.0, []
    for task in ids:
        jax.clear_caches()  # cold per task, as a fresh process compiles it (no reuse across tasks)
        env = glyphjax.make(task)
        row = []
        for _, fn, args in _programs(env, batch):
            c = time.process_time()
            fn.lower(*args).compile()
            row.append(time.process_time() - c)
        s = sum(row)
        total += s
        if s > BUDGET_S:
            over.append(task)
        print(f"| {task} | {row[0]:.2f} | {row[1]:.2f} | {row[2]:.2f} | {s:.2f} | {'**yes**' if s > BUDGET_S else ''} |",
              flush=True)
    print(f"| **total ({len(ids)} ids)** | | | | {total:.1f} | {len(over)} over |")
    print(f"load at end {load()}; over budget: {', '.join(over) or 'none'}")


def profile(task: str, batch: int) -> None:
    """Op counts of the lowered vmapped programs and their run time per batch call."""
    env = glyphjax.make(task)
    seeds = jnp.arange(batch, dtype=jnp.uint32)
    progs = _programs(env, batch)
    state = progs[0][1](seeds)
    acts = jax.random.randint(jax.random.PRNGKey(0), (batch,), 0, env.card.num_actions)
    concrete = {"reset": (seeds,), "step": (seeds, state, acts), "render": (state,)}
    print(f"\n# {task} profile, B={batch}, load {load()}")
    print("| program | StableHLO ops | top ops | ms wall / call | ms CPU / call |\n|---|---:|---|---:|---:|")
    for name, fn, _ in progs:
        args = concrete[name]
        ops = collections.Counter(re.findall(r"(stablehlo\.[a-z_]+|chlo\.[a-z_]+)", fn.lower(*args).as_text()))
        jax.block_until_ready(fn(*args))
        walls, cpus = [], []
        for _ in range(20):
            c, t = time.process_time(), time.perf_counter()
            jax.block_until_ready(fn(*args))
            walls.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
        top = ", ".join(f"{k.split('.')[1]} {v}" for k, v in ops.most_common(4))
        print(f"| {name} | {sum(ops.values())} | {top} | {1e3 * statistics.median(walls):.2f} | "
              f"{1e3 * statistics.median(cpus):.2f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=200, help="steps per timed scan call")
    ap.add_argument("--repeats", type=int, default=3, help="timed calls per figure (median)")
    ap.add_argument("--reset-share", type=float, nargs="*", default=[],
                    help="also run ours with AutoReset.step_batch, K = B * share (e.g. 0.0625)")
    ap.add_argument("--no-peers", action="store_true", help="skip navix / xland-minigrid")
    ap.add_argument("--compile-all", action="store_true")
    ap.add_argument("--compile-only", nargs="+", metavar="GLOB",
                    help="only the compile table, for these task ids / globs (no throughput)")
    ap.add_argument("--profile", action="store_true", help="op counts and timings of doorkey-8x8")
    args = ap.parse_args()
    for s in args.reset_share:
        if not 0.0 < s <= 1.0:
            ap.error(f"--reset-share {s}: must be a fraction of the batch in (0, 1], e.g. 0.0625")
    if args.batch < 1 or args.steps < 1 or args.repeats < 1:
        ap.error("--batch, --steps and --repeats must be positive")
    if args.compile_only:
        compile_times(args.batch, args.compile_only)
        return
    versions = [f"jax {jax.__version__}"]
    for mod, dist in (("navix", "navix"), ("xminigrid", "xminigrid")):
        try:
            __import__(mod)
            versions.append(f"{mod} {importlib.metadata.version(dist)}")
        except ImportError:
            versions.append(f"{mod} not installed")
    print(f"# MiniGrid random-play throughput, B={args.batch}, {args.steps} steps x {args.repeats} "
          f"calls (median), backend {jax.default_backend()}, {', '.join(versions)}, "
          f"{os.cpu_count()} CPUs, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    print("| env | runner (auto-reset) | steps/s (wall) | steps / CPU-s | load |\n|---|---|---:|---:|---:|")
    fmt = lambda v: f"{v:,.0f}"  # noqa: E731
    for ours_id, nx_id, xm_id in (("minigrid/empty-8x8", "Navix-Empty-8x8-v0", "MiniGrid-Empty-8x8"),
                                  ("minigrid/doorkey-8x8", "Navix-DoorKey-8x8-v0", "MiniGrid-DoorKey-8x8")):
        rows = [("glyphjax, vmap(AutoReset.step)", ours(ours_id, args.batch, args.steps, args.repeats))]
        for s in args.reset_share:
            k = max(1, int(args.batch * s))
            rows.append((f"glyphjax, AutoReset.step_batch K={k}",
                         ours(ours_id, args.batch, args.steps, args.repeats, s)))
        if not args.no_peers:
            rows.append(("navix (reset in step, next step)", navix_rates(nx_id, args.batch, args.steps, args.repeats)))
            rows.append(("xland-minigrid (GymAutoResetWrapper)",
                         xminigrid_rates(xm_id, args.batch, args.steps, args.repeats)))
        for name, r in rows:
            if r is None:
                print(f"| {ours_id} | {name} | not installed | | |")
            else:
                print(f"| {ours_id} | {name} | {fmt(r[0])} | {fmt(r[1])} | {load()} |", flush=True)
    if args.profile:
        profile("minigrid/doorkey-8x8", args.batch)
    if args.compile_all:
        compile_times(args.batch)


if __name__ == "__main__":
    main()
