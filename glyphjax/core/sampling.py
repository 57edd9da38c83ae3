"""Random draws inside environments: random True cells of a mask (`random_cell`, `random_cells`,
the one implementation every suite uses), integer hashes, and `Draws`, a generator's stream of
uniforms."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np


SMALL_MASK = 128  # up to this many cells, kth_true takes the shorter graph (see below)


def kth_true(flat: jax.Array, k: jax.Array) -> jax.Array:
    """Index of the (k+1)-th True of a 1-D bool mask: `argmax(cumsum(flat) > k)` (0 when the mask
    is empty or k >= its count), computed in blocks.

    XLA on CPU lowers a cumsum to a log-depth scan of slices and concatenations, which made this
    draw ~70% of a vmapped MiniGrid DoorKey reset. Here the n cells are cut into ~sqrt(n) blocks
    of ~sqrt(n), and the prefix sums are written as triangular masked sums (bit for bit the same
    index). The index is the number of cells whose running count is <= k.
    - n <= SMALL_MASK: the running count of every cell (Trues in earlier blocks + in-block prefix,
      an [nb, b, b] masked sum) in one go: four reductions, so a generator making a dozen draws
      compiles ~0.07 s faster per draw (vmapped, B = 4096), at the same run time.
    - larger masks: the block holding the (k+1)-th True is found from the block counts, then the
      column inside it (seven reductions, but O(n) work instead of O(n * sqrt(n)); 2-4x faster
      at n = 361)."""
    n = flat.shape[0]
    b = max(1, math.isqrt(max(n - 1, 0)) + 1)
    nb = -(-n // b)
    m = jnp.pad(flat.astype(jnp.int32), (0, nb * b - n)).reshape(nb, b)
    block_cnt = m.sum(axis=1)
    tri = np.arange(b)[:, None] >= np.arange(b)[None, :]
    if n <= SMALL_MASK:
        earlier = np.arange(nb)[:, None] > np.arange(nb)[None, :]
        before = jnp.sum(jnp.where(earlier, block_cnt[None, :], 0), axis=1)  # [nb]
        running = before[:, None] + jnp.sum(jnp.where(tri[None], m[:, None, :], 0), axis=2)
        idx = jnp.sum(running <= k, dtype=jnp.int32)
        return jnp.where(idx >= n, 0, idx).astype(jnp.int32)
    tri_b = np.arange(nb)[:, None] >= np.arange(nb)[None, :]
    block_cum = jnp.sum(jnp.where(tri_b, block_cnt[None, :], 0), axis=1)
    passed = block_cum <= k  # blocks holding fewer than k+1 Trues in total
    row = jnp.sum(passed, dtype=jnp.int32)
    k_in = k - jnp.sum(jnp.where(passed, block_cnt, 0))
    cells = jnp.sum(jnp.where(np.arange(nb)[:, None] == row, m, 0), axis=0)
    col = jnp.sum(jnp.sum(jnp.where(tri, cells[None, :], 0), axis=1) <= k_in, dtype=jnp.int32)
    return jnp.where(row >= nb, 0, row * b + col).astype(jnp.int32)


def uniform_true(flat: jax.Array, u: jax.Array) -> jax.Array:
    """A uniformly random True index of a 1-D bool mask from one uniform u in [0, 1): the
    floor(u * count)-th True (0 when the mask is empty)."""
    count = jnp.sum(flat, dtype=jnp.int32)
    return kth_true(flat, jnp.floor(u * count).astype(jnp.int32))


def random_cell(u: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
    """One uniformly random True cell of a bool mask (any shape) from one uniform u in [0, 1):
    -> (flat index int32, found bool). One random number, whatever the mask size; with no True
    cell the index is 0 and `found` False."""
    flat = mask.reshape(-1)
    return uniform_true(flat, u), jnp.any(flat)


def random_cells(u: jax.Array, mask: jax.Array, k: int) -> tuple[jax.Array, jax.Array]:
    """k distinct uniformly random True cells of a bool mask from `mask.size` uniforms u (one per
    cell): the k True cells of largest u, best first -> (flat indices int32[k], found bool[k]).
    With fewer than k True cells the remaining picks are False cells and `found` is False there."""
    flat = mask.reshape(-1)
    u = u.reshape(-1)
    if u.shape[0] != flat.shape[0]:
        raise ValueError(f"random_cells takes one uniform per cell: {flat.shape[0]} cells, "
                         f"{u.shape[0]} uniforms")
    _, idx = jax.lax.top_k(jnp.where(flat, u, u - 2.0), k)
    idx = idx.astype(jnp.int32)
    return idx, flat[idx]


def hash32(x: jax.Array) -> jax.Array:
    """lowbias32 (C. Wellons' xor-shift-multiply integer hash), uint32 -> uint32."""
    x = jnp.asarray(x, jnp.uint32)
    x = (x ^ (x >> 16)) * jnp.uint32(0x7FEB352D)
    x = (x ^ (x >> 15)) * jnp.uint32(0x846CA68B)
    return x ^ (x >> 16)


def key_words(key: jax.Array) -> jax.Array:
    """uint32[2]: the raw words of a PRNG key (typed, or legacy uint32[2])."""
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        key = jax.random.key_data(key)
    return key.reshape(-1)[:2].astype(jnp.uint32)


def hash_bits(key: jax.Array, n: int) -> jax.Array:
    """uint32[n] pseudo-random words from a PRNG key without a Threefry kernel: word i is
    hash32(hash32(i * golden + key word 0) ^ key word 1).

    Each `jax.random` call compiles its own Threefry hash, which under `vmap` is a large share of
    a generator's or a step's compile time; the key (itself Threefry output) carries the entropy
    and a few integer operations spread it over n counters. For draws inside environments
    (levels, obstacle moves), not for anything needing cryptographic quality."""
    words = key_words(key)
    i = jnp.arange(n, dtype=jnp.uint32) * jnp.uint32(0x9E3779B9)
    return hash32(hash32(i + words[0]) ^ words[1])


class Draws:
    """The random numbers of one level generator, drawn at once and handed out in order.

    Every separate `jax.random` call compiles its own Threefry kernel, and under `vmap` those
    kernels were most of a generator's compile time; drawing n numbers once and handing out
    consecutive slices gives the same kinds of draws for one kernel (`threefry`) or none
    (`hashed`, from `hash_bits`). n is the generator's static budget: taking more raises at trace
    time. Bounds of `randint` may be traced."""

    def __init__(self, u: jax.Array):
        self.u = u.reshape(-1)
        self.used = 0

    @classmethod
    def threefry(cls, key: jax.Array, n: int) -> "Draws":
        return cls(jax.random.uniform(key, (n,)))

    @classmethod
    def hashed(cls, key: jax.Array, n: int) -> "Draws":
        """Word i's top 24 bits scaled to [0, 1)."""
        return cls((hash_bits(key, n) >> 8).astype(jnp.float32) * jnp.float32(2.0 ** -24))

    def uniform(self, shape: tuple[int, ...] = ()) -> jax.Array:
        """float32 uniforms in [0, 1) of the given static shape (the next unused numbers)."""
        size = math.prod(shape)
        if self.used + size > self.u.shape[0]:
            raise RuntimeError(f"the generator takes more than its {self.u.shape[0]} random numbers")
        x = self.u[self.used:self.used + size].reshape(shape)
        self.used += size
        return x

    def randint(self, lo, hi, shape: tuple[int, ...] = ()) -> jax.Array:
        """int32 uniform in [lo, hi) (Farama's `_rand_int`); lo when hi <= lo."""
        lo, hi = jnp.asarray(lo, jnp.int32), jnp.asarray(hi, jnp.int32)
        v = lo + jnp.floor(self.uniform(shape) * (hi - lo)).astype(jnp.int32)
        return jnp.clip(v, lo, jnp.maximum(hi - 1, lo))

    def bernoulli(self, p: float = 0.5, shape: tuple[int, ...] = ()) -> jax.Array:
        """bool: True with probability p."""
        return self.uniform(shape) < p

    def cell(self, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
        """`random_cell` of a bool mask from the next number -> (flat index, found)."""
        return random_cell(self.uniform(), mask)

    def cells(self, mask: jax.Array, k: int) -> tuple[jax.Array, jax.Array]:
        """`random_cells` (k distinct) of a bool mask from the next `mask.size` numbers."""
        return random_cells(self.uniform((mask.size,)), mask, k)
