"""Who sits where when the trainer plays multi-seat games, and which seats' turns it trains.

Config keys (conf/rl/default.yaml):
- `rl.opponent`: `self` (the trained policy plays every seat: self-play), `random` (uniformly
  random legal moves, `env.legal`) or `scripted` (the task's `scripted_policy`), the last two as
  array players run on device; or a frozen text policy through the same engine:
  `checkpoint:<dir>` (the local JAX model over a model directory or a glyphjax-train run
  directory, never updated) or `vllm` (a model served by vLLM at `rl.opponent_server.url`, name
  `rl.opponent_server.model`). A text opponent's turns are recorded but never trained on.
- `rl.train_seats`: `all` or a list of seats, e.g. `[0]`. Only these seats' turns become training
  samples. Against an array opponent the policy plays these seats, one per episode, taken in turn
  by the episode's place in its group (episode j plays `train_seats[j % len(train_seats)]`).
Single-agent tasks ignore both: their one seat is always played and trained.

Advantages are grouped per (group, seat): a group's episodes of one task on distinct seeds, split
by the seat whose return it is, so seat 0's returns are compared with seat 0's only. The
descriptor handed to the estimators (the fields of Crab's prior and RAE's key) is the task id,
except for zero-sum variants `zerosum/<family>/<variant>`, which give template, family, rule and
size (gamesmith.md §5.3: the prior is additive over these and the seat; the encoding is drawn
per episode and is not part of a variant's key).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from glyphjax.core.registry import make
from glyphjax.core.rollout import random_legal_policy
from rl.advantages import AdvantageEstimator, EpisodeBatch
from rl.rollout import ArrayPlayer, Player
from rl.trajectory import EpisodeRecord

OPPONENTS = ("self", "random", "scripted", "checkpoint:<dir>", "vllm")
CHECKPOINT = "checkpoint:"
TEXT_OPPONENT = "frozen-opponent"  # the policy name a text opponent's records carry


def is_text_opponent(opponent: str) -> bool:
    return opponent == "vllm" or opponent.startswith(CHECKPOINT)


class FrozenOpponent:
    """A text policy in the other seat that training never updates; its records are named
    TEXT_OPPONENT so the trainer leaves them out."""

    name = TEXT_OPPONENT

    def __init__(self, policy: Any):
        self._policy = policy

    def complete(self, conversations, sampling, **kwargs):
        return self._policy.complete(conversations, sampling, **kwargs)  # e.g. legal_actions (constrained)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._policy, name)


def parse_train_seats(value: Any) -> tuple[int, ...] | None:
    """`all` (None: every seat) or a non-empty list of distinct seat numbers; ValueError otherwise."""
    if value is None or value == "all":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if (isinstance(value, str) or not isinstance(value, Sequence) or not value
            or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in value)
            or len(set(value)) != len(value)):
        raise ValueError(f"rl.train_seats={value!r} must be `all` or a list of distinct seats such as [0] or [0, 1]")
    return tuple(value)


def check_seating(task_ids: Sequence[str], opponent: str, train_seats: tuple[int, ...] | None,
                  key: str = "rl.opponent") -> None:
    """Raise ValueError naming the key when a multi-seat task cannot be seated as configured."""
    if opponent not in OPPONENTS and not is_text_opponent(opponent):
        raise ValueError(f"unknown {key}={opponent!r}; choose one of {', '.join(OPPONENTS)}")
    if opponent == CHECKPOINT:
        raise ValueError(f"{key}=checkpoint: needs the directory, e.g. {key}=checkpoint:runs/train (a run "
                         "directory: its final model, else its latest Orbax checkpoint exported)")
    for task in task_ids:
        card = make(task).card
        if card.num_players == 1:
            continue
        bad = [s for s in train_seats or () if s >= card.num_players]
        if bad:
            raise ValueError(f"rl.train_seats has seats {bad} but {task} has seats 0..{card.num_players - 1}")
        if opponent == "scripted" and make(task).scripted_policy is None:
            raise ValueError(f"{key}=scripted but {task} has no scripted policy; use {key}=random or self")


_PLAYERS: dict[tuple, ArrayPlayer] = {}


def array_opponent(task: str, opponent: str) -> ArrayPlayer:
    """The array player `opponent` names for one task, built once per compiled program: it reads
    only the state and the traced params, so the variants and encodings of a program share it
    (and its compile)."""
    env = make(task)
    key = (env.program, opponent)
    if key not in _PLAYERS:
        fn = random_legal_policy(env) if opponent == "random" else env.scripted_policy
        _PLAYERS[key] = ArrayPlayer(fn, opponent)
    return _PLAYERS[key]


def seatings(episodes: Sequence[tuple[str, int]], positions: Sequence[int], opponent: str,
             train_seats: tuple[int, ...] | None,
             seats: Sequence[int | None] | None = None, text: Player | None = None) -> list[Mapping[int, Player]]:
    """Per episode the seats the opponent takes (none for self-play or single-agent tasks): the
    array player `opponent` names, or `text` (a FrozenOpponent) for a text opponent.
    `positions[i]`: episode i's place in its group, which picks the seat the policy plays, unless
    `seats[i]` names that seat (a group drawn for one seat, rl/variants.py)."""
    out: list[Mapping[int, Player]] = []
    for i, ((task, _), j) in enumerate(zip(episodes, positions)):
        n = make(task).card.num_players
        if n == 1 or opponent == "self":
            out.append({})
            continue
        mine = seats[i] if seats is not None and seats[i] is not None else None
        if mine is None:
            order = train_seats or tuple(range(n))
            mine = order[j % len(order)]
        player = text if is_text_opponent(opponent) else array_opponent(task, opponent)
        if player is None:
            raise ValueError(f"rl.opponent={opponent} is a text policy: pass it as `text` (Trainer builds it)")
        out.append({s: player for s in range(n) if s != mine})
    return out


def trained(record: EpisodeRecord, train_seats: tuple[int, ...] | None) -> bool:
    """Whether the trainer learns from this record's turns (never a frozen opponent's)."""
    if record.policy == TEXT_OPPONENT:
        return False
    return record.returns is None or train_seats is None or record.seat in train_seats


def descriptor(task: str) -> dict[str, str]:
    """The estimator descriptor of a task (see the module docstring)."""
    parts = task.split("/")
    if len(parts) != 3 or parts[0] != "zerosum":
        return {"task": task}
    _, family, variant = parts
    return {"template": type(make(task)).__name__, "family": family,
            "rule": variant if variant.startswith("rule-") else "base",
            "size": variant if variant.startswith("size-") else "base"}


def seat_advantages(records: Sequence[EpisodeRecord], groups: Sequence[tuple[str, Sequence[int]]],
                    estimator: AdvantageEstimator) -> np.ndarray:
    """One advantage per record, the estimator grouping by (group, seat)."""
    group_of = {(task, int(s)): g for g, (task, seeds) in enumerate(groups) for s in seeds}
    keys: dict[tuple[int, int], int] = {}
    group = [keys.setdefault((group_of[r.task, r.seed], r.seat), len(keys)) for r in records]
    batch = EpisodeBatch(returns=np.array([r.episode_return for r in records]), group=np.array(group),
                         descriptor=[descriptor(r.task) for r in records], seat=np.array([r.seat for r in records]))
    return estimator(batch)
