"""Polyomino pieces `p q s t` (region): the region holding a piece must be exactly that piece's
shape (any of its 4 rotations, translated). Ours: one piece per region (a region with two pieces
fails them all), and a piece under the path is a violation."""

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.witness.layout import COLS, PIECE, PIECE_BIT, PIECE_CELLS, PIECE_NAMES, PIECES, ROWS
from glyphjax.witness.reference import PathView, symbol_cells
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


def _placements() -> np.ndarray:
    """uint32[pieces, K]: every translate of every rotation of each piece inside the padded
    board, as a cell bit set (rows padded with 0, which no region equals)."""
    table = []
    for cells in PIECE_CELLS:
        sets = set()
        for rot in rotations(cells):
            h, w = 1 + max(r for r, _ in rot), 1 + max(c for _, c in rot)
            for r0 in range(ROWS - h + 1):
                for c0 in range(COLS - w + 1):
                    sets.add(sum(1 << ((r0 + r) * COLS + c0 + c) for r, c in rot))
        table.append(sorted(sets))
    width = max(len(t) for t in table)
    return np.array([t + [0] * (width - len(t)) for t in table], np.uint32)


PLACEMENTS = _placements()


def check(b: Cover) -> jax.Array:
    piece = b.symbols(PIECE)
    shapes = jnp.asarray(PLACEMENTS)[jnp.clip(b.lv.param.astype(jnp.int32), 0, len(PIECE_CELLS) - 1)]
    fits = jnp.any(b.region[..., None] == shapes, axis=-1)
    return b.active(BIT) & piece & (b.covered | (b.per_region(piece) != 1) | ~fits)


def check_reference(pv: PathView) -> set:
    lv = pv.level
    bad = set()
    for x, ch in symbol_cells(lv, PIECES):
        region = pv.region(x)
        if region is None or sum(lv.at(*y) in PIECES for y in region) != 1:
            bad.add(x)
            continue
        r0, c0 = min(a for a, _ in region), min(b for _, b in region)
        if frozenset((a - r0, b - c0) for a, b in region) not in rotations(PIECE_CELLS[PIECES.index(ch)]):
            bad.add(x)
    return bad
