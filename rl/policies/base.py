"""The text-policy interface shared by the `local` (JAX) and `vllm` (HTTP) backends.

A policy maps a batch of chat conversations (OpenAI-style message lists) to completions. Each
completion carries the exact prompt token ids the model saw, the sampled completion token ids and
the per-token log-probabilities of the *sampling* distribution (after temperature/top-p/top-k),
so the trainer can train on exactly the sampled tokens (token-in/token-out) and compare its own
log-probs against the sampler's.
"""

from __future__ import annotations

import dataclasses
from typing import Protocol, Sequence

Message = dict  # {"role": "system" | "user" | "assistant", "content": str}
Conversation = Sequence[Message]

FINISH_STOP = "stop"  # ended on EOS / a stop token
FINISH_LENGTH = "length"  # cut by max_new_tokens (or the context limit)


@dataclasses.dataclass(frozen=True)
class SamplingParams:
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0  # 0 = off
    max_new_tokens: int = 4096
    seed: int = 0

    def __post_init__(self):
        if self.temperature < 0:
            raise ValueError("temperature must be >= 0 (0 = greedy)")
        if not 0 < self.top_p <= 1:
            raise ValueError("top_p must be in (0, 1]")
        if self.top_k < 0 or self.max_new_tokens < 1:
            raise ValueError("top_k must be >= 0 and max_new_tokens >= 1")


@dataclasses.dataclass
class Completion:
    text: str
    prompt_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float]  # one per completion token, under the sampling distribution
    finish_reason: str  # FINISH_STOP or FINISH_LENGTH
    # constrained decoding (LocalPolicy constrained_actions): per completion token, the token ids
    # its masked sampling distribution was over; None = the full vocabulary
    allowed: list[list[int]] | None = None

    @property
    def truncated(self) -> bool:
        return self.finish_reason == FINISH_LENGTH


class Policy(Protocol):
    """Anything that completes a batch of conversations."""

    name: str

    def complete(self, conversations: Sequence[Conversation], sampling: SamplingParams) -> list[Completion]:
        ...
