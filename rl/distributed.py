"""Multi-host runs through `jax.distributed`: coordinator address, process count and process id
from the config, else from the SLURM environment of a multi-task job step.

    distributed:            # conf key (TrainConfig.distributed)
      enabled: true         # off by default: a single-process run never touches jax.distributed
      coordinator_address: null   # host:port; null = first host of SLURM_JOB_NODELIST, port below
      num_processes: null         # null = SLURM_NTASKS
      process_id: null            # null = SLURM_PROCID
      port: 12345                 # coordinator port when the address comes from SLURM
      rollout_shares: null        # null = the process count (see below)

Training across processes (rl/trainer.py, rl/train_step.py): an update's groups are cut into
`rollout_shares` contiguous shares (null: one per process), share k sampled with its own seed
(`share_seed`, share 0 keeps the single-process seed); process p plays shares p, p + n, ...
The processes exchange their records without the turns (`allgather_objects`), so every process
computes the advantages of all groups (the estimator's state stays identical everywhere) and
trains on the turns it played; `TrainStep` assembles the global batch from each process's rows.
A single process with `rollout_shares=N` plays exactly the rollouts of an N-process run, so its
updates equal that run's (tests/rl/test_distributed.py).

Every process then sees the global device list (`jax.devices()`), so `rl.sharding.make_mesh`
spans all hosts; each process feeds its own rows with `jax.make_array_from_process_local_data`.
On CPU the cross-process collectives use gloo.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Mapping, Optional

import jax


@dataclasses.dataclass
class DistributedConfig:
    enabled: bool = False
    coordinator_address: Optional[str] = None
    num_processes: Optional[int] = None
    process_id: Optional[int] = None
    port: int = 12345
    rollout_shares: Optional[int] = None


def first_host(nodelist: str) -> str:
    """The first host of a SLURM node list: "gpu[03-05,09],cpu1" -> "gpu03", "a,b" -> "a"."""
    m = re.match(r"([^,\[]+)(?:\[([^\]]+)\])?", nodelist.strip())
    if not m or not m.group(1):
        raise ValueError(f"cannot read a host from the SLURM node list {nodelist!r}")
    prefix, ranges = m.group(1), m.group(2)
    return prefix if ranges is None else prefix + ranges.split(",")[0].split("-")[0]


def resolve(cfg: DistributedConfig, environ: Mapping[str, str] | None = None) -> dict:
    """(coordinator_address, num_processes, process_id) for `jax.distributed.initialize`: each
    from the config when set, else from SLURM_JOB_NODELIST / SLURM_NTASKS / SLURM_PROCID."""
    env = os.environ if environ is None else environ

    def from_slurm(value, name: str):
        if value is not None:
            return value
        if name not in env:
            raise ValueError(f"distributed.enabled=true but {name} is not set and the config gives no value; "
                             f"run inside a SLURM job step (srun) or set distributed.coordinator_address, "
                             f"distributed.num_processes and distributed.process_id")
        return env[name]

    address = cfg.coordinator_address
    if address is None:
        address = f"{first_host(from_slurm(None, 'SLURM_JOB_NODELIST'))}:{cfg.port}"
    n = int(from_slurm(cfg.num_processes, "SLURM_NTASKS"))
    pid = int(from_slurm(cfg.process_id, "SLURM_PROCID"))
    if not 0 <= pid < n:
        raise ValueError(f"distributed.process_id={pid} must be in [0, num_processes={n})")
    return {"coordinator_address": address, "num_processes": n, "process_id": pid}


def share_seed(update_seed: int, share: int) -> int:
    """The sampling seed of rollout share `share` of an update (share 0: the update's own seed)."""
    if share == 0:
        return update_seed
    import numpy as np
    return int(np.random.SeedSequence([update_seed, share]).generate_state(1)[0] >> 1)


def allgather_objects(obj) -> list:
    """Every process's `obj` (picklable), in process order; a collective (every process calls it)."""
    if jax.process_count() == 1:
        return [obj]
    import pickle

    import numpy as np
    from jax.experimental import multihost_utils
    data = np.frombuffer(pickle.dumps(obj), np.uint8)
    sizes = multihost_utils.process_allgather(np.asarray([data.size], np.int32))
    padded = np.zeros(int(np.max(sizes)), np.uint8)
    padded[:data.size] = data
    parts = np.asarray(multihost_utils.process_allgather(padded))
    return [pickle.loads(parts[i, :int(n)].tobytes()) for i, n in enumerate(np.asarray(sizes).reshape(-1))]


def initialize(cfg: DistributedConfig | Mapping | None, environ: Mapping[str, str] | None = None) -> bool:
    """Join the multi-host run when `cfg.enabled` (before any JAX computation); returns whether it did."""
    if cfg is None:
        return False
    if not isinstance(cfg, DistributedConfig):
        cfg = DistributedConfig(**dict(cfg))
    if not cfg.enabled:
        return False
    args = resolve(cfg, environ)
    jax.config.update("jax_cpu_collectives_implementation", "gloo")  # CPU devices only; checked before any backend starts
    jax.distributed.initialize(**args)
    return True
