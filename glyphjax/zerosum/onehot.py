"""Gather-, scatter- and argmax-free reads, writes and case choices for small kernel arrays.

Under `vmap`, `x[i]` and `x.at[i].set(v)` with a traced `i` lower to XLA gather / scatter,
which the CPU backend runs as separate slow loops; a comparison with `arange` and a select fuse
with the surrounding element-wise work. Same values as indexing (`i` must be in range)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core.sampling import mask_at


def _hit(shape0: int, i: jax.Array) -> jax.Array:
    return jnp.arange(shape0) == i


def take(x: jax.Array, i: jax.Array) -> jax.Array:
    """x[i] along axis 0 (x may be a numpy / jnp array; `i` an int scalar in range)."""
    x = jnp.asarray(x)
    hit = _hit(x.shape[0], i).reshape((-1,) + (1,) * (x.ndim - 1))
    return jnp.sum(jnp.where(hit, x, jnp.zeros((), x.dtype)), axis=0, dtype=x.dtype)


def put(x: jax.Array, i: jax.Array, v: jax.Array) -> jax.Array:
    """x.at[i].set(v) along axis 0 for an int scalar `i` in range."""
    hit = _hit(x.shape[0], i).reshape((-1,) + (1,) * (x.ndim - 1))
    return jnp.where(hit, jnp.asarray(v, x.dtype), x)


def flag(mask: jax.Array, i: jax.Array) -> jax.Array:
    """mask[i] of a 1-D bool mask (`sampling.mask_at`)."""
    return mask_at(mask, i)


def choose(conds: list, values: list, default):
    """`jnp.select(conds, values, default)` as nested selects: the value of the first true
    condition. jnp.select picks its case with an argmax, a variadic reduce that XLA's CPU
    backend runs as its own slow loop."""
    out = default
    for c, v in zip(reversed(conds), reversed(values)):
        out = jnp.where(c, v, out)
    return out
