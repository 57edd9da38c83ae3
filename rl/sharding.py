"""Device mesh and partition specs for the trainer: axes ("data", "model").

"data" is the data-parallel / FSDP axis: the batch is split along it and (with `fsdp=True`) each
parameter is sharded along its largest dimension that the axis size divides. "model" is an
optional tensor-parallel axis: a parameter's last dimension is sharded along it when divisible
(the model's own `sharding` metadata on `nnx.Param`s, if any, takes precedence). Parameters
that divide by nothing are replicated. Optimizer state leaves shaped like parameters take the
parameter's spec (via `optax.tree_map_params`); scalars (the Adam step count) are replicated.
The same code runs on one CPU device, on faked CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=8`), and on GPU/TPU meshes.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
import optax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

DATA, MODEL = "data", "model"
BATCH_SPEC = P(None, DATA, None)  # [micro-batch, rows, tokens]: rows split over "data"


def make_mesh(data: int = -1, model: int = 1, devices: list | None = None) -> Mesh:
    """A ("data", "model") mesh; data=-1 takes all devices not used by the model axis."""
    devices = list(jax.devices() if devices is None else devices)
    n = len(devices)
    if model < 1 or n % model:
        raise ValueError(f"mesh.model={model} must be >= 1 and divide the {n} available devices")
    if data == -1:
        data = n // model
    if data < 1 or data * model > n:
        raise ValueError(f"mesh data={data} x model={model} needs {data * model} devices; "
                         f"{n} available ({jax.default_backend()}). Lower mesh.data / mesh.model.")
    grid = np.asarray(devices[: data * model]).reshape(data, model)
    return Mesh(grid, (DATA, MODEL))


def leaf_spec(shape: tuple[int, ...], mesh: Mesh, fsdp: bool = True) -> P:
    """Heuristic spec for one parameter: last dim over "model", largest other dim over "data"."""
    axes: list[str | None] = [None] * len(shape)
    n_model, n_data = mesh.shape[MODEL], mesh.shape[DATA]
    if len(shape) >= 2 and n_model > 1 and shape[-1] % n_model == 0:
        axes[-1] = MODEL
    if fsdp and n_data > 1 and len(shape) >= 1:
        order = sorted(range(len(shape)), key=lambda d: -shape[d])
        for d in order:
            if axes[d] is None and shape[d] % n_data == 0 and shape[d] >= n_data:
                axes[d] = DATA
                break
    return P(*axes)


def fit_spec(spec: P, shape: tuple[int, ...], mesh: Mesh, fsdp: bool = True) -> P:
    """A declared spec made valid here: axes that do not divide their dim (or "data" when FSDP is
    off, or any axis of size 1) are dropped, so one model spec works on every mesh."""
    axes = list(spec) + [None] * (len(shape) - len(spec))
    out = []
    for dim, ax in zip(shape, axes[: len(shape)]):
        size = mesh.shape[ax] if ax in mesh.shape else 0
        keep = ax is not None and size > 1 and dim % size == 0 and (fsdp or ax != DATA)
        out.append(ax if keep else None)
    return P(*out)


def param_shardings(params: Any, mesh: Mesh, fsdp: bool = True, declared: Any = None) -> Any:
    """NamedSharding for every parameter leaf (a pytree like `params`). `declared`: the model's own
    specs (same tree, e.g. from nnx.get_partition_spec); used when any leaf declares an axis,
    otherwise the `leaf_spec` heuristic."""
    if declared is not None and any(len(s) for s in jax.tree.leaves(declared, is_leaf=lambda x: isinstance(x, P))):
        return jax.tree.map(lambda x, s: NamedSharding(mesh, fit_spec(s, tuple(x.shape), mesh, fsdp)),
                            params, declared, is_leaf=lambda x: isinstance(x, P))
    return jax.tree.map(lambda x: NamedSharding(mesh, leaf_spec(tuple(x.shape), mesh, fsdp)), params)


def opt_state_shardings(tx: optax.GradientTransformation, params: Any, param_sh: Any, mesh: Mesh) -> Any:
    """Shardings for `tx.init(params)`: parameter-shaped leaves follow their parameter."""
    shapes = jax.eval_shape(tx.init, params)
    replicated = NamedSharding(mesh, P())
    return optax.tree_map_params(tx, lambda _, sh: sh, shapes, param_sh,
                                 transform_non_params=lambda _: replicated)


def batch_sharding(mesh: Mesh) -> NamedSharding:
    return NamedSharding(mesh, BATCH_SPEC)


def replicated(mesh: Mesh) -> NamedSharding:
    return NamedSharding(mesh, P())
