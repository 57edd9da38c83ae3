"""Certify the focused Craftax tasks: random-play return ranges and planner success rates.

    python -m glyphjax.suites.craftax.certify --episodes 10000 --planned 200 [--engine classic|full]

The focused tasks form two programs (the Classic-engine tasks and the full-engine tasks), so
each check is one compile per program: a vmapped batch mixes a program's tasks (`stack_params`),
`--episodes` random episodes and `--planned` planner episodes per task. `--engine` picks one.
Batches of `--chunk` episodes hold every task of the program in turn (seed-major), so a run cut
short has played the same seeds 0..k of every task; `--progress` prints the running ranges (and
planner rates) after each batch. `--first-seed S` plays seeds S, S+1, ... (to extend a run that
stopped at seed S-1); `--planner-first` runs the planner episodes before the random ones.
Compiled programs are kept on disk (`use_persistent_cache`), so a second run skips the compile.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.core.compiled import use_persistent_cache
from glyphjax.core.rollout import random_policy, rollout, stack_params


ENGINES = {"classic": "classic-focused", "full": "full-focused"}  # --engine -> static_config()[0]


def focused_envs(engine: str = "classic") -> list:
    """The focused tasks of one engine ("classic" or "full"), in registry order."""
    if engine not in ENGINES:
        raise ValueError(f"unknown Craftax engine {engine!r}; choose one of {sorted(ENGINES)}")
    envs = [glyphjax.make(t) for t in glyphjax.task_ids("craftax/*", track=glyphjax.STANDARD)]
    return [e for e in envs if e.static_config()[0] == ENGINES[engine]]


def mixed_rollout(envs: list, policy, per_task: int, chunk: int = 4096,
                  on_batch=None, first_seed: int = 0) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{task id: (returns, success mask)} of `per_task` episodes per task (seeds first_seed ..
    first_seed + per_task - 1), run in mixed batches of at most `chunk` episodes, seed-major
    (every task's first seed, then every task's next seed, ...). `on_batch(results so far)` is
    called after each batch."""
    ids = np.tile(np.arange(len(envs)), per_task)
    seeds = np.repeat(np.arange(first_seed, first_seed + per_task, dtype=np.uint32), len(envs))
    table = stack_params(envs)
    rets, succ = [], []
    for lo in range(0, len(ids), chunk):
        sl = slice(lo, lo + chunk)
        params = jax_take(table, ids[sl])
        r = rollout(envs[0], policy, jnp.asarray(seeds[sl]), params, batched_params=True)
        rets.append(np.asarray(r.returns))
        succ.append(np.asarray(r.terminated) & (np.asarray(r.final_event) == 1))
        if on_batch is not None:
            on_batch(_by_task(envs, ids[:sl.stop], np.concatenate(rets), np.concatenate(succ)))
    return _by_task(envs, ids, np.concatenate(rets), np.concatenate(succ))


def _by_task(envs: list, ids: np.ndarray, rets: np.ndarray, succ: np.ndarray) -> dict:
    ids = ids[:len(rets)]
    return {env.card.id: (rets[ids == i], succ[ids == i]) for i, env in enumerate(envs)}


def jax_take(tree, idx):
    """Rows `idx` of every leaf of a stacked params tree."""
    return jax.tree.map(lambda x: x[jnp.asarray(idx)], tree)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=10000, help="random episodes per task")
    ap.add_argument("--planned", type=int, default=200, help="planner episodes per task")
    ap.add_argument("--engine", choices=[*ENGINES, "both"], default="both", help="which focused tasks")
    ap.add_argument("--chunk", type=int, default=4096, help="episodes per vmapped batch")
    ap.add_argument("--progress", action="store_true", help="print the running results after each batch")
    ap.add_argument("--first-seed", type=int, default=0, help="first seed of every task's episodes")
    ap.add_argument("--planner-first", action="store_true", help="planner episodes before random ones")
    args = ap.parse_args(argv)
    use_persistent_cache()
    for engine in ENGINES if args.engine == "both" else (args.engine,):
        certify(focused_envs(engine), args.episodes, args.planned, args.chunk, args.progress,
                args.first_seed, args.planner_first)


def certify(envs: list, episodes: int, planned: int, chunk: int = 4096, progress: bool = False,
            first_seed: int = 0, planner_first: bool = False) -> None:
    """Print random-play return ranges and planner success rates of one program's tasks (seeds
    first_seed, first_seed + 1, ... of every task)."""
    t0 = time.time()

    def plan() -> None:
        def report(results: dict, final: bool = False) -> None:
            for tid, (ret, ok) in results.items():
                print(f"planner {tid:32s} n {ret.size:4d}  success {ok.mean():6.1%}  mean return {ret.mean():+.3f}")
            done = min(ret.size for ret, _ in results.values())
            print(f"planner{'' if final else ' so far'}: {done} episodes per task from seed {first_seed} "
                  f"({time.time() - t0:.0f} s)", flush=True)
        report(mixed_rollout(envs, envs[0].scripted_policy, planned, chunk, report if progress else None,
                             first_seed), final=True)

    if planned and planner_first:
        plan()
    if episodes:
        def report(results: dict, final: bool = False) -> None:
            bad = 0
            for tid, (ret, _) in results.items():
                lo, hi = glyphjax.make(tid).card.return_range
                out = int(((ret < lo - 1e-5) | (ret > hi + 1e-5)).sum())
                bad += out
                print(f"random  {tid:32s} n {ret.size:5d}  mean {ret.mean():+.3f}  min {ret.min():+.3f}  "
                      f"max {ret.max():+.3f}  declared [{lo:+g}, {hi:+g}]  out of range {out}")
            done = min(ret.size for ret, _ in results.values())
            print(f"random play{'' if final else ' so far'}: {done} episodes per task from seed {first_seed}, "
                  f"{bad} out of range ({time.time() - t0:.0f} s)", flush=True)
        results = mixed_rollout(envs, random_policy(envs[0].card.num_actions), episodes, chunk,
                                report if progress else None, first_seed)
        report(results, final=True)
    if planned and not planner_first:
        plan()
    print(f"done in {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
