"""Distillation (rl.mode=sft, gamesmith.md §5.1): supervised next-token cross-entropy of the
student on a teacher's trajectories, prompt masked, through the same trainer and checkpoints.

The teacher is any policy backend whose episodes were written as trajectory files (JSON Lines of
`EpisodeRecord`s): a vLLM-served model, the local model, or on a CPU a `NarratedPlayer` (an array
bot that writes a short line and the action). Each teacher turn whose action parsed becomes one
sample: the student's own prompt for that turn (the conversation rebuilt from the record: its
system prompt, the history pairs the turn showed and its observation) tokenized with the
student's chat template, and the teacher's completion text tokenized the same way plus the stop
token. In action-token mode (rl.action_tokens) the completion is the action's single token.
Batches follow a fixed order: epoch e visits the samples in `default_rng(seed + e).permutation`,
so update u's batch is a function of u alone and a resumed run continues exactly.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import numpy as np

from glyphjax.harness.parse import OK
from glyphjax.harness.prompt import turn_message
from rl.train_step import Sample
from rl.trajectory import EpisodeRecord, TurnRecord, read_episodes


def conversation(record: EpisodeRecord, k: int) -> list[dict]:
    """The conversation the policy saw at turn k of `record` (system prompt and turn message)."""
    turns = record.turns
    turn = turns[k]
    first = k - turn.history_shown
    history = [(t.observation, t.action_name if t.action_name is not None else f"(no action: {t.parse_status})")
               for t in turns[first:k]]
    return [{"role": "system", "content": record.system_prompt},
            {"role": "user", "content": turn_message(turn.observation, history, turn.memory)}]


def usable(turn: TurnRecord) -> bool:
    """Teacher turns that teach something: a parsed action from a completion that was not cut."""
    return turn.parse_status == OK and turn.finish_reason == "stop" and bool(turn.completion)


def read_teacher(paths: Sequence[str | Path]) -> list[EpisodeRecord]:
    """Every record of the teacher files, in order; FileNotFoundError / ValueError name the file."""
    records: list[EpisodeRecord] = []
    for p in paths:
        if not Path(p).is_file():
            raise FileNotFoundError(f"rl.sft.data: {p} is not a file (a JSONL trajectory file of teacher episodes)")
        records.extend(read_episodes(p))
    return records


def count_samples(records: Sequence[EpisodeRecord]) -> int:
    return sum(usable(t) for r in records for t in r.turns)


def teacher_samples(records: Sequence[EpisodeRecord], tokenizer, action_ids: dict[str, int] | None = None,
                    prefix: Sequence[int] = ()) -> list[Sample]:
    """One training sample per usable teacher turn (see the module docstring); `prefix`: ids the
    student's sampler puts after the prompt before it samples (action-token mode's `<action>`)."""
    eos = tokenizer.eos_token_ids[0]
    out = []
    for i, r in enumerate(records):
        for k, turn in enumerate(r.turns):
            if not usable(turn):
                continue
            prompt = tokenizer.encode_conversation(conversation(r, k)) + [int(x) for x in prefix]
            if action_ids is not None:
                completion = [action_ids[turn.action_name]]
            else:
                completion = [int(x) for x in tokenizer.hf.encode(turn.completion, add_special_tokens=False)] + [eos]
            out.append(Sample(prompt, completion, [0.0] * len(completion), 1.0, i))
    return out


class Schedule:
    """Which samples update u trains on: `batch` samples per update, `epochs` passes, a fresh
    seeded permutation per epoch (the last batch of an epoch may be smaller)."""

    def __init__(self, n: int, batch: int, epochs: int, seed: int):
        if n < 1:
            raise ValueError("rl.sft.data holds no usable teacher turn (a parsed action from a completed reply)")
        if batch < 1 or epochs < 1:
            raise ValueError(f"rl.sft.batch_size and rl.sft.epochs must be >= 1, got {batch} and {epochs}")
        self.n, self.batch, self.epochs, self.seed = n, batch, epochs, seed
        self.per_epoch = math.ceil(n / batch)

    @property
    def num_updates(self) -> int:
        return self.per_epoch * self.epochs

    def indices(self, update: int) -> np.ndarray:
        epoch, pos = divmod(update, self.per_epoch)
        perm = np.random.default_rng(self.seed + epoch).permutation(self.n)
        return perm[pos * self.batch:(pos + 1) * self.batch]
