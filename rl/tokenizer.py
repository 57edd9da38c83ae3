"""Chat tokenization for the local policy and the trainer: conversation -> exact prompt token ids.

A conversation becomes exactly the ids the checkpoint's chat template renders
(`tokenizer.apply_chat_template(conversation, add_generation_prompt=True)`), so the prompt ids we
record are the ones a vLLM server fed with the same checkpoint and messages would use.
Completions are decoded from token ids; nothing is re-tokenised (token-in/token-out).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

Message = dict
Conversation = Sequence[Message]


VOCAB_FILES = ("tokenizer.json", "vocab.json", "tokenizer.model")  # one of them holds the vocabulary


def tokenizer_files_problem(path: str | os.PathLike) -> str | None:
    """What is missing for a chat tokenizer in checkpoint dir `path` and how to get it; None if nothing."""
    path = Path(path)
    missing = [] if (path / "tokenizer_config.json").is_file() else ["tokenizer_config.json"]
    if not any((path / name).is_file() for name in VOCAB_FILES):
        missing.append(" or ".join(VOCAB_FILES))
    if not missing:
        return None
    return (f"{path} has no tokenizer files ({'; '.join(missing)} missing); copy them from the base model, e.g. "
            f"`huggingface-cli download BASE_MODEL tokenizer.json tokenizer_config.json --local-dir {path}`, or "
            "export a training run with glyphjax-export (it writes them)")


class ChatTokenizer:
    """A `transformers` tokenizer plus the checkpoint's stop tokens and chat template."""

    def __init__(self, hf_tokenizer, eos_token_ids: Sequence[int] | None = None, source: str = "tokenizer"):
        if not getattr(hf_tokenizer, "chat_template", None):
            raise ValueError(f"{source}: the tokenizer has no chat template; use a chat/instruct checkpoint or add "
                             f"`chat_template` to tokenizer_config.json")
        self.hf = hf_tokenizer
        ids = list(eos_token_ids or [])
        if hf_tokenizer.eos_token_id is not None and hf_tokenizer.eos_token_id not in ids:
            ids.append(int(hf_tokenizer.eos_token_id))
        if not ids:
            raise ValueError(f"{source}: no eos token (tokenizer eos_token and generation_config.json eos_token_id "
                             f"are both unset); generation could never stop")
        self.eos_token_ids: tuple[int, ...] = tuple(ids)
        pad = hf_tokenizer.pad_token_id
        self.pad_token_id: int = int(pad if pad is not None else self.eos_token_ids[0])

    @classmethod
    def from_pretrained(cls, path: str | os.PathLike) -> "ChatTokenizer":
        """Loads tokenizer files and generation_config.json's eos ids from a checkpoint directory."""
        from transformers import AutoTokenizer

        path = Path(path)
        if not path.is_dir():
            raise FileNotFoundError(f"{path} is not a directory: pass a checkpoint directory with tokenizer files")
        problem = tokenizer_files_problem(path)
        if problem:
            raise FileNotFoundError(problem)
        try:
            hf = AutoTokenizer.from_pretrained(str(path))
        except (OSError, ValueError) as e:
            raise ValueError(f"{path}: cannot load the tokenizer ({e}); the directory needs tokenizer.json / "
                             f"tokenizer_config.json") from e
        eos: list[int] = []
        gen = path / "generation_config.json"
        if gen.is_file():
            value = json.loads(gen.read_text()).get("eos_token_id")
            eos = [int(v) for v in (value if isinstance(value, list) else [value]) if v is not None]
        return cls(hf, eos, source=str(path))

    def __len__(self) -> int:
        return len(self.hf)

    def encode_conversation(self, conversation: Conversation) -> list[int]:
        """Prompt ids of `conversation` with the assistant turn opened (add_generation_prompt=True)."""
        ids = self.hf.apply_chat_template(list(conversation), add_generation_prompt=True, tokenize=True,
                                          return_dict=False)
        if ids and isinstance(ids[0], list):  # some versions return a batch of one
            ids = ids[0]
        return [int(i) for i in ids]

    def encode_conversations(self, conversations: Sequence[Conversation]) -> list[list[int]]:
        return [self.encode_conversation(c) for c in conversations]

    def render(self, conversation: Conversation) -> str:
        """The prompt text the chat template renders (for logs and for the vLLM completions API)."""
        return self.hf.apply_chat_template(list(conversation), add_generation_prompt=True, tokenize=False)

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        """Text of `ids`; ids outside the tokenizer's vocabulary (model padding rows) are dropped."""
        n = len(self.hf)
        return self.hf.decode([int(i) for i in ids if 0 <= int(i) < n], skip_special_tokens=skip_special_tokens)

    def decode_completion(self, completion_ids: Sequence[int]) -> str:
        """Text of a sampled completion without its trailing stop token (what the harness parses)."""
        ids = list(completion_ids)
        if ids and ids[-1] in self.eos_token_ids:
            ids = ids[:-1]
        return self.decode(ids)


def load_tokenizer(path: str | os.PathLike) -> ChatTokenizer:
    """`ChatTokenizer.from_pretrained(path)`."""
    return ChatTokenizer.from_pretrained(path)
