"""glyphjax-export: a run's Orbax checkpoint -> a Hugging Face directory that transformers and
policy=local load with the trainer's exact weights; one clear error per bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from rl.export import checkpoint_model, main as export_cli, run_model_dir

TOKENS = [[5, 17, 99, 3, 250, 41, 7, 600]]


def _cfg(out, **over):
    from rl.train_cli import compose
    items = {"rl.action_tokens": "true", "rl.group_size": 4, "rl.rollout_budget": 8, "rl.lr": "5e-2",
             "policy.max_new_tokens": 1, "rl.groups_per_update": 1, "eval.every": 0, "rl.micro_batch_size": 8, "harness": "compact", "ckpt_every": 1,
             "log.console": "false", **over}
    return compose([f"{k}={v}" for k, v in items.items()], out)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A real two-update training run of the tiny model with checkpoints at updates 1 and 2."""
    from rl.trainer import train

    out = tmp_path_factory.mktemp("export-run") / "run"
    train(_cfg(out))
    return out


def _jax_logits(model) -> np.ndarray:
    from rl.models.qwen3 import positions_from_mask
    ids = np.asarray(TOKENS, np.int32)
    mask = np.ones_like(ids)
    return np.asarray(model(ids, positions_from_mask(mask), mask))


def _torch_logits(path) -> np.ndarray:
    from transformers import AutoModelForCausalLM
    hf = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    with torch.no_grad():
        return hf(input_ids=torch.tensor(TOKENS)).logits.float().numpy()


def test_export__transformers_logits_equal_the_checkpoints_jax_logits(run_dir, tmp_path, capsys):
    assert export_cli([str(run_dir), str(tmp_path / "hf")]) == 0
    assert "step 2" in capsys.readouterr().out  # the latest checkpoint by default
    model, step, base = checkpoint_model(run_dir)
    ours = _jax_logits(model)
    theirs = _torch_logits(tmp_path / "hf")
    np.testing.assert_allclose(theirs, ours, atol=1e-4, rtol=1e-4)
    # the exported weights are the trained ones, not the base model's
    from rl.models import hf_io
    assert np.abs(_jax_logits(hf_io.load_model(base)) - ours).max() > 1e-3


def test_export__step_option_selects_that_checkpoint(run_dir, tmp_path):
    assert export_cli([str(run_dir), "--step", "1", str(tmp_path / "s1")]) == 0
    assert export_cli([str(run_dir), "--step", "2", str(tmp_path / "s2")]) == 0
    from rl.models import hf_io
    one, two = hf_io.read_checkpoint_tensors(tmp_path / "s1"), hf_io.read_checkpoint_tensors(tmp_path / "s2")
    assert json.loads((tmp_path / "s1" / "glyphjax_export.json").read_text())["step"] == 1
    assert any(not np.array_equal(one[k], two[k]) for k in one), "steps 1 and 2 exported identical weights"
    np.testing.assert_array_equal(_jax_logits(hf_io.load_model(tmp_path / "s1")),
                                  _jax_logits(checkpoint_model(run_dir, 1)[0]))


def test_export__tokenizer_and_chat_template_load_in_transformers_like_ours(run_dir, tmp_path):
    from transformers import AutoTokenizer

    from rl.tokenizer import ChatTokenizer
    out = tmp_path / "hf"
    assert export_cli([str(run_dir), str(out)]) == 0
    assert (out / "chat_template.jinja").is_file()
    conv = [{"role": "system", "content": "Rules."}, {"role": "user", "content": "[Grid]\n·→·"}]
    hf_ids = AutoTokenizer.from_pretrained(out).apply_chat_template(conv, add_generation_prompt=True, tokenize=True)
    if hasattr(hf_ids, "keys"):  # newer transformers return a BatchEncoding
        hf_ids = hf_ids["input_ids"]
    assert list(hf_ids) == ChatTokenizer.from_pretrained(out).encode_conversations([conv])[0]


def test_local_policy__loads_a_finished_run_directory_as_its_final_model(run_dir):
    from rl.policies.local import load_local_policy
    assert run_model_dir(run_dir) == run_dir / "model"
    # the final model is the weights of the last update, which is also the last checkpoint
    np.testing.assert_array_equal(_jax_logits(load_local_policy(run_dir).model),
                                  _jax_logits(checkpoint_model(run_dir, 2)[0]))


