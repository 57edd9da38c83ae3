"""One process of the two-process training test (tests/rl/test_distributed.py): joins the run from
the SLURM variables, runs glyphjax-train's loop (what `rl.trainer.train` does: validate, build, run,
finish) on the overrides given after the port and out dir, and saves the parameters it holds
afterwards to <out dir>/params-<process>.npz."""

import sys

import numpy as np

from rl.distributed import DistributedConfig, initialize

if __name__ == "__main__":
    assert initialize(DistributedConfig(enabled=True, port=int(sys.argv[1])))
    import jax
    from jax.experimental import multihost_utils

    from rl.run_summary import finish_run
    from rl.train_cli import compose
    from rl.trainer import Trainer

    out = sys.argv[2]
    trainer = Trainer(compose(sys.argv[3:], out))
    finish_run(trainer, trainer.run())
    params = jax.tree.leaves(multihost_utils.process_allgather(trainer.step.params, tiled=True))
    np.savez(f"{out}/params-{jax.process_index()}.npz", *params)
