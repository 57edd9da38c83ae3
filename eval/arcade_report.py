"""Scripted against random play for every arcade game at both settings.

    python -m eval.arcade_report                      # every miniatari/* and atari/* id, 1,000 seeds
    python -m eval.arcade_report --tasks 'miniatari/pong' --seeds 200

Per task: mean return of the game's scripted policy and of uniformly random actions over the
same seeds, and how many scripted episodes reached the win (`card.success`). A game passes when
the scripted mean beats random's and at least one seed wins; the exit status is 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys

import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.core.rollout import random_policy


def task_row(task_id: str, seeds: int) -> dict:
    """Scripted and random returns and the scripted win count of one task over `seeds` seeds."""
    env = glyphjax.make(task_id)
    ids = jnp.arange(seeds, dtype=jnp.uint32)
    scripted = glyphjax.rollout(env, env.scripted_policy, ids)
    rand = glyphjax.rollout(env, random_policy(env.card.num_actions), ids)
    wins = env.card.success_mask(np.asarray(scripted.returns), np.asarray(scripted.terminated),
                                 np.asarray(scripted.final_event))
    return dict(task=task_id, scripted=float(np.mean(scripted.returns)), random=float(np.mean(rand.returns)),
                wins=int(wins.sum()), length=float(np.mean(scripted.lengths)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", default="miniatari/*,atari/*", help="comma-separated globs")
    ap.add_argument("--seeds", type=int, default=1000)
    args = ap.parse_args(argv)
    ids = glyphjax.task_ids([p for p in args.tasks.split(",") if p])
    print(f"| task | scripted mean | random mean | scripted wins / {args.seeds} | scripted length | pass |")
    print("|---|---:|---:|---:|---:|---|")
    failed = 0
    for task_id in ids:
        row = task_row(task_id, args.seeds)
        ok = row["scripted"] > row["random"] and row["wins"] >= 1
        failed += not ok
        print(f"| {task_id} | {row['scripted']:.3f} | {row['random']:.3f} | {row['wins']} | "
              f"{row['length']:.0f} | {'yes' if ok else 'NO'} |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
