"""Orbax checkpoints: exact round trip, clear errors, and kill-and-resume equals an uninterrupted run."""

import json
import os
from pathlib import Path

import jax
import numpy as np
import pytest

from rl import checkpoint as ckpt
from rl.train_step import StepConfig, TrainStep
from tests.rl.test_train_step import random_samples, tiny_model


def _trees_equal(a, b):
    la, lb = jax.tree.leaves(a), jax.tree.leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_checkpoint__round_trip_restores_params_optimizer_state_and_meta(tmp_path):
    ts = TrainStep(tiny_model(), StepConfig(lr=1e-3))
    ts.step(ts.build(random_samples(4), 4, bucket=16))
    meta = {"update": 1, "task_cursor": 3, "seed_cursor": {"dummy/arrow-1": 96}}
    ckpt.save(str(tmp_path), 1, ts.params, ts.opt_state, meta)
    fresh = TrainStep(tiny_model(seed=7), StepConfig(lr=1e-3))
    params, opt_state, got = ckpt.restore(str(tmp_path), fresh.params, fresh.opt_state, fresh.param_sh, fresh.opt_sh)
    _trees_equal(params, ts.params)
    _trees_equal(opt_state, ts.opt_state)
    assert got["task_cursor"] == 3 and got["seed_cursor"] == {"dummy/arrow-1": 96} and got["step"] == 1


def test_checkpoint__missing_directory_is_a_clear_error(tmp_path):
    ts = TrainStep(tiny_model(), StepConfig(lr=1e-3))
    with pytest.raises(ckpt.CheckpointError, match="does not exist"):
        ckpt.restore(str(tmp_path / "nope"), ts.params, ts.opt_state, ts.param_sh, ts.opt_sh)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ckpt.CheckpointError, match="no checkpoint found"):
        ckpt.restore(str(tmp_path / "empty"), ts.params, ts.opt_state, ts.param_sh, ts.opt_sh)


def test_checkpoint__corrupt_files_are_a_clear_error(tmp_path):
    ts = TrainStep(tiny_model(), StepConfig(lr=1e-3))
    ckpt.save(str(tmp_path), 5, ts.params, ts.opt_state, {"update": 5})
    state_dir = tmp_path / "5" / "state"
    files = [p for p in state_dir.rglob("*") if p.is_file()]
    assert files, "orbax wrote no files"
    for p in files:
        p.write_bytes(b"\x00garbage")
    with pytest.raises(ckpt.CheckpointError, match="could not read checkpoint step 5"):
        ckpt.restore(str(tmp_path), ts.params, ts.opt_state, ts.param_sh, ts.opt_sh)


def _cfg(out, **over):
    from rl.train_cli import compose
    items = {"rl.action_tokens": "true", "rl.group_size": 4, "rl.groups_per_update": 1, "rl.rollout_budget": 8,
             "rl.lr": "1e-3", "eval.every": 0,
             "policy.max_new_tokens": 1, "rl.micro_batch_size": 8, "ckpt_every": 1, "log.console": "false", **over}
    return compose([f"{k}={v}" for k, v in items.items()], out)


def test_resume__killed_run_resumed_from_checkpoint_makes_the_same_next_update(tmp_path):
    from rl.trainer import train

    full = train(_cfg(tmp_path / "full"))
    first = train(_cfg(tmp_path / "cut", stop_after=1))  # "killed" after one update + checkpoint
    assert len(first) == 1
    resumed = train(_cfg(tmp_path / "cut", resume="true"))
    assert [r["update"] for r in resumed] == [2]
    a, b = full[1], resumed[0]
    for key in ("returns", "tasks", "loss", "grad_norm", "masked_token_frac", "logp_mismatch", "weight_version"):
        assert a[key] == b[key], f"update 2 differs in {key}: uninterrupted {a[key]} vs resumed {b[key]}"
    # and the parameters written at the end are identical
    from rl.trainer import Trainer
    ta = Trainer(_cfg(tmp_path / "full", resume="true"))
    tb = Trainer(_cfg(tmp_path / "cut", resume="true"))
    assert ta.update == tb.update == 2 and ta.seed_cursor == tb.seed_cursor
    _trees_equal(ta.step.params, tb.step.params)
    _trees_equal(ta.step.opt_state, tb.step.opt_state)
