"""WITNESS level data: sizes, symbol kinds, primitive bits, the host `Level` and its padded arrays.

A level is written as text (one string per board row) so the shipped bank reads like the board:
`.` empty, `#` wall, `S` start, `E` exit, `H` hexagon, `RGBY` coloured squares, `rgby` stars,
`123` triangles, `pqst` polyomino pieces, `%` eliminator. Hidden cells (hint mechanic), blocked
edges, the symmetry axis and the active primitive bits sit beside the rows. Every level of every
game is padded to `ROWS x COLS` and a game stacks `MAX_LEVELS` of them, so one compiled program
serves every game (moving to the next level is a gather).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from glyphjax.core.grid import DIR_OFFSETS

ROWS, COLS = 5, 5  # padded board of every level (static: fixes the compiled program)
CELLS = ROWS * COLS
MAX_LEVELS = 20
BUDGET = 300  # actions per level
MAX_SOLUTION = CELLS  # longest stored solution (moves, the confirm not included)

# symbol kinds (LevelArrays.kind)
NONE, HEXAGON, SQUARE, STAR, TRIANGLE, PIECE, ELIMINATOR = range(7)
COLOURS = "RGBY"  # square letters; stars are the same letters in lower case
PIECES = "pqst"
# polyomino shapes as (row, col) cells; rotations are allowed (ours)
PIECE_CELLS = (((0, 0), (0, 1)),  # p: domino
               ((0, 0), (1, 0), (1, 1)),  # q: L-tromino
               ((0, 0), (0, 1), (1, 0), (1, 1)),  # s: 2x2 square
               ((0, 0), (0, 1), (0, 2)))  # t: I-tromino
PIECE_NAMES = ("domino", "L-tromino", "2x2 square", "I-tromino")

# primitive bits (LevelArrays.rules); the hidden mapping is always active
HEX_BIT, SQUARE_BIT, STAR_BIT, TRIANGLE_BIT, PIECE_BIT, SYMMETRY_BIT, ELIMINATOR_BIT, WALLS_BIT, \
    HINT_BIT, MAPPING_BIT = (1 << i for i in range(10))
PRIMITIVE_BITS = {"hexagon": HEX_BIT, "squares": SQUARE_BIT, "stars": STAR_BIT,
                  "triangles": TRIANGLE_BIT, "polyomino": PIECE_BIT, "symmetry": SYMMETRY_BIT,
                  "eliminator": ELIMINATOR_BIT, "walls": WALLS_BIT, "hints": HINT_BIT,
                  "mapping": MAPPING_BIT}
CHECK_PRIMITIVES = ("hexagon", "squares", "stars", "triangles", "polyomino", "symmetry", "eliminator")

# symmetry axes: the shadow of (r, c) on a rows x cols board
VERTICAL, HORIZONTAL, POINT = 0, 1, 2


def symbol_of(ch: str) -> tuple[int, int, int]:
    """(kind, colour, param) of a board character that carries a symbol (else NONE)."""
    if ch == "H":
        return HEXAGON, 0, 0
    if ch in COLOURS:
        return SQUARE, COLOURS.index(ch), 0
    if ch in COLOURS.lower():
        return STAR, COLOURS.lower().index(ch), 0
    if ch in "123":
        return TRIANGLE, 0, int(ch)
    if ch in PIECES:
        return PIECE, 0, PIECES.index(ch)
    if ch == "%":
        return ELIMINATOR, 0, 0
    return NONE, 0, 0


BOARD_CHARS = set(".#SE%H123" + COLOURS + COLOURS.lower() + PIECES)


@dataclasses.dataclass(frozen=True)
class Level:
    """One level on the host: board rows, hidden cells, blocked edges (cell, direction; stored
    both ways), active primitive names, symmetry axis, and the stored optimal solution as
    direction indices (UP, DOWN, LEFT, RIGHT) before the game's action mapping."""

    board: tuple[str, ...]
    rules: tuple[str, ...]
    hidden: tuple[tuple[int, int], ...] = ()
    edges: tuple[tuple[int, int, int], ...] = ()
    axis: int = VERTICAL
    solution: tuple[int, ...] = ()

    def __post_init__(self):
        rows, cols = self.rows, self.cols
        if not (2 <= rows <= ROWS and 2 <= cols <= COLS) or any(len(r) != cols for r in self.board):
            raise ValueError(f"level board must be rectangular, at most {ROWS}x{COLS}: {self.board}")
        bad = {ch for row in self.board for ch in row} - BOARD_CHARS
        if bad:
            raise ValueError(f"level board has unknown characters {sorted(bad)}; use {''.join(sorted(BOARD_CHARS))}")
        if sum(row.count("S") for row in self.board) != 1:
            raise ValueError(f"level board needs exactly one S: {self.board}")
        unknown = set(self.rules) - set(PRIMITIVE_BITS)
        if unknown:
            raise ValueError(f"unknown primitives {sorted(unknown)}; known: {', '.join(PRIMITIVE_BITS)}")

    @property
    def rows(self) -> int:
        return len(self.board)

    @property
    def cols(self) -> int:
        return len(self.board[0])

    @property
    def start(self) -> tuple[int, int]:
        return next((r, row.index("S")) for r, row in enumerate(self.board) if "S" in row)

    def at(self, r: int, c: int) -> str:
        return self.board[r][c]

    @property
    def rule_bits(self) -> int:
        return sum(PRIMITIVE_BITS[n] for n in set(self.rules)) | MAPPING_BIT

    def has(self, rule: str) -> bool:
        return rule in self.rules

    def to_json(self) -> dict:
        return {"board": list(self.board), "rules": sorted(self.rules), "hidden": [list(h) for h in self.hidden],
                "edges": [list(e) for e in self.edges], "axis": self.axis, "solution": list(self.solution)}

    @classmethod
    def from_json(cls, d: dict) -> "Level":
        return cls(board=tuple(d["board"]), rules=tuple(d["rules"]),
                   hidden=tuple(tuple(h) for h in d.get("hidden", ())),
                   edges=tuple(tuple(e) for e in d.get("edges", ())), axis=int(d.get("axis", 0)),
                   solution=tuple(d.get("solution", ())))

    def canonical_hash(self) -> str:
        """SHA-256 of the canonical JSON of what defines play (the stored solution excluded)."""
        d = self.to_json()
        d.pop("solution")
        d["hidden"] = sorted(d["hidden"])
        d["edges"] = sorted(d["edges"])
        if "symmetry" not in self.rules:
            d["axis"] = 0
        return hashlib.sha256(json.dumps(d, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def with_edges_both_ways(edges: Sequence[tuple[int, int, int]]) -> tuple[tuple[int, int, int], ...]:
    """Blocked edges closed from both sides: (r, c, d) also blocks the neighbour's way back."""
    back = (1, 0, 3, 2)
    out = set()
    for r, c, d in edges:
        dr, dc = DIR_OFFSETS[d]
        out |= {(r, c, d), (r + dr, c + dc, back[d])}
    return tuple(sorted(out))


@struct.dataclass
class LevelArrays:
    """One level padded to ROWS x COLS (stacked with a leading level axis inside GameParams)."""

    valid: jax.Array  # bool[R, C]: inside the level's board
    wall: jax.Array  # bool[R, C]
    goal: jax.Array  # bool[R, C]: exit cells
    kind: jax.Array  # int8[R, C]: symbol kind (NONE, HEXAGON, ...)
    colour: jax.Array  # int8[R, C]: colour of squares and stars
    param: jax.Array  # int8[R, C]: triangle count, polyomino piece index
    hidden: jax.Array  # bool[R, C]: symbol shown as `?` until the head visits the cell
    edge: jax.Array  # bool[R, C, 4]: move from the cell in a direction refused
    start: jax.Array  # int32[2]
    dims: jax.Array  # int32[2]: rows, cols of the level
    rules: jax.Array  # int32: active primitive bits
    axis: jax.Array  # int32: symmetry axis
    ref: jax.Array  # int32: reference action count h_k (solver optimum, confirm included)
    solution: jax.Array  # int8[MAX_SOLUTION]: optimal moves as directions, -1 after the end


@struct.dataclass
class GameParams:
    """Traced params of a WITNESS game: its levels, action mapping and level count."""

    levels: LevelArrays  # every field with a leading MAX_LEVELS axis
    sigma: jax.Array  # int32[4]: action a moves in direction sigma[a]
    n_levels: jax.Array  # int32


def level_arrays(level: Level, ref: int | None = None) -> dict[str, np.ndarray]:
    """Numpy fields of `LevelArrays` for one level (ref defaults to the solution length + 1)."""
    valid = np.zeros((ROWS, COLS), bool)
    valid[:level.rows, :level.cols] = True
    wall, goal, hidden = (np.zeros((ROWS, COLS), bool) for _ in range(3))
    kind, colour, param = (np.zeros((ROWS, COLS), np.int8) for _ in range(3))
    for r, row in enumerate(level.board):
        for c, ch in enumerate(row):
            wall[r, c], goal[r, c] = ch == "#", ch == "E"
            kind[r, c], colour[r, c], param[r, c] = symbol_of(ch)
    for r, c in level.hidden:
        hidden[r, c] = True
    edge = np.zeros((ROWS, COLS, 4), bool)
    for r, c, d in level.edges:
        edge[r, c, d] = True
    sol = np.full((MAX_SOLUTION,), -1, np.int8)
    sol[:len(level.solution)] = level.solution
    ref = len(level.solution) + 1 if ref is None else ref
    return dict(valid=valid, wall=wall, goal=goal, kind=kind, colour=colour, param=param, hidden=hidden,
                edge=edge, start=np.array(level.start, np.int32), dims=np.array([level.rows, level.cols], np.int32),
                rules=np.int32(level.rule_bits), axis=np.int32(level.axis), ref=np.int32(ref), solution=sol)


def game_params(levels: Sequence[Level], sigma: Sequence[int]) -> GameParams:
    """Params of a game: its levels padded to MAX_LEVELS (copies of the last level; never reached)."""
    if not 1 <= len(levels) <= MAX_LEVELS:
        raise ValueError(f"a game has 1..{MAX_LEVELS} levels, got {len(levels)}")
    if sorted(sigma) != [0, 1, 2, 3]:
        raise ValueError(f"sigma must be a permutation of 0..3, got {list(sigma)}")
    rows = [level_arrays(lv) for lv in levels]
    rows += [rows[-1]] * (MAX_LEVELS - len(rows))
    stacked = {k: jnp.asarray(np.stack([r[k] for r in rows])) for k in rows[0]}
    return GameParams(levels=LevelArrays(**stacked), sigma=jnp.asarray(sigma, jnp.int32),
                      n_levels=jnp.int32(len(levels)))


def level_at(levels: LevelArrays, k: jax.Array) -> LevelArrays:
    """Level k of a stacked game (a gather on the leading axis)."""
    return jax.tree.map(lambda x: x[k], levels)