def test_local_policy__run_without_final_model_exports_its_latest_checkpoint_once(run_dir, tmp_path):
    from rl.policies.local import load_local_policy
    cut = tmp_path / "cut"
    shutil.copytree(run_dir, cut, ignore=shutil.ignore_patterns("model"))
    path = run_model_dir(cut)
    assert path == cut / "export" / "step-2"
    np.testing.assert_array_equal(_jax_logits(load_local_policy(cut).model), _jax_logits(checkpoint_model(cut)[0]))
    before = (path / "model.safetensors").stat().st_mtime_ns
    assert run_model_dir(cut) == path and (path / "model.safetensors").stat().st_mtime_ns == before  # reused


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("glyphjax-export: error: "), err
    return err[0]


def test_export__run_without_checkpoints_is_one_clear_error(run_dir, tmp_path, capsys):
    bare = tmp_path / "bare"
    bare.mkdir()
    shutil.copy(run_dir / "config.json", bare / "config.json")
    assert export_cli([str(bare), str(tmp_path / "out")]) == 2
    assert "has no checkpoints" in _one_error_line(capsys) and not (tmp_path / "out").exists()
    assert export_cli([str(tmp_path), str(tmp_path / "out")]) == 2
    assert "not a training run directory" in _one_error_line(capsys)


def test_export__missing_step_lists_the_saved_steps(run_dir, tmp_path, capsys):
    assert export_cli([str(run_dir), "--step", "7", str(tmp_path / "out")]) == 2
    assert "no checkpoint for step 7; saved steps: 1, 2" in _one_error_line(capsys)


def test_export__never_replaces_a_directory_that_is_not_an_export(run_dir, tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    assert export_cli([str(run_dir), str(mine)]) == 2
    assert "is not a glyphjax export" in _one_error_line(capsys)
    assert (mine / "notes.txt").read_text() == "keep me" and not (mine / "config.json").exists()
    assert export_cli([str(run_dir), "--step", "1", str(tmp_path / "again")]) == 0
    assert export_cli([str(run_dir), str(tmp_path / "again")]) == 0  # an earlier export is replaced
    assert json.loads((tmp_path / "again" / "glyphjax_export.json").read_text())["step"] == 2


def test_export__corrupt_checkpoint_is_one_clear_error(run_dir, tmp_path, capsys):
    broken = tmp_path / "broken"
    shutil.copytree(run_dir, broken)
    for p in (broken / "checkpoints" / "2" / "state").rglob("*"):
        if p.is_file():
            p.write_bytes(b"\x00garbage")
    assert export_cli([str(broken), str(tmp_path / "out")]) == 2
    assert "could not read checkpoint step 2" in _one_error_line(capsys)
    assert not (tmp_path / "out").exists()


@pytest.mark.vllm
@pytest.mark.xdist_group("vllm-server")  # not beside the session server: one vLLM at a time
def test_export__vllm_serves_the_exported_model_with_the_checkpoints_logprobs(run_dir, tmp_path):
    """A fresh vLLM server (its own venv) on the export: prompt log-probs equal our JAX model's."""
    from rl.vllm_server import launch_vllm_server, vllm_python
    from tests.provision import VLLM_VENV, ensure
    from tests.rl.test_vllm_server import jax_completion_logprobs, server_prompt_logprobs
    ensure(*VLLM_VENV)  # first use on a fresh machine (or wait for the session's background set-up)
    assert export_cli([str(run_dir), str(tmp_path / "hf")]) == 0
    server = launch_vllm_server(tmp_path / "hf", python=vllm_python(), served_model_name="export",
                                max_model_len=256, startup_timeout=600)
    try:
        tokens = TOKENS[0]
        served = server_prompt_logprobs(server.url, "export", tokens)
    finally:
        server.stop()
    ours = jax_completion_logprobs(checkpoint_model(run_dir)[0], tokens[:1], tokens[1:])
    np.testing.assert_allclose(served, ours, atol=1e-3)
