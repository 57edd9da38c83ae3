"""Craftax throughput and compile time: ours next to the `craftax` package (not a test).

    python bench/craftax_throughput.py [--batches 1 64 1024] [--steps 50] [--repeats 2]

Random play, `--steps` steps per timed call inside one jitted scan, at each batch size B:
- ours: `AutoReset.step_batch(max_resets=max(1, B // 16))` (a fresh episode only for finished
  slots, at most B/16 per step) on `craftax/choptrees` (a focused task; package engine: Classic)
  and `craftax/full`, rendering the glyph frame every step;
- the package: its own auto-reset env (`CraftaxClassicSymbolicEnv`, `CraftaxSymbolicEnv`:
  `step` regenerates a world for every slot on every step, selected where done) with its
  symbolic observation, the way its README steps it.
Figures per process CPU-second (robust to other load on a shared machine) and the compile
CPU-seconds of the first call; medians of `--repeats` calls.
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
from craftax.craftax.envs.craftax_symbolic_env import CraftaxSymbolicEnv
from craftax.craftax_classic.envs.craftax_symbolic_env import CraftaxClassicSymbolicEnv

import glyphjax
from glyphjax.core.rollout import AutoReset


def ours_runner(task_id: str, b: int, steps: int):
    env = glyphjax.make(task_id)
    wrapper, params = AutoReset(env), env.default_params()
    n = env.card.num_actions

    @jax.jit
    def run(state, key):
        def body(s, k):
            a = jax.random.randint(k, (b,), 0, n)
            s, tr, frame = wrapper.step_batch(s, a, params, max_resets=max(1, b // 16))
            return s, tr.reward.sum() + frame.grid[:, 0, 0].sum().astype(jnp.float32)
        return jax.lax.scan(body, state, jax.random.split(key, steps))
    state = jax.jit(jax.vmap(lambda s: wrapper.reset(s, params)))(jnp.arange(b, dtype=jnp.uint32))
    return run, state


def package_runner(pkg, b: int, steps: int):
    params = pkg.default_params
    n = pkg.num_actions

    @jax.jit
    def run(state, key):
        def body(s, k):
            ks = jax.random.split(k, b + 1)
            a = jax.random.randint(ks[0], (b,), 0, n)
            obs, s, r, d, _ = jax.vmap(pkg.step, in_axes=(0, 0, 0, None))(ks[1:], s, a, params)
            return s, r.sum() + obs[:, 0].sum()
        return jax.lax.scan(body, state, jax.random.split(key, steps))
    keys = jax.random.split(jax.random.PRNGKey(0), b)
    state = jax.jit(jax.vmap(lambda k: pkg.reset(k, params)[1]))(keys)
    return run, state


def measure(run, state, b: int, steps: int, repeats: int) -> tuple[float, float]:
    """-> (compile CPU-s of the first call, median steps per CPU-second)."""
    t0 = time.process_time()
    state, _ = jax.block_until_ready(run(state, jax.random.PRNGKey(1)))
    compile_s = time.process_time() - t0
    rates = []
    for i in range(repeats):
        t0 = time.process_time()
        state, _ = jax.block_until_ready(run(state, jax.random.PRNGKey(2 + i)))
        rates.append(b * steps / max(time.process_time() - t0, 1e-9))
    return compile_s, statistics.median(rates)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024])
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    pairs = (("craftax/choptrees", CraftaxClassicSymbolicEnv()), ("craftax/full", CraftaxSymbolicEnv()))
    print("| env | B | ours compile CPU-s | ours steps/CPU-s | package compile CPU-s | package steps/CPU-s |")
    print("|---|---:|---:|---:|---:|---:|")
    for task_id, pkg in pairs:
        for b in args.batches:
            oc, orate = measure(*ours_runner(task_id, b, args.steps), b, args.steps, args.repeats)
            pc, prate = measure(*package_runner(pkg, b, args.steps), b, args.steps, args.repeats)
            print(f"| {task_id} vs {pkg.name} | {b} | {oc:.1f} | {orate:,.0f} | {pc:.1f} | {prate:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
