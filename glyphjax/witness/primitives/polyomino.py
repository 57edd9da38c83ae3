"""Polyomino pieces `p q s t` (region): the region holding a piece must be exactly that piece's
shape (any of its 4 rotations, translated). Ours: one piece per region (a region with two pieces
fails them all), and a piece under the path is a violation."""

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.witness.layout import CELLS, COLS, PIECE, PIECE_BIT, PIECE_CELLS, PIECE_NAMES, PIECES, ROWS
from glyphjax.witness.reference import PathView
from glyphjax.witness.regions import Cover

NAME, BIT = "polyomino", PIECE_BIT
GLYPHS = {ch: f"polyomino piece ({name})" for ch, name in zip(PIECES, PIECE_NAMES)}


def rotations(cells) -> list[frozenset]:
    """The distinct rotations of a shape, each translated to touch row 0 and column 0."""
    out, cur = [], list(cells)
    for _ in range(4):
        r0, c0 = min(r for r, _ in cur), min(c for _, c in cur)
        norm = frozenset((r - r0, c - c0) for r, c in cur)
        if norm not in out:
            out.append(norm)
        cur = [(c, -r) for r, c in cur]
    return out


def _shape_masks() -> np.ndarray:
    """bool[pieces, 4, R, C]: each rotation as a top-left-anchored mask (repeats pad to 4)."""
    masks = np.zeros((len(PIECE_CELLS), 4, ROWS, COLS), bool)
    for p, cells in enumerate(PIECE_CELLS):
        rots = rotations(cells)
        for k in range(4):
            for r, c in rots[k % len(rots)]:
                masks[p, k, r, c] = True
    return masks


SHAPES = _shape_masks()


def _region_matches(region: jax.Array, piece: jax.Array) -> jax.Array:
    """Whether a region mask (bool[R, C]) is a translate of a rotation of the piece."""
    rows, cols = jnp.any(region, axis=1), jnp.any(region, axis=0)
    r0, c0 = jnp.argmax(rows), jnp.argmax(cols)
    ri = jnp.arange(ROWS)[:, None] + r0
    ci = jnp.arange(COLS)[None, :] + c0
    moved = region[jnp.clip(ri, 0, ROWS - 1), jnp.clip(ci, 0, COLS - 1)] & (ri < ROWS) & (ci < COLS)
    shapes = jnp.asarray(SHAPES)[jnp.clip(piece, 0, len(PIECE_CELLS) - 1)]
    return jnp.any(jnp.all(moved[None] == shapes, axis=(1, 2)))


def check(b: Cover) -> jax.Array:
    piece = b.symbols(PIECE)
    pieces_in_region = b.per_region(piece)
    regions = b.same.reshape(CELLS, ROWS, COLS)
    fits = jax.vmap(_region_matches)(regions, b.lv.param.reshape(-1).astype(jnp.int32)).reshape(ROWS, COLS)
    return b.active(BIT) & piece & (b.covered | (pieces_in_region != 1) | ~fits)


def check_reference(pv: PathView) -> set:
    lv = pv.level
    bad = set()
    for r in range(lv.rows):
        for c in range(lv.cols):
            ch = lv.at(r, c)
            if ch not in PIECES:
                continue
            region = pv.region((r, c))
            if region is None or sum(lv.at(*x) in PIECES for x in region) != 1:
                bad.add((r, c))
                continue
            r0, c0 = min(x for x, _ in region), min(y for _, y in region)
            shape = frozenset((x - r0, y - c0) for x, y in region)
            if shape not in rotations(PIECE_CELLS[PIECES.index(ch)]):
                bad.add((r, c))
    return bad
