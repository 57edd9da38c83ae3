"""Multi-host set-up (rl/distributed.py): ranks from config or SLURM, and a real two-process
data-parallel step through jax.distributed on this machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
