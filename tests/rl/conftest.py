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


# --- vLLM server (rollout/vLLM engineer) ---------------------------------------------------------
VLLM_TEST_MAX_MODEL_LEN = 2048


@pytest.fixture(scope="session")
def vllm_server(tiny_ckpt):
    """A real vLLM server (from the vLLM venv) serving the tiny checkpoint (as an untied copy, so
    weight reloads work) on 127.0.0.1, started once
    per session (1-2 minutes). A missing venv is created on first use (scripts/ci/vllm_venv.sh,
    through tests/provision.py); if that fails the test FAILS, it is never skipped."""
    import os

    from rl.vllm_server import VLLMServer, VLLMServerError, launch_vllm_server, untied_copy, vllm_python

    reuse = os.environ.get("GLYPHJAX_TEST_VLLM_URL")  # developer loop: a server already serving the
    if reuse:  # tiny checkpoint (python scripts/launch_vllm.py --model <tiny> --served-model-name tiny-qwen3)
        yield VLLMServer(None, reuse.rstrip("/"), "tiny-qwen3", None, VLLM_TEST_MAX_MODEL_LEN)
        return
    from tests.provision import VLLM_VENV, ProvisionError, ensure

    try:  # first use on a fresh machine: build the venv (about 8 minutes, once per machine; the
        # session started it in the background when it collected a vLLM test: tests/conftest.py)
        ensure(*VLLM_VENV)
        python = vllm_python()
    except (ProvisionError, VLLMServerError) as e:
        pytest.fail(f"vLLM tests need the vLLM venv, and creating it failed: {e}", pytrace=False)
    # An untied copy (same function): vLLM 0.32 reloads tied embeddings wrongly (rl/vllm_server.py).
    served = untied_copy(tiny_ckpt, tiny_ckpt.parent / "tiny-qwen3-served-untied")
    server = launch_vllm_server(served, python=python, served_model_name="tiny-qwen3",
                                max_model_len=VLLM_TEST_MAX_MODEL_LEN, startup_timeout=600)
    yield server
    server.stop()
