"""Chasers in a maze: the one grid mechanic for enemies that hunt (or flee) a target cell along
corridors (Procgen's chaser, arcade maze games).

The rule is Pac-Man's: an entity of a `core.entities.Pool` moves one cell a step along its
heading (`Pool.vel`, a unit (d_row, d_col)); at each step it picks, among the open neighbour
cells other than the one it came from (turning back only in a dead end), the one with the
smallest distance to the target (the largest when fleeing), ties in the direction order of
`core.grid` (UP, DOWN, LEFT, RIGHT). The distance is a field the caller passes: the squared
straight-line distance (`line_field`, Pac-Man's and the cheap default) or maze distance
(`core.grid.bfs_distances`). With a uniform below `wander` an entity takes a random allowed
direction instead, so its moves can depend on the episode's key.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core.entities import Pool
from glyphjax.core.grid import DIR_DELTAS

_BIG = jnp.int32(2**30)


def line_field(target: jax.Array, h: int, w: int) -> jax.Array:
    """int32[h, w]: squared straight-line distance of every cell to `target` (int32[2])."""
    rr, cc = jnp.meshgrid(jnp.arange(h), jnp.arange(w), indexing="ij")
    return ((rr - target[0]) ** 2 + (cc - target[1]) ** 2).astype(jnp.int32)


def chase_step(pool: Pool, passable: jax.Array, dist: jax.Array, flee: jax.Array | bool = False,
               u: jax.Array | None = None, wander: jax.Array | float = 0.0, moves: jax.Array | bool = True,
               wrap: bool = False) -> Pool:
    """One step of every alive entity of `pool` under the rule above -> the pool with new pos and
    vel (heading). `passable` bool[h, w] (off the field is closed, unless `wrap`: static, the
    field is a torus, as through a maze's tunnels); `dist` int32[h, w] distances to the target, or
    int32[N, h, w] one field per entity (each its own target); `flee` (bool or bool[N]) flips the
    preference; `u` float32[N, 2] uniforms (column 0 decides a wander, with probability `wander`,
    a float or traced array, scalar or [N]; column 1 picks its direction); `moves` (bool or
    bool[N]) False holds an entity in place this step."""
    h, w = passable.shape
    n = pool.size
    nxt = pool.pos[:, None, :] + DIR_DELTAS[None, :, :]  # [N, 4, 2]
    if wrap:
        nxt = nxt % jnp.array([h, w], jnp.int32)
    inside = (nxt[..., 0] >= 0) & (nxt[..., 0] < h) & (nxt[..., 1] >= 0) & (nxt[..., 1] < w)
    r, c = jnp.clip(nxt[..., 0], 0, h - 1), jnp.clip(nxt[..., 1], 0, w - 1)
    open_ = inside & passable[r, c]
    back = (DIR_DELTAS[None, :, :] == -pool.vel[:, None, :]).all(-1) & (pool.vel != 0).any(-1)[:, None]
    allowed = open_ & ~back
    allowed = jnp.where(allowed.any(-1, keepdims=True), allowed, open_)  # dead end: turn back
    d = dist[r, c] if dist.ndim == 2 else dist[jnp.arange(n)[:, None], r, c]
    flee = jnp.broadcast_to(jnp.asarray(flee, bool), (n,))
    score = jnp.where(flee[:, None], -d, d)
    best = jnp.argmin(jnp.where(allowed, score, _BIG), axis=-1)  # first of equals: grid order
    if u is not None and not (isinstance(wander, (int, float)) and wander <= 0):
        rank = jnp.cumsum(allowed, axis=-1) - 1
        k = jnp.floor(u[:, 1] * allowed.sum(-1)).astype(jnp.int32)
        pick = jnp.argmax(allowed & (rank == k[:, None]), axis=-1)
        best = jnp.where(u[:, 0] < wander, pick, best)
    go = pool.alive & allowed.any(-1) & jnp.broadcast_to(jnp.asarray(moves, bool), (n,))
    step = DIR_DELTAS[best]
    moved = pool.pos + step
    moved = moved % jnp.array([h, w], jnp.int32) if wrap else moved
    return pool.replace(pos=jnp.where(go[:, None], moved, pool.pos),
                        vel=jnp.where(go[:, None], step, pool.vel))
