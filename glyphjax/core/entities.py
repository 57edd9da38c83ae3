"""Entity pools: the one implementation of moving things on a grid (enemies, shots, fish, cars).

A `Pool` holds a fixed number N of entities of one family as arrays: cell, velocity, kind, alive
flag and a free timer. Games spawn into free slots, advance every entity by its velocity with one
edge rule, test collisions (swept along the straight path of one step, so a fast shot cannot jump
over a target), and paint the pool into a code grid. Shapes are static (N is the pool's size);
every function is pure, jittable and vmappable.

Conventions (as core/grid.py): cells are (row, col), row growing downwards; velocities are
(d_row, d_col) cells per step; distances between entities are Chebyshev (king-move) steps.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

FAR = jnp.int32(2**30)  # the distance `nearest` reports when the pool is empty
EDGES = ("kill", "wrap", "clip", "bounce")


@struct.dataclass
class Pool:
    """N entities of one family: `pos`/`vel` int32[N, 2], `kind`/`timer` int32[N], `alive` bool[N].
    A dead slot's fields are meaningless and free for the next spawn."""

    pos: jax.Array
    vel: jax.Array
    kind: jax.Array
    alive: jax.Array
    timer: jax.Array

    @property
    def size(self) -> int:
        return self.alive.shape[-1]


def empty(n: int) -> Pool:
    """A pool of `n` dead slots."""
    zeros2 = jnp.zeros((n, 2), jnp.int32)
    zeros = jnp.zeros((n,), jnp.int32)
    return Pool(pos=zeros2, vel=zeros2, kind=zeros, alive=jnp.zeros((n,), bool), timer=zeros)


def count(pool: Pool) -> jax.Array:
    """int32: the number of alive entities."""
    return jnp.sum(pool.alive, dtype=jnp.int32)


def put(pool: Pool, slot_mask: jax.Array, pos, vel, kind, timer) -> Pool:
    """Make the slots of `slot_mask` (bool[N]) alive with these fields: one entity's (broadcast)
    or one per slot ([N, 2] / [N]); for games whose slots are fixed places (a lane per slot)."""
    m2 = slot_mask[:, None]
    return Pool(
        pos=jnp.where(m2, jnp.asarray(pos, jnp.int32), pool.pos),
        vel=jnp.where(m2, jnp.asarray(vel, jnp.int32), pool.vel),
        kind=jnp.where(slot_mask, jnp.asarray(kind, jnp.int32), pool.kind),
        alive=pool.alive | slot_mask,
        timer=jnp.where(slot_mask, jnp.asarray(timer, jnp.int32), pool.timer),
    )


def spawn(pool: Pool, pos, vel, kind, where=True, timer=0) -> Pool:
    """Put one entity into the first free slot; a no-op when `where` is False or the pool is full."""
    free = ~pool.alive
    first = jnp.argmax(free)
    slot = (jnp.arange(pool.size) == first) & free[first] & jnp.asarray(where, bool)
    return put(pool, slot, pos, vel, kind, timer)


def spawn_many(pool: Pool, pos: jax.Array, vel: jax.Array, kind: jax.Array, mask: jax.Array,
               timer: jax.Array | int = 0) -> Pool:
    """Spawn the masked requests of K at once: the i-th masked request goes into the i-th free
    slot (in slot order); requests beyond the free slots are dropped."""
    free = ~pool.alive
    free_rank = jnp.cumsum(free) - 1
    req_rank = jnp.cumsum(mask) - 1
    assign = free[:, None] & mask[None, :] & (free_rank[:, None] == req_rank[None, :])  # [N, K]
    taken = assign.any(axis=1)
    which = jnp.argmax(assign, axis=1)  # the request each slot takes (valid where `taken`)
    timer = jnp.broadcast_to(jnp.asarray(timer, jnp.int32), mask.shape)
    t2 = taken[:, None]
    return Pool(
        pos=jnp.where(t2, jnp.asarray(pos, jnp.int32)[which], pool.pos),
        vel=jnp.where(t2, jnp.asarray(vel, jnp.int32)[which], pool.vel),
        kind=jnp.where(taken, jnp.asarray(kind, jnp.int32)[which], pool.kind),
        alive=pool.alive | taken,
        timer=jnp.where(taken, timer[which], pool.timer),
    )


