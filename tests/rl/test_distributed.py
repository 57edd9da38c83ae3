"""Multi-host set-up (rl/distributed.py): ranks from config or SLURM, a real two-process
data-parallel step through jax.distributed on this machine, and glyphjax-train's loop over two
processes against one process playing the same rollouts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest

from rl.distributed import DistributedConfig, first_host, resolve
from rl.vllm_server import free_port

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("nodelist,host", [("gpu[03-05,09],cpu1", "gpu03"), ("a,b", "a"), ("node7", "node7"),
                                           ("n[12]", "n12")])
def test_first_host__reads_slurm_node_lists(nodelist, host):
    assert first_host(nodelist) == host


def test_resolve__config_values_win_over_slurm_and_missing_ones_are_named():
    env = {"SLURM_JOB_NODELIST": "gpu[03-04]", "SLURM_NTASKS": "2", "SLURM_PROCID": "1"}
    assert resolve(DistributedConfig(enabled=True, port=999), env) == \
        {"coordinator_address": "gpu03:999", "num_processes": 2, "process_id": 1}
    assert resolve(DistributedConfig(enabled=True, coordinator_address="h:1", num_processes=4, process_id=3), env) == \
        {"coordinator_address": "h:1", "num_processes": 4, "process_id": 3}
    with pytest.raises(ValueError, match="SLURM_NTASKS is not set"):
        resolve(DistributedConfig(enabled=True, coordinator_address="h:1"), {})
    with pytest.raises(ValueError, match=r"process_id=2 must be in \[0, num_processes=2\)"):
        resolve(DistributedConfig(enabled=True, coordinator_address="h:1", num_processes=2, process_id=2), {})


def test_two_processes__one_data_parallel_step_equals_the_full_batch_step():
    port = free_port()
    env = {**os.environ, "SLURM_JOB_NODELIST": "127.0.0.1", "SLURM_NTASKS": "2", "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": str(REPO)}
    env.pop("XLA_FLAGS", None)  # one CPU device per process
    procs = [subprocess.Popen([sys.executable, str(Path(__file__).with_name("distributed_worker.py")), str(port)],
                              env={**env, "SLURM_PROCID": str(i)}, cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(2)]
    outs = [p.communicate(timeout=240) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err[-2000:]
    results = [json.loads(out.strip().splitlines()[-1]) for out, _ in outs]
    # full batch by hand: grad = (2/4) X^T (X w0 - y) = -0.5 * [12, 5]; w1 = -0.1 * grad
    assert [r["process"] for r in results] == [0, 1]
    for r in results:
        assert r["processes"] == 2 and r["devices"] == 2
        assert r["w"] == pytest.approx([0.6, 0.25], abs=1e-6)


TRAIN = {"rl.action_tokens": "true", "rl.group_size": 4, "rl.groups_per_update": 2, "rl.rollout_budget": 16,
         "rl.lr": "1e-3", "eval.every": 0, "policy.max_new_tokens": 1, "rl.micro_batch_size": 8, "ckpt_every": 1,
         "log.console": "false"}


def _two_processes(script: str, *args: str, timeout: int = 240) -> list[str]:
    """Run tests/rl/<script> as processes 0 and 1 of one jax.distributed run (one CPU device each)."""
    env = {**os.environ, "SLURM_JOB_NODELIST": "127.0.0.1", "SLURM_NTASKS": "2", "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": str(REPO)}
    env.pop("XLA_FLAGS", None)  # one CPU device per process
    procs = [subprocess.Popen([sys.executable, str(Path(__file__).with_name(script)), *args],
                              env={**env, "SLURM_PROCID": str(i)}, cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(2)]
    outs = [p.communicate(timeout=timeout) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
    return [out for out, _ in outs]


def test_two_process_training__equals_one_process_playing_the_same_two_rollout_shares(tmp_path):
    """glyphjax-train's loop over two processes: each plays one of the update's two groups, the
    step assembles the global batch from both; after two updates both hold the parameters of a
    single process that plays the same two shares (distributed.rollout_shares=2) and trains on the
    whole batch. Only process 0 writes metrics; the Orbax checkpoints are saved by both together."""
    from rl import checkpoint as ckpt
    from rl.train_cli import compose
    from rl.trainer import Trainer

    overrides = [f"{k}={v}" for k, v in TRAIN.items()]
    _two_processes("distributed_train_worker.py", str(free_port()), str(tmp_path / "multi"), *overrides)
    multi = [list(np.load(tmp_path / "multi" / f"params-{i}.npz").values()) for i in range(2)]
    single = Trainer(compose(overrides + ["distributed.rollout_shares=2"], tmp_path / "single"))
    init = [np.asarray(x) for x in jax.tree.leaves(jax.device_get(single.step.params))]
    single.run()
    ref = [np.asarray(x) for x in jax.tree.leaves(jax.device_get(single.step.params))]
    assert len(multi[0]) == len(multi[1]) == len(ref)
    # two Adam steps of LR 1e-3 move weights by ~1e-3; float noise (a different summation order)
    # moves a near-zero gradient's Adam step by a few 1e-6, hence atol 1e-5
    assert max(np.abs(r - x).max() for r, x in zip(ref, init)) > 1e-3
    for a, b, r in zip(*multi, ref):
        np.testing.assert_array_equal(a, b)  # both processes hold the same parameters
        np.testing.assert_allclose(a, r, rtol=1e-4, atol=1e-5)
    lines = [json.loads(x) for x in (tmp_path / "multi" / "metrics.jsonl").read_text().splitlines()]
    ref_lines = [json.loads(x) for x in (tmp_path / "single" / "metrics.jsonl").read_text().splitlines()]
    assert [r["update"] for r in lines] == [1, 2]  # process 0 alone wrote them
    for got, want in zip(lines, ref_lines):  # process 0 logs every share's episodes, not only its own
        assert got["seeds"] == want["seeds"] and got["returns"] == want["returns"]
        assert got["samples"] == want["samples"] == 8
        assert got["loss"] == pytest.approx(want["loss"], rel=1e-4, abs=1e-6)
    assert ckpt.all_steps(str(tmp_path / "multi" / "checkpoints")) == [1, 2]
