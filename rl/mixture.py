"""Multitask mixtures: which tasks a run trains on and how each update's groups are drawn.

Task list (`tasks.mixture`, a quota per suite, e.g. the paper's 100: 18 classics, 18 craftax,
18 miniatari, 18 minigrid, 19 minihack, 9 procgen): a rule over the registry, not a list
of ids. Per suite, its single-seat standard-track ids sorted by name (the paper's mixture is
single-agent), and from them `quota` ids evenly
spaced (index round(i * n / quota), i = 0..quota-1; every id when the suite has no more than the
quota). A suite that is not registered yet contributes nothing and is reported, so the same
config picks up new suites as they land.

Groups (`rl.task_weights`, glob -> weight; a task takes the weight of the most specific pattern
it matches — the one with the most literal characters, the earlier one on a tie — and 1 when
none matches, so a pattern added on the command line to a preset's `*` takes effect): each update draws `groups_per_update` tasks independently with
probability proportional to their weights from `numpy.random.default_rng([seed, update])`, so
a resumed run draws the same groups without saved RNG state. An empty `task_weights` with no
mixture keeps the trainer's round-robin order.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Mapping, Sequence

import numpy as np


def mixture_tasks(quota: Mapping[str, int], track: str = "standard") -> tuple[list[str], dict[str, int]]:
    """(task ids, shortfall per suite): `quota[suite]` evenly spaced ids of each suite."""
    from glyphjax.core.registry import task_ids
    chosen, short = [], {}
    for suite, q in quota.items():
        q = int(q)
        if q < 0:
            raise ValueError(f"tasks.mixture.{suite}={q}: a suite's quota must be >= 0 (0 leaves the suite out)")
        if q == 0:
            continue
        ids = sorted(t for t in task_ids(suite=suite, track=track) if _single_seat(t)) \
            if suite in _registered_suites() else []
        pick = ids if len(ids) <= q else [ids[round(i * len(ids) / q)] for i in range(q)]
        chosen += pick
        if len(pick) < q:
            short[suite] = q - len(pick)
    return chosen, short


def _single_seat(task_id: str) -> bool:
    from glyphjax.core.registry import make
    return make(task_id).card.num_players == 1


def _registered_suites() -> set[str]:
    from glyphjax.core.registry import suite_names
    return set(suite_names())


def task_weights(task_ids: Sequence[str], patterns: Mapping[str, float] | None) -> np.ndarray:
    """Normalised sampling weights of `task_ids` from glob -> weight (most specific match wins, default 1)."""
    ranked = sorted((patterns or {}).items(), key=lambda pv: -_literal_chars(pv[0]))  # stable: ties keep order
    w = []
    for t in task_ids:
        weight = next((float(v) for p, v in ranked if fnmatch.fnmatch(t, p)), 1.0)
        if weight < 0:
            raise ValueError(f"rl.task_weights gives {t} the weight {weight}; weights must be >= 0")
        w.append(weight)
    w = np.asarray(w, np.float64)
    if not w.sum() > 0:
        raise ValueError("rl.task_weights leaves every task at weight 0; give at least one task a positive weight")
    return w / w.sum()


def _literal_chars(pattern: str) -> int:
    """How specific a glob is: its characters outside wildcards and [...] classes."""
    return len(re.sub(r"\[[^\]]*\]|[*?]", "", pattern))


def draw_groups(task_ids: Sequence[str], weights: np.ndarray, groups: int, seed: int, update: int) -> list[str]:
    """The tasks of update `update`'s groups: `groups` independent weighted draws."""
    rng = np.random.default_rng([int(seed), int(update)])
    return [task_ids[i] for i in rng.choice(len(task_ids), size=int(groups), p=weights)]
