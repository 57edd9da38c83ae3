"""Random draws inside environments: random True cells of a mask (`random_cell`, `random_cells`,
the one implementation every suite uses), integer hashes, and `Draws`, a generator's stream of
uniforms."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np


TINY_MASK = 16  # up to this many cells, kth_true is one unrolled running count (see below)
SMALL_MASK = 128  # up to this many cells, kth_true takes the shorter graph (see below)
WORD_MASK = 1024  # up to this many cells (32 words), kth_true searches bit words


def kth_true(flat: jax.Array, k: jax.Array, small_graph: bool | None = None) -> jax.Array:
    """Index of the (k+1)-th True of a 1-D bool mask: `argmax(cumsum(flat) > k)` (0 when the mask
    is empty or k >= its count), computed in blocks.

    XLA on CPU lowers a cumsum to a log-depth scan of slices and concatenations, which made this
    draw ~70% of a vmapped MiniGrid DoorKey reset. Every path below gives the same index bit for
    bit; they differ in graph size and run time.
    - tiny masks (n <= TINY_MASK, unless `small_graph=False`): the running count cell by cell,
      unrolled: one small loop fusion, for the per-step draws of action masks (a few actions).
    - small graph (default for n <= SMALL_MASK): the running count of every cell (Trues in earlier
      blocks + in-block prefix, an [nb, b, b] masked sum) in one go: four reductions, the cheapest
      to compile, for draws made once per episode (level generators).
    - bit words (n <= WORD_MASK, or `small_graph=False`): the mask as 32-bit words, the word
      holding the (k+1)-th True from popcounts, the bit inside it by a 5-step binary search: one
      pass over the cells, the fastest to run (for draws made every step).
    - larger masks: the same search over ~sqrt(n) blocks of ~sqrt(n) cells (seven reductions)."""
    n = flat.shape[0]
    if n <= TINY_MASK and small_graph is not False:
        return _kth_true_tiny(flat, k)
    if (n <= SMALL_MASK) if small_graph is None else small_graph:
        return _kth_true_small(flat, k)
    if n <= WORD_MASK:
        return _kth_true_words(flat, k)
    b = max(1, math.isqrt(max(n - 1, 0)) + 1)
    nb = -(-n // b)
    m = jnp.pad(flat.astype(jnp.int32), (0, nb * b - n)).reshape(nb, b)
    block_cnt = m.sum(axis=1)
    row, k_in = _block_of_kth(block_cnt, k)
    cells = jnp.sum(jnp.where(np.arange(nb)[:, None] == row, m, 0), axis=0)
    tri = np.arange(b)[:, None] >= np.arange(b)[None, :]
    col = jnp.sum(jnp.sum(jnp.where(tri, cells[None, :], 0), axis=1) <= k_in, dtype=jnp.int32)
    return jnp.where(row >= nb, 0, row * b + col).astype(jnp.int32)


def _block_of_kth(block_cnt: jax.Array, k: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(block holding the (k+1)-th True, k among that block's Trues) from int32 block counts;
    the block index equals the number of blocks when k >= the total count."""
    nb = block_cnt.shape[0]
    tri_b = np.arange(nb)[:, None] >= np.arange(nb)[None, :]
    block_cum = jnp.sum(jnp.where(tri_b, block_cnt[None, :], 0), axis=1)
    passed = block_cum <= k  # blocks holding fewer than k+1 Trues in total
    return jnp.sum(passed, dtype=jnp.int32), k - jnp.sum(jnp.where(passed, block_cnt, 0))


def _kth_true_tiny(flat: jax.Array, k: jax.Array) -> jax.Array:
    n = flat.shape[0]
    count, idx = jnp.int32(0), jnp.int32(0)
    for i in range(n):  # idx = how many cells have at most k Trues up to and including them
        count = count + flat[i].astype(jnp.int32)
        idx = idx + (count <= k).astype(jnp.int32)
    return jnp.where(idx >= n, 0, idx).astype(jnp.int32)


