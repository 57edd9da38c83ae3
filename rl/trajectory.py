"""Trajectory records of language-model episodes and their JSON Lines file format.

One episode per line, written whole: the line is encoded first and appended with a single
`os.write` on a file opened with O_APPEND (then fsync'd), so a crash loses at most the episodes in
flight, never half a line. Readers (the trainer, eval, the replay viewer) use `read_episodes`.

Per turn we keep what training and replay need: the exact prompt token ids the model saw, the
sampled completion token ids and their sampling log-probs, the completion text, the parse status
and action, the reward and done flags, and the observation text (plus, for the `memory` harness,
the memory shown and the memory-update call with its own tokens). The system prompt is stored once
per episode; a turn's user message is `turn_message(observation, last history_shown turns, memory)`.

Multi-seat games: one record per seat played by a text policy (`seat`). Its `turns` are that
seat's turns only (`t` = the env step of the turn), each with the seat's own view and tokens; a
turn's `reward` is what the seat received from its move until its next turn (the other seats'
replies included), so `return` = the seat's return = the sum of its turn rewards (plus any reward
paid before its first turn). `joint_actions` (every seat's action in step order) replays the
episode; `returns` holds every seat's return. Single-agent records have `seat` 0 and leave these
three fields null, so their lines read as before.
"""

from __future__ import annotations

import dataclasses
import json
import os
import warnings
from pathlib import Path
from typing import Any, Iterator

SCHEMA_VERSION = 1


@dataclasses.dataclass
class CallRecord:
    """One model call: tokens in, tokens out (token-in/token-out training data)."""

    prompt_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float]
    text: str
    finish_reason: str


@dataclasses.dataclass
class TurnRecord:
    t: int  # 0-based turn index (= the env step counter before this step)
    observation: str  # the observation text shown this turn
    history_shown: int  # how many earlier (observation, action) pairs the prompt included
    history_dropped: int  # earlier pairs left out by the context-length guard
    prompt_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float]
    completion: str
    finish_reason: str  # "stop" | "length" | "context" (no call: the prompt could not fit)
    parse_status: str  # glyphjax.harness.parse statuses
    action: int  # index into card.actions, or -1 (NO_ACTION)
    action_name: str | None
    reward: float
    terminated: bool
    truncated: bool
    prompt_tokens: int = 0  # this turn's calls: len(prompt_ids) + the memory update's prompt
    completion_tokens: int = 0  # len(completion_ids) + the memory update's completion
    memory: str | None = None  # the memory block shown this turn (memory harness)
    memory_update: CallRecord | None = None  # the separate memory-update call after this turn
    seat: int = 0  # the seat that moved this turn (0 for single-agent tasks)
    value: float | None = None  # V(s) of the state this seat decided in (zero-sum games, when recorded)
    # constrained decoding: per completion token, the token ids its masked sampling distribution
    # was over (Completion.allowed); None = the full vocabulary (left out of the JSON then)
    allowed: list[list[int]] | None = None


@dataclasses.dataclass
class EpisodeRecord:
    task: str
    seed: int
    harness: str
    policy: str
    system_prompt: str
    turns: list[TurnRecord]
    episode_return: float
    length: int
    terminated: bool
    truncated: bool
    prompt_tokens: int  # summed over every call of the episode (memory updates included)
    completion_tokens: int
    parse_failures: int  # turns whose parse status was not "ok"
    parse_status_counts: dict[str, int]
    truncations: int  # completions cut by the token limit (finish_reason "length")
    context_drops: int  # history pairs dropped by the context-length guard, summed over turns
    context_overflows: int  # turns whose prompt could not fit even without history (no call)
    schema: int = SCHEMA_VERSION
    seat: int = 0  # whose trajectory this is: `turns` are this seat's turns, the return its return
    error: str | None = None  # a host env's game failed and ended the episode (why; None: it did not)
    # multi-seat games only (None for single-agent tasks):
    joint_actions: list[int] | None = None  # every seat's action in step order (what replay needs)
    returns: list[float] | None = None  # every seat's return
    seat_policies: list[str] | None = None  # who played each seat (policy or array-player name)
    obs_format: str = "glyph"  # what the observations are (harness.obs_format; native_text: the task's own text)
    memory_updates: int = 0  # guided_memory: update replies applied
    memory_failures: int = 0  # guided_memory: update replies that could not be read (memory kept)

    @property
    def actions(self) -> list[int]:
        return [turn.action for turn in self.turns]

    @property
    def rewards(self) -> list[float]:
        return [turn.reward for turn in self.turns]

    @property
    def replay_actions(self) -> list[int]:
        """The actions that replay the whole episode: every seat's in step order."""
        return list(self.joint_actions) if self.joint_actions is not None else self.actions

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: field names as here, except `episode_return` is written as "return"."""
        d = dataclasses.asdict(self)
        d["return"] = d.pop("episode_return")
        for t in d["turns"]:
            if t.get("allowed") is None:
                t.pop("allowed", None)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "EpisodeRecord":
        d = dict(d)
        d["episode_return"] = d.pop("return")
        if d.get("schema") != SCHEMA_VERSION:
            raise ValueError(f"trajectory schema {d.get('schema')!r} is not {SCHEMA_VERSION}; "
                             "re-record it with this version of glyphjax")
        turns = []
        for t in d.pop("turns"):
            t = dict(t)
            mu = t.get("memory_update")
            t["memory_update"] = CallRecord(**mu) if mu is not None else None
            turns.append(TurnRecord(**t))
        return cls(turns=turns, **d)


class TrajectoryWriter:
    """Appends whole episode lines to a JSONL file (one `os.write` per line, then fsync)."""

    def __init__(self, path: str | os.PathLike, fsync: bool = True):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._fsync = fsync
        self.count = 0

    def write(self, episode: EpisodeRecord) -> None:
        data = (episode.to_json() + "\n").encode("utf-8")
        written = os.write(self._fd, data)
        while written < len(data):  # a regular file takes it in one go; loop only for safety
            written += os.write(self._fd, data[written:])
        if self._fsync:
            os.fsync(self._fd)
        self.count += 1

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> "TrajectoryWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class TruncatedLineWarning(UserWarning):
    """A trajectory file's last line was cut off mid-write; it was skipped."""


class JsonLines:
    """(line number, object) of each non-blank line of a JSONL file, in order.

    A last line without its newline that is not valid JSON is a write cut off by a crash: it is
    skipped with a `TruncatedLineWarning` and counted in `skipped` (known once iteration ends).
    Any other line that is not JSON raises ValueError naming the file and line number.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = path
        self.skipped = 0

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        self.skipped = 0
        with open(self.path, encoding="utf-8") as f:
            for i, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as e:
                    if not line.endswith("\n"):  # the last line, and it was cut off
                        self.skipped += 1
                        warnings.warn(f"{self.path}:{i}: skipped the last line, cut off mid-write "
                                      f"({len(line)} characters, no newline)", TruncatedLineWarning, stacklevel=2)
                        return
                    raise ValueError(f"{self.path}:{i}: not a JSON line ({e}); is this a trajectory file "
                                     "(one episode per line)?") from None
                yield i, obj


def read_episodes(path: str | os.PathLike) -> Iterator[EpisodeRecord]:
    """Episodes of a JSONL trajectory file, in file order. A cut-off last line is skipped with a
    warning (see JsonLines); any other malformed line raises ValueError naming file and line."""
    for i, obj in JsonLines(path):
        try:
            yield EpisodeRecord.from_dict(obj)
        except (TypeError, KeyError, AttributeError, ValueError) as e:
            raise ValueError(f"{path}:{i}: not an episode record ({e})") from None