def kill(pool: Pool, mask: jax.Array) -> Pool:
    """Mark the entities of `mask` (bool[N]) dead."""
    return pool.replace(alive=pool.alive & ~mask)


def inside(pos: jax.Array, h: int, w: int) -> jax.Array:
    """bool[...]: cells (int32[..., 2]) that lie on an h x w field."""
    return (pos[..., 0] >= 0) & (pos[..., 0] < h) & (pos[..., 1] >= 0) & (pos[..., 1] < w)


def _bounce(x: jax.Array, v: jax.Array, size: int) -> tuple[jax.Array, jax.Array]:
    """Reflect coordinates that left [0, size) back inside, flipping their velocity component."""
    low, high = x < 0, x > size - 1
    x = jnp.where(low, -x, jnp.where(high, 2 * (size - 1) - x, x))
    return jnp.clip(x, 0, size - 1), jnp.where(low | high, -v, v)


def advance(pool: Pool, h: int, w: int, edge: str = "kill", moving: jax.Array | None = None) -> Pool:
    """Move every alive entity by its velocity on an h x w field. `edge` (static) says what the
    border does: "kill" (an entity that leaves the field dies), "wrap" (torus), "clip" (it stops
    at the border) or "bounce" (it is reflected and its velocity component flips). `moving`
    (bool[N]): only these entities move this step (slower ones wait); the others keep their
    velocity and are still subject to the edge rule where they stand."""
    if edge not in EDGES:
        raise ValueError(f"edge must be one of {EDGES}, got {edge!r}")
    if moving is not None:
        m2 = jnp.asarray(moving, bool)[:, None]
        moved = advance(pool.replace(vel=jnp.where(m2, pool.vel, 0)), h, w, edge)
        return moved.replace(vel=jnp.where(m2, moved.vel, pool.vel))
    moved = pool.pos + jnp.where(pool.alive[:, None], pool.vel, 0)
    vel, alive = pool.vel, pool.alive
    if edge == "kill":
        alive = alive & inside(moved, h, w)
    elif edge == "wrap":
        moved = moved % jnp.array([h, w], jnp.int32)
    elif edge == "clip":
        moved = jnp.clip(moved, 0, jnp.array([h - 1, w - 1], jnp.int32))
    else:
        r, vr = _bounce(moved[:, 0], vel[:, 0], h)
        c, vc = _bounce(moved[:, 1], vel[:, 1], w)
        moved, vel = jnp.stack([r, c], axis=1), jnp.stack([vr, vc], axis=1)
    return pool.replace(pos=moved, vel=vel, alive=alive)


def occupancy(pool: Pool, h: int, w: int, kinds: jax.Array | None = None) -> jax.Array:
    """int32[h, w]: alive entities per cell (only those whose kind is in `kinds`, when given);
    entities off the field are not counted."""
    keep = pool.alive & inside(pool.pos, h, w)
    if kinds is not None:
        keep = keep & jnp.isin(pool.kind, jnp.asarray(kinds, jnp.int32))
    flat = jnp.clip(pool.pos[:, 0], 0, h - 1) * w + jnp.clip(pool.pos[:, 1], 0, w - 1)
    return jnp.zeros((h * w,), jnp.int32).at[flat].add(keep.astype(jnp.int32)).reshape(h, w)


