"""One process of the two-process test (tests/rl/test_distributed.py): joins the run from the
SLURM variables, takes one data-parallel SGD step of least squares over a mesh spanning both
processes (each feeds its own two rows), prints the new weights as JSON."""

import json
import sys

import numpy as np

from rl.distributed import DistributedConfig, initialize

X = np.array([[1, 0], [0, 1], [1, 1], [2, 0]], np.float32)
Y = np.array([1, 2, 3, 4], np.float32)

if __name__ == "__main__":
    assert initialize(DistributedConfig(enabled=True, port=int(sys.argv[1])))
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    from rl.sharding import DATA, make_mesh, replicated
    mesh = make_mesh()
    rows = slice(2 * jax.process_index(), 2 * jax.process_index() + 2)
    x = jax.make_array_from_process_local_data(NamedSharding(mesh, P(DATA, None)), X[rows])
    y = jax.make_array_from_process_local_data(NamedSharding(mesh, P(DATA)), Y[rows])
    w = jax.device_put(jnp.zeros(2, jnp.float32), replicated(mesh))
    step = jax.jit(lambda w, x, y: w - 0.1 * jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w),
                   out_shardings=replicated(mesh))
    w1 = step(w, x, y)
    print(json.dumps({"process": jax.process_index(), "processes": jax.process_count(),
                      "devices": len(jax.devices()), "w": np.asarray(w1.addressable_data(0)).tolist()}))
