"""Certify the focused Craftax tasks: random-play return ranges and planner success rates.

    python -m glyphjax.suites.craftax.certify --episodes 10000 --planned 200

All focused Classic tasks share one program, so each check is one compile: a vmapped batch mixes
the tasks (`stack_params`), `--episodes` random episodes and `--planned` planner episodes per task.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.core.rollout import random_policy, rollout, stack_params


def focused_envs() -> list:
    return [glyphjax.make(t) for t in glyphjax.task_ids("craftax/*", track=glyphjax.STANDARD)]


def mixed_rollout(envs: list, policy, per_task: int, chunk: int = 4096) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{task id: (returns, success mask)} of `per_task` episodes per task (seeds 0..per_task-1),
    run in mixed batches of at most `chunk` episodes."""
    ids = np.repeat(np.arange(len(envs)), per_task)
    seeds = np.tile(np.arange(per_task, dtype=np.uint32), len(envs))
    table = stack_params(envs)
    rets, succ = [], []
    for lo in range(0, len(ids), chunk):
        sl = slice(lo, lo + chunk)
        params = jax_take(table, ids[sl])
        r = rollout(envs[0], policy, jnp.asarray(seeds[sl]), params, batched_params=True)
        rets.append(np.asarray(r.returns))
        succ.append(np.asarray(r.terminated) & (np.asarray(r.final_event) == 1))
    rets, succ = np.concatenate(rets), np.concatenate(succ)
    return {env.card.id: (rets[ids == i], succ[ids == i]) for i, env in enumerate(envs)}


def jax_take(tree, idx):
    """Rows `idx` of every leaf of a stacked params tree."""
    return jax.tree.map(lambda x: x[jnp.asarray(idx)], tree)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=10000, help="random episodes per task")
    ap.add_argument("--planned", type=int, default=200, help="planner episodes per task")
    args = ap.parse_args(argv)
    envs = focused_envs()
    t0 = time.time()
    if args.episodes:
        bad = 0
        for tid, (ret, _) in mixed_rollout(envs, random_policy(envs[0].card.num_actions), args.episodes).items():
            lo, hi = glyphjax.make(tid).card.return_range
            out = int(((ret < lo - 1e-5) | (ret > hi + 1e-5)).sum())
            bad += out
            print(f"random  {tid:32s} mean {ret.mean():+.3f}  min {ret.min():+.3f}  max {ret.max():+.3f}  out of range {out}")
        print(f"random play: {bad} episodes out of range ({time.time() - t0:.0f} s)")
    if args.planned:
        for tid, (ret, ok) in mixed_rollout(envs, envs[0].scripted_policy, args.planned).items():
            print(f"planner {tid:32s} success {ok.mean():6.1%}  mean return {ret.mean():+.3f}")
    print(f"done in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