def on_cells(pool: Pool, mask: jax.Array) -> jax.Array:
    """bool[N]: alive entities standing on a True cell of `mask` (bool[h, w])."""
    h, w = mask.shape
    r = jnp.clip(pool.pos[:, 0], 0, h - 1)
    c = jnp.clip(pool.pos[:, 1], 0, w - 1)
    return pool.alive & inside(pool.pos, h, w) & mask[r, c]


def path(before: jax.Array, after: jax.Array, sweep: int) -> jax.Array:
    """int32[..., sweep + 1, 2]: cells along the straight move before -> after, both ends
    included (`sweep` static: the number of sub-steps; moves of up to `sweep` cells per axis are
    covered cell by cell)."""
    d = after - before
    k = jnp.arange(sweep + 1, dtype=jnp.int32)[:, None]
    part = jnp.sign(d)[..., None, :] * ((jnp.abs(d)[..., None, :] * k) // sweep)
    return before[..., None, :] + part


def hits(a_before: Pool, a_after: Pool, b_before: Pool, b_after: Pool, sweep: int = 2) -> jax.Array:
    """bool[Na, Nb]: pairs alive after the move that collide this step: they share a cell after
    the move, they swapped cells, or b's cell after the move lies on a's straight path (so a shot
    moving up to `sweep` cells per step cannot pass over its target)."""
    pa = path(a_before.pos, a_after.pos, sweep)  # [Na, S+1, 2]
    on_path = (pa[:, None, :, :] == b_after.pos[None, :, None, :]).all(-1).any(-1)  # [Na, Nb]
    swapped = ((a_after.pos[:, None] == b_before.pos[None]).all(-1)
               & (b_after.pos[None] == a_before.pos[:, None]).all(-1))
    both = a_after.alive[:, None] & b_after.alive[None, :]
    return both & (on_path | swapped)


def point_hits(pool_before: Pool, pool_after: Pool, cell_before: jax.Array, cell_after: jax.Array,
               sweep: int = 2) -> jax.Array:
    """bool[N]: entities colliding this step with one body that moved cell_before -> cell_after
    (int32[2]), by the rule of `hits` applied both ways (the body's path and each entity's)."""
    body_b = _single(cell_before)
    body_a = _single(cell_after)
    return (hits(pool_before, pool_after, body_b, body_a, sweep)[:, 0]
            | hits(body_b, body_a, pool_before, pool_after, sweep)[0])


def _single(cell: jax.Array) -> Pool:
    """A one-slot alive pool at `cell` (for `point_hits`)."""
    return empty(1).replace(pos=jnp.asarray(cell, jnp.int32).reshape(1, 2), alive=jnp.ones((1,), bool))


def nearest(pool: Pool, cell: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(index, Chebyshev distance) of the alive entity nearest to `cell`, lowest index on ties;
    (-1, FAR) when none is alive."""
    dist = jnp.abs(pool.pos - jnp.asarray(cell, jnp.int32)).max(axis=1)
    dist = jnp.where(pool.alive, dist, FAR)
    i = jnp.argmin(dist)
    return jnp.where(pool.alive.any(), i, -1).astype(jnp.int32), dist[i]


def paint(codes: jax.Array, pool: Pool, code_of_kind: jax.Array) -> jax.Array:
    """Draw the alive, on-field entities into `codes` (uint32/int32[h, w]) with the code of their
    kind; where several share a cell, the highest slot is drawn (deterministic)."""
    h, w = codes.shape
    keep = pool.alive & inside(pool.pos, h, w)
    flat = jnp.clip(pool.pos[:, 0], 0, h - 1) * w + jnp.clip(pool.pos[:, 1], 0, w - 1)
    slots = jnp.where(keep, jnp.arange(pool.size, dtype=jnp.int32), -1)
    top = jnp.full((h * w,), -1, jnp.int32).at[flat].max(slots).reshape(h, w)
    drawn = jnp.asarray(code_of_kind, codes.dtype)[pool.kind[jnp.clip(top, 0)]]
    return jnp.where(top >= 0, drawn, codes)
