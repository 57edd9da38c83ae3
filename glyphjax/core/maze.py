"""Perfect mazes: a randomized depth-first spanning tree of a cell lattice and its wall/open mask.

Pure JAX with static shapes and bounded loops, so it runs inside `reset`/`step` under `jit` and
`vmap`. Classics (maze, pipe connect) and Procgen (maze, heist) build their levels on it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core.grid import DIR_DELTAS, border_mask


def dfs_spanning_tree(key: jax.Array | None, h: int, w: int, u: jax.Array | None = None,
                      active: jax.Array | None = None) -> tuple[jax.Array, jax.Array]:
    """A uniformly-seeded randomized depth-first ("recursive backtracker") spanning tree of the
    h x w cell lattice, started at cell 0. Exactly 2*h*w - 1 loop iterations (each cell is pushed
    and popped once). Iteration i ranks the 4 directions by uniforms drawn from fold_in(key, i), or
    by u[i] when the uniforms u float32[2*h*w - 1, 4] are given (e.g. from `core.sampling.Draws`: no
    random call in the loop). `active` (bool[h, w], cell 0 included) restricts the tree to those
    cells (a smaller maze inside a static lattice; the others are never entered). Returns (right
    bool[h, w]: edge to the right neighbour is open, down bool[h, w]: edge to the cell below is open)."""
    n = h * w

    def body(i, carry):
        visited, stack, sp, right, down = carry
        cur = stack[jnp.maximum(sp - 1, 0)]
        r, c = cur // w, cur % w
        nr, nc = r + DIR_DELTAS[:, 0], c + DIR_DELTAS[:, 1]
        inside = (nr >= 0) & (nr < h) & (nc >= 0) & (nc < w)
        nidx = jnp.clip(nr, 0, h - 1) * w + jnp.clip(nc, 0, w - 1)
        cand = inside & ~visited[nidx] & (sp > 0)
        ui = jax.random.uniform(jax.random.fold_in(key, i), (4,)) if u is None else u[i]
        score = jnp.where(cand, ui, -1.0)
        d = jnp.argmax(score)
        go = cand.any()
        nxt = nidx[d]
        visited = visited.at[nxt].set(visited[nxt] | go)
        stack = stack.at[jnp.where(go, sp, n)].set(nxt, mode="drop")
        # carve the edge between cur and nxt
        er = jnp.where(d == 0, r - 1, r)  # for UP the edge is "down" of the cell above
        ec = jnp.where(d == 2, c - 1, c)  # for LEFT the edge is "right" of the cell to the left
        is_vertical = d <= 1
        down = down.at[er, ec].set(down[er, ec] | (go & is_vertical))
        right = right.at[er, ec].set(right[er, ec] | (go & ~is_vertical))
        sp = jnp.where(go, sp + 1, jnp.maximum(sp - 1, 0))
        return visited, stack, sp, right, down

    visited = jnp.zeros((n,), jnp.bool_) if active is None else ~active.reshape(-1)
    visited = visited.at[0].set(True)
    stack = jnp.zeros((n,), jnp.int32)
    carry = (visited, stack, jnp.int32(1), jnp.zeros((h, w), jnp.bool_), jnp.zeros((h, w), jnp.bool_))
    _, _, _, right, down = jax.lax.fori_loop(0, 2 * n - 1, body, carry)
    return right, down


def tree_to_maze(right: jax.Array, down: jax.Array) -> jax.Array:
    """Open-cell mask bool[2h+1, 2w+1] of the maze whose cells sit at odd coordinates and whose
    passages are the tree edges (outer ring and unused edges are wall)."""
    h, w = right.shape
    open_ = jnp.zeros((2 * h + 1, 2 * w + 1), jnp.bool_)
    open_ = open_.at[1::2, 1::2].set(True)
    open_ = open_.at[1::2, 2::2].set(right)
    open_ = open_.at[2::2, 1::2].set(down)
    # the slice assignments above may have opened the outer ring: close it
    return open_ & ~border_mask(2 * h + 1, 2 * w + 1)
