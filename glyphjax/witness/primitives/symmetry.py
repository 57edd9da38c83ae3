"""Symmetry (movement + goal): a shadow path mirrors the path across the level's axis (vertical,
horizontal or point). A move is refused when the shadow's move would be (outside, wall, blocked
edge, onto either path) or when the cell is its own mirror; at CONFIRM the shadow's head must also
be on an exit. Shadow cells count as covered for every other rule."""

import jax
import jax.numpy as jnp

from glyphjax.witness.layout import COLS, ROWS, SYMMETRY_BIT, LevelArrays
from glyphjax.witness.reference import PathView, mirror
from glyphjax.witness.regions import Cover

NAME, BIT = "symmetry", SYMMETRY_BIT
GLYPHS = {"+": "shadow path (mirror image of your path)"}

MIRROR_DIR = jnp.array([[0, 1, 3, 2], [1, 0, 2, 3], [1, 0, 3, 2]], jnp.int32)  # [axis, direction]


def active(lv: LevelArrays) -> jax.Array:
    return (lv.rules & BIT) != 0


def mirror_cell(lv: LevelArrays, rc: jax.Array) -> jax.Array:
    """int32[2]: the shadow of a cell."""
    flip_c = (lv.axis == 0) | (lv.axis == 2)
    flip_r = (lv.axis == 1) | (lv.axis == 2)
    r = jnp.where(flip_r, lv.dims[0] - 1 - rc[0], rc[0])
    c = jnp.where(flip_c, lv.dims[1] - 1 - rc[1], rc[1])
    return jnp.stack([r, c]).astype(jnp.int32)


def mirror_grid(lv: LevelArrays, grid: jax.Array) -> jax.Array:
    """bool[R, C]: out[x] = grid[mirror(x)] inside the level, False outside."""
    rr, cc = jnp.meshgrid(jnp.arange(ROWS), jnp.arange(COLS), indexing="ij")
    m = jax.vmap(jax.vmap(lambda r, c: mirror_cell(lv, jnp.stack([r, c]))))(rr, cc)
    src = grid[jnp.clip(m[..., 0], 0, ROWS - 1), jnp.clip(m[..., 1], 0, COLS - 1)]
    return src & lv.valid


def shadow(lv: LevelArrays, on_path: jax.Array) -> jax.Array:
    """bool[R, C]: the shadow path's cells (all False when symmetry is off)."""
    return active(lv) & mirror_grid(lv, on_path)


def refuse(lv: LevelArrays, on_path: jax.Array, head: jax.Array, d: jax.Array, target: jax.Array) -> jax.Array:
    """Whether the shadow forbids moving the head from `head` to `target` (direction d)."""
    s = mirror_cell(lv, target)
    sh = mirror_cell(lv, head)
    inside = (s[0] >= 0) & (s[0] < lv.dims[0]) & (s[1] >= 0) & (s[1] < lv.dims[1])
    sr, sc = jnp.clip(s[0], 0, ROWS - 1), jnp.clip(s[1], 0, COLS - 1)
    bad = ~inside | lv.wall[sr, sc] | on_path[sr, sc] | jnp.all(s == target)
    bad = bad | lv.edge[sh[0], sh[1], MIRROR_DIR[jnp.clip(lv.axis, 0, 2), d]]
    return active(lv) & bad


def check(b: Cover, head: jax.Array) -> jax.Array:
    """The shadow head is marked when it is not on an exit."""
    s = mirror_cell(b.lv, head)
    mark = (jnp.arange(ROWS)[:, None] == s[0]) & (jnp.arange(COLS)[None, :] == s[1])
    return b.active(BIT) & mark & ~b.lv.goal


def check_reference(pv: PathView) -> set:
    s = mirror(pv.level, pv.path[-1])
    return set() if pv.level.at(*s) == "E" else {s}
