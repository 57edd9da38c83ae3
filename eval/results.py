"""Per-episode evaluation results of one policy on one task, and their JSON form.

Every statistic in `eval.stats` is computed from these columns, whatever produced them (vmapped
array policies, LLM rollouts, recorded trajectories), so one code path reports everything.

Success is the game's outcome as the card declares it (`TaskCard.success`): the episode ended on
a win/solved event, or (for `MAX_RETURN` tasks) its return reached `card.return_range[1]`. A task
without a success notion has `success = None` (tables print "—", JSON has no column).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable, Mapping

import numpy as np

OPTIONAL_COLUMNS = ("prompt_tokens", "completion_tokens", "turns", "parse_failures",
                    "completion_truncations")


@dataclasses.dataclass
class TaskResult:
    """Columns over the episodes of one task (one entry per seed, aligned)."""

    task: str
    seeds: np.ndarray  # int64
    returns: np.ndarray  # float64
    lengths: np.ndarray  # int64
    terminated: np.ndarray  # bool
    truncated: np.ndarray  # bool
    success: np.ndarray | None  # bool; None = the task has no success notion
    prompt_tokens: np.ndarray | None = None  # per episode totals (LLM policies)
    completion_tokens: np.ndarray | None = None
    turns: np.ndarray | None = None  # model turns per episode
    parse_failures: np.ndarray | None = None  # turns whose action did not parse (any status != ok)
    completion_truncations: np.ndarray | None = None  # turns cut by the token limit

    def __post_init__(self):
        self.seeds = np.asarray(self.seeds, np.int64).reshape(-1)
        n = len(self.seeds)
        self.returns = np.asarray(self.returns, np.float64).reshape(-1)
        self.lengths = np.asarray(self.lengths, np.int64).reshape(-1)
        self.terminated = np.asarray(self.terminated, bool).reshape(-1)
        self.truncated = np.asarray(self.truncated, bool).reshape(-1)
        if self.success is not None:
            self.success = np.asarray(self.success, bool).reshape(-1)
        for name in OPTIONAL_COLUMNS:
            v = getattr(self, name)
            if v is not None:
                setattr(self, name, np.asarray(v, np.int64).reshape(-1))
        for name in ("returns", "lengths", "terminated", "truncated", "success", *OPTIONAL_COLUMNS):
            v = getattr(self, name)
            if v is not None and len(v) != n:
                raise ValueError(f"{self.task}: column {name} has {len(v)} entries for {n} seeds")
        if len(np.unique(self.seeds)) != n:
            raise ValueError(f"{self.task}: duplicate seeds in results")

    @property
    def suite(self) -> str:
        return self.task.split("/", 1)[0]

    def __len__(self) -> int:
        return len(self.seeds)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"task": self.task}
        for f in dataclasses.fields(self):
            if f.name == "task":
                continue
            v = getattr(self, f.name)
            if v is not None:
                out[f.name] = v.tolist()
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "TaskResult":
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - names
        if unknown:
            raise ValueError(f"task result has unknown fields {sorted(unknown)}")
        return cls(**{"success": None, **d})


def replayed_final_events(task: str, episodes: list[Mapping[str, Any]]) -> np.ndarray:
    """The event of each recorded episode's last step, by replaying its actions (episodes are a
    function of task, seed and actions), for cards whose success is an event. Episodes that did
    not terminate cannot have succeeded and are not replayed (event 0)."""
    import glyphjax
    env = glyphjax.make(task)
    out = np.zeros(len(episodes), np.int32)
    for i, e in enumerate(episodes):
        actions = [int(t["action"]) for t in e.get("turns", [])]
        if actions and e["terminated"]:
            _, trans = glyphjax.replay(env, int(e["seed"]), actions)
            out[i] = int(np.asarray(trans.event)[-1])
    return out


def from_episodes(task: str, episodes: Iterable[Mapping[str, Any]], card=None) -> TaskResult:
    """Columns from episode records in the trajectory format (task, seed, return, length,
    terminated, truncated, turns: [{parse_status, prompt_tokens?/prompt_ids?, ...}])."""
    eps = [e for e in episodes if e["task"] == task]
    if not eps:
        raise ValueError(f"no episodes of task {task!r}")
    if card is None:
        import glyphjax
        card = glyphjax.make(task).card
    returns = np.array([float(e["return"]) for e in eps])
    terminated = [bool(e["terminated"]) for e in eps]
    events = None
    if card.has_success and not isinstance(card.success, str):
        events = replayed_final_events(task, eps)

    def per_turn(e, fn):
        return sum(fn(t) for t in e.get("turns", []))

    def tokens(t, kind):
        if f"{kind}_tokens" in t:
            return int(t[f"{kind}_tokens"])
        ids = t.get(f"{kind}_ids")
        return len(ids) if ids is not None else 0

    return TaskResult(
        task=task,
        seeds=[int(e["seed"]) for e in eps],
        returns=returns,
        lengths=[int(e["length"]) for e in eps],
        terminated=terminated,
        truncated=[bool(e["truncated"]) for e in eps],
        success=card.success_mask(returns, terminated, events),
        prompt_tokens=[per_turn(e, lambda t: tokens(t, "prompt")) for e in eps],
        completion_tokens=[per_turn(e, lambda t: tokens(t, "completion")) for e in eps],
        turns=[len(e.get("turns", [])) for e in eps],
        parse_failures=[per_turn(e, lambda t: t.get("parse_status", "ok") != "ok") for e in eps],
        completion_truncations=[per_turn(e, lambda t: t.get("finish_reason") == "length"
                                         or t.get("parse_status") == "truncated") for e in eps],
    )
