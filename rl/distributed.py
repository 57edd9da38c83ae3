"""Multi-host runs through `jax.distributed`: coordinator address, process count and process id
from the config, else from the SLURM environment of a multi-task job step.

    distributed:            # conf key (TrainConfig.distributed)
      enabled: true         # off by default: a single-process run never touches jax.distributed
      coordinator_address: null   # host:port; null = first host of SLURM_JOB_NODELIST, port below
      num_processes: null         # null = SLURM_NTASKS
      process_id: null            # null = SLURM_PROCID
      port: 12345                 # coordinator port when the address comes from SLURM

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
