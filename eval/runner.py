"""Vmapped seed evaluation of array policies (`random`, `scripted`) over any task set.

Seeds run in fixed-size batches (the last one padded) so each task compiles once per policy;
results are per-episode columns (`TaskResult`) for `eval.stats`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.core.rollout import random_policy
from eval.results import TaskResult

ARRAY_POLICIES = ("random", "scripted")


class NoScriptedPolicy(ValueError):
    """The task defines no scripted baseline (`Env.scripted_policy is None`)."""


_RANDOM: dict[int, Callable] = {}


def array_policy(env: glyphjax.Env, name: str) -> Callable:
    """The array policy `name` for `env` (the same function object every call, so compiled
    rollouts are cached)."""
    if name == "random":
        n = env.card.num_actions
        if n not in _RANDOM:
            _RANDOM[n] = random_policy(n)
        return _RANDOM[n]
    if name == "scripted":
        if env.scripted_policy is None:
            raise NoScriptedPolicy(f"{env.card.id} has no scripted policy; use policy=random")
        return env.scripted_policy
    raise ValueError(f"unknown array policy {name!r}; choose one of {', '.join(ARRAY_POLICIES)}")


def evaluate_task(task_id: str, policy: str | Callable, seeds: Iterable[int], batch_size: int = 4096,
                  params: Any = None, seat: int = 0) -> TaskResult:
    """All episodes of `policy` (a name, or an array policy playing every seat) on `task_id`, one
    per seed (vmapped, `batch_size` at a time); `params` replaces the task's default params (e.g. a
    Procgen level split). Two-player games report `seat`'s returns, and success = a win for it."""
    env = glyphjax.make(task_id)
    pol = array_policy(env, policy) if isinstance(policy, str) else policy
    seeds = np.asarray(list(seeds) if not isinstance(seeds, np.ndarray) else seeds, np.int64)
    n = len(seeds)
    b = min(batch_size, n)
    cols: dict[str, list] = {k: [] for k in ("returns", "lengths", "terminated", "truncated", "final_event")}
    for lo in range(0, n, b):
        chunk = seeds[lo: lo + b]
        padded = np.concatenate([chunk, np.full(b - len(chunk), chunk[-1])]) if len(chunk) < b else chunk
        res = glyphjax.rollout(env, pol, jnp.asarray(padded.astype(np.uint32)), params)
        res = jax.device_get(res)
        ret = np.asarray(res.returns)
        if ret.ndim > 1:  # two-player: evaluate one seat's view
            ret = ret[:, seat]
        cols["returns"].append(ret[: len(chunk)])
        cols["lengths"].append(np.asarray(res.lengths)[: len(chunk)])
        cols["terminated"].append(np.asarray(res.terminated)[: len(chunk)])
        cols["truncated"].append(np.asarray(res.truncated)[: len(chunk)])
        cols["final_event"].append(np.asarray(res.final_event)[: len(chunk)])
    c = {k: np.concatenate(v) for k, v in cols.items()}
    returns = c["returns"].astype(np.float64)
    success = (env.card.success_mask(returns, c["terminated"], c["final_event"]) if seat == 0
               else returns > 0)  # stored events are seat 0's reading; a zero-sum win pays > 0
    return TaskResult(task=task_id, seeds=seeds, returns=returns, lengths=c["lengths"],
                      terminated=c["terminated"], truncated=c["truncated"], success=success)
