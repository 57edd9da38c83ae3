"""Orbax checkpoints of a training run: parameters, optimizer state, step, RNG and data cursors.

Layout: `<dir>/<step>/state` (params + optimizer state as an Orbax PyTree, restored straight
onto the trainer's shardings) and `<dir>/<step>/meta` (JSON: step, RNG key data, the task cursor,
per-task seed cursors, the advantage estimator's state, the weight version, and a fingerprint of
the config fields that must not change on resume). A resumed run restores all of it, so its next
update equals the uninterrupted run's (tests/rl/test_checkpoint.py).
A missing or unreadable checkpoint raises `CheckpointError` saying where and what to do.
"""

from __future__ import annotations

import os
from typing import Any

import jax
import orbax.checkpoint as ocp


class CheckpointError(RuntimeError):
    """A checkpoint that is missing, corrupt, or from an incompatible run."""


def _manager(directory: str, max_to_keep: int | None = 3, create: bool = True) -> ocp.CheckpointManager:
    options = ocp.CheckpointManagerOptions(max_to_keep=max_to_keep, create=create,
                                           enable_async_checkpointing=False)
    return ocp.CheckpointManager(os.path.abspath(directory), options=options)


def save(directory: str, step: int, params: Any, opt_state: Any, meta: dict, max_to_keep: int | None = 3) -> str:
    """Write checkpoint `step` (blocking); returns its path."""
    with _manager(directory, max_to_keep) as mngr:
        mngr.save(step, args=ocp.args.Composite(state=ocp.args.StandardSave({"params": params, "opt_state": opt_state}),
                                                meta=ocp.args.JsonSave({**meta, "step": int(step)})), force=True)
        mngr.wait_until_finished()
    return os.path.join(os.path.abspath(directory), str(step))


def latest_step(directory: str) -> int | None:
    if not os.path.isdir(directory):
        return None
    with _manager(directory, create=False) as mngr:
        return mngr.latest_step()


def all_steps(directory: str) -> list[int]:
    """The saved steps in `directory`, ascending (empty when there is none)."""
    if not os.path.isdir(directory):
        return []
    with _manager(directory, create=False) as mngr:
        return sorted(int(s) for s in mngr.all_steps())


def read_meta(directory: str, step: int) -> dict:
    """The metadata saved with checkpoint `step` (no arrays read)."""
    try:
        with _manager(directory, create=False) as mngr:
            out = mngr.restore(step, args=ocp.args.Composite(meta=ocp.args.JsonRestore()))
    except Exception as e:  # orbax raises many types for truncated/corrupt files
        raise CheckpointError(f"could not read the metadata of checkpoint step {step} in {directory!r}: "
                              f"{type(e).__name__}: {str(e)[:400]}") from e
    return dict(out["meta"])


def restore_params(directory: str, params_like: Any, step: int) -> tuple[Any, dict]:
    """(params, meta) of checkpoint `step` on one device, without the optimizer state (an export
    needs only the weights); `params_like` gives the tree structure, shapes and dtypes."""
    device = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    abstract = {"params": jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=device),
                                       params_like)}
    restore_args = jax.tree.map(lambda _: ocp.ArrayRestoreArgs(sharding=device), abstract)
    try:
        with _manager(directory, create=False) as mngr:
            out = mngr.restore(step, args=ocp.args.Composite(
                state=ocp.args.PyTreeRestore(item=abstract, restore_args=restore_args, partial_restore=True),
                meta=ocp.args.JsonRestore()))
    except Exception as e:  # orbax raises many types for truncated/corrupt/mismatched files
        raise CheckpointError(f"could not read checkpoint step {step} in {directory!r}: {type(e).__name__}: "
                              f"{str(e)[:400]}. The files may be corrupt or from a different model; export "
                              "another step (--step) or re-run training") from e
    return out["state"]["params"], dict(out["meta"])


def restore(directory: str, params_like: Any, opt_state_like: Any, param_sh: Any, opt_sh: Any,
            step: int | None = None) -> tuple[Any, Any, dict]:
    """Restore (params, opt_state, meta) onto the given shardings; the latest step by default."""
    if not os.path.isdir(directory):
        raise CheckpointError(f"resume=true but the checkpoint directory {directory!r} does not exist; "
                              "set ckpt_dir to the run's checkpoint folder or start with resume=false")
    try:
        with _manager(directory, create=False) as mngr:
            if step is None:
                step = mngr.latest_step()
            if step is None:
                raise CheckpointError(f"no checkpoint found in {directory!r} (no numbered step folders); "
                                      "start with resume=false or point ckpt_dir at a run that saved one")
            abstract = jax.tree.map(lambda x, s: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=s),
                                    {"params": params_like, "opt_state": opt_state_like},
                                    {"params": param_sh, "opt_state": opt_sh})
            out = mngr.restore(step, args=ocp.args.Composite(state=ocp.args.StandardRestore(abstract),
                                                             meta=ocp.args.JsonRestore()))
    except CheckpointError:
        raise
    except Exception as e:  # orbax raises many types for truncated/corrupt/mismatched files
        raise CheckpointError(f"could not read checkpoint step {step} in {directory!r}: {type(e).__name__}: "
                              f"{str(e)[:400]}. The files may be corrupt or from a different model/optimizer; "
                              "delete that step folder to fall back to an earlier one, or start with resume=false"
                              ) from e
    meta = dict(out["meta"])
    return out["state"]["params"], out["state"]["opt_state"], meta
