"""Variant sampling for zero-sum training (gamesmith.md §5.2, ours where the paper is silent).

`rl.variant_sampling: uniform` makes each update draw its `rl.groups_per_update` groups
independently and uniformly over the training (variant, seat) pairs, a group being G plays of one
variant and one seat, and draws each episode's ENCODING uniformly and independently.

- Training variants: the game-changing ids of the task set (`base`, `rule-*`, `size-*`). An
  encoding variant `zerosum/<family>/enc-<name>` of the set does not count as a variant of its
  own: it puts its encoding into its family's pool, from which every variant of the family draws
  (the identity encoding is always in the pool). So held-out encodings, absent from
  `tasks=zerosum_train`, are never drawn. An `enc-*` id whose family has no game-changing id in
  the set stays a variant with its one encoding; non-zero-sum ids are variants with none.
- Seats: in self-play (`rl.opponent=self`) both seats of every episode are trained, so a group
  is one variant and the seat is not drawn (None). Against a fixed opponent the policy takes the
  drawn seat (one of `rl.train_seats`, default every seat) in all G plays of the group.
- Randomness: `numpy.random.default_rng([seed, update, 1])`, so a resumed run draws the same
  groups without saved RNG state.

The drawn envs share their variant's compiled program (`corpus.with_encoding`): the rollout
engine steps every variant and encoding of one program in one vmapped call over stacked params.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from glyphjax.core.registry import make
from glyphjax.core.types import Env

SAMPLERS = ("cycle", "uniform")
IDENTITY = "identity"


@dataclasses.dataclass(frozen=True)
class VariantPool:
    """What a run draws from: (variant, seat) pairs and each variant's encoding ids (None = identity)."""

    pairs: tuple[tuple[str, int | None], ...]
    encodings: dict[str, tuple[str | None, ...]]


@dataclasses.dataclass(frozen=True)
class GroupDraw:
    """One group of an update: its variant, the seat the policy plays (None: every seat, self-play)
    and the encoding id of each of its G episodes (None = identity)."""

    task: str
    seat: int | None
    encodings: tuple[str | None, ...]


def _family(task: str) -> str | None:
    parts = task.split("/")
    return parts[1] if len(parts) == 3 and parts[0] == "zerosum" else None


def variant_pool(task_ids: Sequence[str], opponent: str, train_seats: tuple[int, ...] | None) -> VariantPool:
    """The (variant, seat) pairs and encoding pools of a training set (see the module docstring)."""
    changing = {_family(t) for t in task_ids if _family(t) and "/enc-" not in t}
    variants = [t for t in task_ids if not (_family(t) in changing and "/enc-" in t)]
    pools: dict[str, list[str | None]] = {}
    for t in task_ids:
        if _family(t) in changing and "/enc-" in t:
            pools.setdefault(_family(t), [None]).append(t)
    encodings = {v: tuple(pools.get(_family(v), [None])) if "/enc-" not in v else (None,) for v in variants}
    pairs: list[tuple[str, int | None]] = []
    for v in variants:
        n = 2 if _family(v) else make(v).card.num_players  # the zero-sum templates are two-player
        if n == 1 or opponent == "self":
            pairs.append((v, None))
        else:
            pairs.extend((v, s) for s in (train_seats or range(n)))
    return VariantPool(tuple(pairs), encodings)


def draw_update(pool: VariantPool, groups: int, group_size: int, seed: int, update: int) -> list[GroupDraw]:
    """The groups of update `update`: uniform (variant, seat) pairs, a uniform encoding per episode."""
    rng = np.random.default_rng([int(seed), int(update), 1])
    out = []
    for i in rng.integers(0, len(pool.pairs), size=int(groups)):
        task, seat = pool.pairs[int(i)]
        encs = pool.encodings[task]
        out.append(GroupDraw(task, seat, tuple(encs[int(j)] for j in rng.integers(0, len(encs), size=group_size))))
    return out


def episode_env(task: str, encoding: str | None) -> Env:
    """The env one episode plays: `task` in the encoding of `encoding` (None: `task` itself)."""
    if encoding is None:
        return make(task)
    from glyphjax.zerosum.corpus import with_encoding
    return with_encoding(task, encoding)


def encoding_name(task: str, encoding: str | None) -> str:
    """The label of an episode's encoding in logs: the enc id's last part, or `identity`."""
    if encoding is None:
        return task.rsplit("/", 1)[1] if "/enc-" in task else IDENTITY
    return encoding.rsplit("/", 1)[1]
