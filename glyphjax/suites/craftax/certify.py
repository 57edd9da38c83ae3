"""Certify the focused Craftax tasks: random-play return ranges and planner success rates.

    python -m glyphjax.suites.craftax.certify --episodes 10000 --planned 200 [--engine classic|full]

The focused tasks form two programs (the Classic-engine tasks and the full-engine tasks), so
each check is one compile per program: a vmapped batch mixes a program's tasks (`stack_params`),
`--episodes` random episodes and `--planned` planner episodes per task. `--engine` picks one.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.core.rollout import random_policy, rollout, stack_params


ENGINES = {"classic": "classic-focused", "full": "full-focused"}  # --engine -> static_config()[0]


def focused_envs(engine: str = "classic") -> list:
    """The focused tasks of one engine ("classic" or "full"), in registry order."""
    if engine not in ENGINES:
        raise ValueError(f"unknown Craftax engine {engine!r}; choose one of {sorted(ENGINES)}")
    envs = [glyphjax.make(t) for t in glyphjax.task_ids("craftax/*", track=glyphjax.STANDARD)]
    return [e for e in envs if e.static_config()[0] == ENGINES[engine]]


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
    ap.add_argument("--engine", choices=[*ENGINES, "both"], default="both", help="which focused tasks")
    args = ap.parse_args(argv)
    for engine in ENGINES if args.engine == "both" else (args.engine,):
        certify(focused_envs(engine), args.episodes, args.planned)


def certify(envs: list, episodes: int, planned: int) -> None:
    """Print random-play return ranges and planner success rates of one program's tasks."""
    t0 = time.time()
    if episodes:
        bad = 0
        for tid, (ret, _) in mixed_rollout(envs, random_policy(envs[0].card.num_actions), episodes).items():
            lo, hi = glyphjax.make(tid).card.return_range
            out = int(((ret < lo - 1e-5) | (ret > hi + 1e-5)).sum())
            bad += out
            print(f"random  {tid:32s} mean {ret.mean():+.3f}  min {ret.min():+.3f}  max {ret.max():+.3f}  out of range {out}")
        print(f"random play: {bad} episodes out of range ({time.time() - t0:.0f} s)")
    if planned:
        for tid, (ret, ok) in mixed_rollout(envs, envs[0].scripted_policy, planned).items():
            print(f"planner {tid:32s} success {ok.mean():6.1%}  mean return {ret.mean():+.3f}")
    print(f"done in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
