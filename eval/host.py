"""Evaluation of host tasks (real games that are not JAX, `glyphjax.core.host`: `nethack/full`).

`glyphjax-eval tasks=nethack/full` plays them on the same seeds and writes the same result files
as JAX tasks:
- `policy=random` (the one array policy that needs no JAX env): uniformly random actions over the
  card's action set, drawn from a stream of the episode's own seed (so an episode depends only on
  its seed), the games stepped side by side through the host env's batch (each game in its own
  worker process: a crashed game ends only its own episode);
- LLM policies (`policy=local|vllm`) through `rl.llm_eval.evaluate_llm` -> `rl.rollout.run_rollouts`,
  the engine that plays JAX tasks (eval/llm.py).
`scripted` and other vmapped array policies need a JAX env: host tasks are skipped for them with
that reason. `max_turns` caps every episode (NetHack's budget is 10,000 steps); a capped episode
is truncated. An episode whose game failed is kept, truncated, with its error in `errors`.
"""

from __future__ import annotations

import sys
from typing import Callable

import numpy as np

from eval.results import TaskResult

HOST_ARRAY_POLICIES = ("random",)
HOST_BATCH = 8  # games stepped side by side (one worker process each)


def not_applicable(policy: str, task: str) -> str:
    return (f"{task} is a host env (the real game, not JAX): the vmapped array policy {policy!r} needs a JAX "
            f"env; host tasks play policy=random or an LLM policy (policy=local|vllm)")


def random_actions(seed: int, n_actions: int, steps: int) -> np.ndarray:
    """The random policy's actions of the episode on `seed` (a stream of that seed alone)."""
    return np.random.default_rng([int(seed), 0x52414E44]).integers(0, n_actions, steps)


def evaluate_host_random(task: str, seeds, max_turns: int | None = None, batch_size: int = HOST_BATCH,
                         processes: bool = True, errors: dict | None = None) -> TaskResult:
    """Every seed of host task `task` played with uniformly random actions, at most `max_turns`
    steps each (default: the card's step budget). Failed games end truncated; their reasons go to
    `errors` (seed -> message) when given, and to stderr."""
    from glyphjax.core.host import make_host
    env = make_host(task)
    card = env.card
    cap = card.max_steps if max_turns is None else min(int(max_turns), card.max_steps)
    seeds = np.asarray(list(seeds), np.int64)
    n = len(seeds)
    returns, lengths = np.zeros(n), np.zeros(n, np.int64)
    term, trunc = np.zeros(n, bool), np.zeros(n, bool)
    for lo in range(0, n, max(1, batch_size)):
        rows = np.arange(lo, min(n, lo + batch_size))
        acts = np.stack([random_actions(s, card.num_actions, cap) for s in seeds[rows]], axis=1)
        batch = env.batch([int(s) for s in seeds[rows]], processes=processes)
        try:
            for t in range(cap):
                live = ~batch.done
                if not live.any():
                    break
                out = batch.step(acts[t])
                failed = np.array([j in batch.errors for j in range(len(rows))])
                moved = live & ~failed
                returns[rows] += np.where(moved, out["reward"], 0.0)
                lengths[rows] += moved
                term[rows] |= out["terminated"]
                trunc[rows] |= out["truncated"]
            trunc[rows] |= ~batch.done  # still running at the cap
            for j, why in sorted(batch.errors.items()):
                print(f"glyphjax-eval: {why} (episode kept as truncated)", file=sys.stderr)
                if errors is not None:
                    errors[int(seeds[rows[j]])] = why
        finally:
            batch.close()
    return TaskResult(task=task, seeds=seeds, returns=returns, lengths=lengths, terminated=term,
                      truncated=trunc & ~term, success=None if not card.has_success else
                      card.success_mask(returns, term, None))


def with_host_tasks(evaluate: Callable[[str, np.ndarray], TaskResult], policy: str, max_turns: int | None,
                    batch_size: int) -> Callable[[str, np.ndarray], TaskResult]:
    """An array evaluator that plays host tasks with `evaluate_host_random` and JAX tasks with
    `evaluate`; `.errors` collects failed host episodes: {task: {seed: message}}."""
    from glyphjax.core.host import is_host

    def run(task: str, seeds: np.ndarray) -> TaskResult:
        if not is_host(task):
            return evaluate(task, seeds)
        if policy not in HOST_ARRAY_POLICIES:
            raise ValueError(not_applicable(policy, task))
        return evaluate_host_random(task, seeds, max_turns, min(batch_size, HOST_BATCH),
                                    errors=run.errors.setdefault(task, {}))
    run.errors = {}
    return run