def _kth_true_small(flat: jax.Array, k: jax.Array) -> jax.Array:
    n = flat.shape[0]
    b = max(1, math.isqrt(max(n - 1, 0)) + 1)
    nb = -(-n // b)
    m = jnp.pad(flat.astype(jnp.int32), (0, nb * b - n)).reshape(nb, b)
    block_cnt = m.sum(axis=1)
    tri = np.arange(b)[:, None] >= np.arange(b)[None, :]
    earlier = np.arange(nb)[:, None] > np.arange(nb)[None, :]
    before = jnp.sum(jnp.where(earlier, block_cnt[None, :], 0), axis=1)  # [nb]
    running = before[:, None] + jnp.sum(jnp.where(tri[None], m[:, None, :], 0), axis=2)
    idx = jnp.sum(running <= k, dtype=jnp.int32)
    return jnp.where(idx >= n, 0, idx).astype(jnp.int32)


def _kth_true_words(flat: jax.Array, k: jax.Array) -> jax.Array:
    n = flat.shape[0]
    nw = -(-n // 32)
    bits = jnp.uint32(1) << jnp.arange(32, dtype=jnp.uint32)
    m = jnp.pad(flat, (0, nw * 32 - n)).reshape(nw, 32)
    words = jnp.sum(jnp.where(m, bits, jnp.uint32(0)), axis=1, dtype=jnp.uint32)  # distinct bits: sum = or
    row, k_in = _block_of_kth(jax.lax.population_count(words).astype(jnp.int32), k)
    w = jnp.sum(jnp.where(np.arange(nw) == row, words, jnp.uint32(0)), dtype=jnp.uint32)
    pos = jnp.int32(0)
    for width in (16, 8, 4, 2, 1):  # the (k_in+1)-th set bit of w: skip the low half when it has <= k_in
        low = jax.lax.population_count(w & jnp.uint32((1 << width) - 1)).astype(jnp.int32)
        skip = low <= k_in
        k_in = jnp.where(skip, k_in - low, k_in)
        w = jnp.where(skip, w >> width, w)
        pos = pos + jnp.where(skip, width, 0)
    return jnp.where(row >= nw, 0, row * 32 + pos).astype(jnp.int32)


CHAIN_MASK = 8  # up to this many entries, mask_at is a chain of selects (see below)


def mask_at(mask: jax.Array, i: jax.Array) -> jax.Array:
    """mask[i] of a 1-D bool mask at a traced int index; False when i is outside 0..n-1.

    Up to CHAIN_MASK entries a chain of selects, which XLA fuses into its users; above, the
    reduction `any(mask & (arange == i))`, which XLA's CPU backend runs as a loop of its own and
    whose result the users share. For the legality of the chosen action in a vmapped step
    (B = 4096, 2026-12-06, same-process CPU medians): the chain is ~8% faster for Kuhn Poker (5
    actions) and ~18% for Simple Negotiation (8), the reduction ~14% faster for Tic-Tac-Toe (9
    actions, whose many state arrays would each repeat the chain)."""
    n = mask.shape[0]
    if n > CHAIN_MASK:
        return jnp.any(mask & (jnp.arange(n) == i))
    out = jnp.bool_(False)
    for j in range(n):
        out = jnp.where(i == j, mask[j], out)
    return out


def uniform_true(flat: jax.Array, u: jax.Array, small_graph: bool | None = None) -> jax.Array:
    """A uniformly random True index of a 1-D bool mask from one uniform u in [0, 1): the
    floor(u * count)-th True (0 when the mask is empty). `small_graph`: see `kth_true`."""
    count = jnp.sum(flat, dtype=jnp.int32)
    return kth_true(flat, jnp.floor(u * count).astype(jnp.int32), small_graph)


def random_cell(u: jax.Array, mask: jax.Array, small_graph: bool | None = None) -> tuple[jax.Array, jax.Array]:
    """One uniformly random True cell of a bool mask (any shape) from one uniform u in [0, 1):
    -> (flat index int32, found bool). One random number, whatever the mask size; with no True
    cell the index is 0 and `found` False. `small_graph`: see `kth_true`."""
    flat = mask.reshape(-1)
    return uniform_true(flat, u, small_graph), jnp.any(flat)


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
