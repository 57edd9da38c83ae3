"""MiniGrid throughput and compile time (not a test).

    python3 bench/minigrid_throughput.py [--batch 4096] [--steps 200] [--compile-all]

Steps/s of random play at batch B (auto-reset on episode end, as RL rollouts run it) for
empty-8x8 and doorkey-8x8, next to navix and xland-minigrid on their equivalent environments in
the same run when they are importable (install them in a throwaway venv if they would change the
JAX version). `--compile-all` also reports jit compile time (reset + step + render) per task.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp

import glyphjax
from glyphjax.core.rollout import AutoReset


def _steps_per_s(run, state, n_steps: int) -> float:
    """Warm (compile) the scan program once, then time one call from its final state."""
    out = run(state, jax.random.PRNGKey(0))
    jax.block_until_ready(out)
    t = time.perf_counter()
    jax.block_until_ready(run(out[0], jax.random.PRNGKey(1)))
    return n_steps / (time.perf_counter() - t)


def ours(task: str, batch: int, steps: int) -> float:
    env = glyphjax.make(task)
    wrapped = AutoReset(env)
    n = env.card.num_actions

    @jax.jit
    def run(states, key):
        def body(carry, k):
            s = carry
            a = jax.random.randint(k, (batch,), 0, n)
            s, tr, _ = jax.vmap(lambda st, ac: wrapped.step(st, ac))(s, a)
            return s, tr.reward.sum()
        return jax.lax.scan(body, states, jax.random.split(key, steps))

    states = jax.jit(jax.vmap(wrapped.reset))(jnp.arange(batch, dtype=jnp.uint32))
    return _steps_per_s(run, states, batch * steps)


def navix_sps(name: str, batch: int, steps: int) -> float | None:
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
    return _steps_per_s(run, ts, batch * steps)


def xminigrid_sps(name: str, batch: int, steps: int) -> float | None:
    try:
        import xminigrid
    except ImportError:
        return None
    env, params = xminigrid.make(name)

    @jax.jit
    def run(ts, key):
        def body(ts, k):
            a = jax.random.randint(k, (batch,), 0, env.num_actions(params))
            ts = jax.vmap(env.step, in_axes=(None, 0, 0))(params, ts, a)  # auto-resets
            return ts, ts.reward.sum()
        return jax.lax.scan(body, ts, jax.random.split(key, steps))

    ts = jax.jit(jax.vmap(env.reset, in_axes=(None, 0)))(params, jax.random.split(jax.random.PRNGKey(0), batch))
    return _steps_per_s(run, ts, batch * steps)


def compile_times() -> None:
    total = 0.0
    print("| task | compile reset+step+render (s) |\n|---|---:|")
    for task in glyphjax.task_ids("minigrid"):
        env = glyphjax.make(task)
        t = time.perf_counter()
        reset = jax.jit(env.reset).lower(jax.random.PRNGKey(0)).compile()
        s = reset(jax.random.PRNGKey(0))
        jax.jit(env.step).lower(jax.random.PRNGKey(0), s, jnp.int32(0)).compile()
        jax.jit(env.render).lower(s).compile()
        dt = time.perf_counter() - t
        total += dt
        print(f"| {task} | {dt:.2f} |", flush=True)
    print(f"| **total ({len(glyphjax.task_ids('minigrid'))} tasks)** | {total:.1f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--compile-all", action="store_true")
    args = ap.parse_args()
    print(f"# MiniGrid random-play throughput, B={args.batch}, {args.steps} steps, "
          f"backend {jax.default_backend()}, jax {jax.__version__}")
    print("| env | glyphjax steps/s | navix steps/s | xland-minigrid steps/s | glyphjax / navix |")
    print("|---|---:|---:|---:|---:|")
    for ours_id, nx_id, xm_id in (("minigrid/empty-8x8", "Navix-Empty-8x8-v0", "MiniGrid-Empty-8x8"),
                                  ("minigrid/doorkey-8x8", "Navix-DoorKey-8x8-v0", "MiniGrid-DoorKey-8x8")):
        a = ours(ours_id, args.batch, args.steps)
        b = navix_sps(nx_id, args.batch, args.steps)
        c = xminigrid_sps(xm_id, args.batch, args.steps)
        fmt = lambda v: "not installed" if v is None else f"{v:,.0f}"  # noqa: E731
        ratio = "-" if b is None else f"{a / b:.2f}x"
        print(f"| {ours_id} | {a:,.0f} | {fmt(b)} | {fmt(c)} | {ratio} |", flush=True)
    if args.compile_all:
        compile_times()


if __name__ == "__main__":
    main()
