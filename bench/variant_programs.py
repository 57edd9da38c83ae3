"""One program over N variants vs N programs: compile CPU-s and steps/s in the same run.

    python bench/variant_programs.py                                   # obstructedmaze q1, crossing n1
    python bench/variant_programs.py --family minigrid/distshift1 --batch 1024 --steps 64

For each family (the ids of one `glyphjax.programs` group), the same total batch B runs two ways:
- one program: a jitted scan of vmapped auto-reset steps (random actions) over a batch that mixes
  the N variants (params with a leading axis, `in_axes=0`): one compile;
- N programs: each variant's own jitted scan over B/N envs with its params baked in as
  constants (what a compile per id gave): N compiles.
Compile is process CPU-s of trace + lower + compile (persistent cache off, `jax.clear_caches()`
before each); steps/s is env steps per process CPU-second (median of --repeats runs after a
warm-up; CPU time rather than wall time, which a shared machine's load swings).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import jax
import jax.numpy as jnp

import glyphjax
from glyphjax.core.rollout import AutoReset

DEFAULT_FAMILIES = ("minigrid/obstructedmaze-1q", "minigrid/crossing-n1")


def scan_fn(env, n_steps: int, batched_params: bool):
    """fn(seeds, params, key) -> summed reward: n_steps auto-reset steps of vmapped envs."""
    wrapped = AutoReset(env)
    p_axis = 0 if batched_params else None
    n_actions = env.card.num_actions

    def fn(seeds, params, key):
        state = jax.vmap(wrapped.reset, in_axes=(0, p_axis))(seeds, params)

        def body(state, k):
            a = jax.random.randint(k, seeds.shape, 0, n_actions, jnp.int32)
            state, tr, _ = jax.vmap(wrapped.step, in_axes=(0, 0, p_axis))(state, a, params)
            return state, tr.reward.sum()
        state, r = jax.lax.scan(body, state, jax.random.split(key, n_steps))
        return r.sum()
    return fn


def compile_cpu(fn, *args):
    """(compiled, process CPU-s of trace + lower + compile)."""
    jax.clear_caches()
    c = time.process_time()
    compiled = jax.jit(fn).lower(*args).compile()
    return compiled, time.process_time() - c


def cpu_median(run, repeats: int) -> float:
    """Median process CPU-s of run() (after one warm-up call)."""
    jax.block_until_ready(run())
    times = []
    for _ in range(repeats):
        t = time.process_time()
        jax.block_until_ready(run())
        times.append(time.process_time() - t)
    return statistics.median(times)


def compare(family: str, b: int, n_steps: int, repeats: int) -> dict:
    suite = family.split("/")[0]
    ids = next(ids for ids in glyphjax.programs(suite).values() if family in ids)
    envs = [glyphjax.make(t) for t in ids]
    n = len(envs)
    per = b // n
    seeds = jnp.arange(per * n, dtype=jnp.uint32)
    key = jax.random.PRNGKey(0)
    mixed = glyphjax.stack_params([envs[i % n] for i in range(per * n)])
    one, one_cpu = compile_cpu(scan_fn(envs[0], n_steps, True), seeds, mixed, key)
    one_s = cpu_median(lambda: one(seeds, mixed, key), repeats)
    many_cpu, many_s = 0.0, 0.0
    for env in envs:  # params closed over: constants of the compiled program
        params = env.default_params()
        fn = scan_fn(env, n_steps, False)
        compiled, cpu = compile_cpu(lambda s, k, fn=fn, params=params: fn(s, params, k), seeds[:per], key)
        many_cpu += cpu
        many_s += cpu_median(lambda compiled=compiled: compiled(seeds[:per], key), repeats)
    total = per * n * n_steps
    return dict(family=ids, n=n, one_cpu=one_cpu, many_cpu=many_cpu, one_sps=total / one_s,
                many_sps=total / many_s)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", nargs="+", default=list(DEFAULT_FAMILIES), help="an id of each program group")
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=64, help="auto-reset steps per timed call")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    jax.config.update("jax_enable_compilation_cache", False)
    try:
        for f in args.family:
            glyphjax.make(f)
    except glyphjax.UnknownTaskError as e:
        print(f"variant_programs: error: {e}", file=sys.stderr)
        return 2
    print(f"B={args.batch} envs in all, {args.steps} auto-reset steps per call, median of {args.repeats}\n")
    print("| program (variants) | N | compile CPU-s: 1 program | N programs | steps/CPU-s: 1 program | N programs |")
    print("|---|---:|---:|---:|---:|---:|")
    for f in args.family:
        r = compare(f, args.batch, args.steps, args.repeats)
        print(f"| {', '.join(t.split('/')[1] for t in r['family'])} | {r['n']} | {r['one_cpu']:.2f} | "
              f"{r['many_cpu']:.2f} | {r['one_sps']:,.0f} | {r['many_sps']:,.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
