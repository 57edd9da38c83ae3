"""Shared fixtures for the rl tests: the tiny Qwen3 checkpoint, built once per session."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_ckpt(tmp_path_factory) -> Path:
    """Directory of the tiny random Qwen3 checkpoint (tied embeddings, fp32, ChatML tokenizer)."""
    from rl.tiny import write_tiny_checkpoint

    return write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-qwen3"), seed=0)


@pytest.fixture(scope="session")
def tiny_ckpt_untied(tmp_path_factory) -> Path:
    """The same recipe with an untied lm_head (separate `lm_head.weight`)."""
    from rl.tiny import write_tiny_checkpoint

    return write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-qwen3-untied"), seed=1, tie_word_embeddings=False)
