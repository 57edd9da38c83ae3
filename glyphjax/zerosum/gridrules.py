"""Declarations of grid-placement variants: rule clauses -> traced `GridParams` and rules text.

A variant is `GridRules` (the rule clauses, gamesmith.md's φ_rule) on an n x n board (φ_size)
under an `Encoding` (φ_enc). `grid_params` turns it into the traced params of the template's
program; `rules_text` writes the player-facing rules through the encoding's label dictionary, so
re-encoding changes text and action names together.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from glyphjax.zerosum.encoding import Encoding
from glyphjax.zerosum.gridgame import GridParams, glyph_table

DIRECTION_WORDS = ("a row", "a column", "a diagonal", "an anti-diagonal")


@dataclasses.dataclass(frozen=True)
class GridRules:
    """Rule clauses of a grid-placement game (canonical cells are `r * n + c`, row 0 at the top)."""

    k: int = 3
    dirs: tuple[bool, bool, bool, bool] = (True, True, True, True)
    torus: bool = False
    gravity: bool = False
    misere: bool = False
    shared: bool = False
    square: int = 0
    blocked: tuple[int, ...] = ()
    first_forbidden: tuple[int, ...] = ()

    def check(self, n: int) -> None:
        """Raise ValueError naming the clause that does not fit an n x n board."""
        if not 2 <= self.k <= n:
            raise ValueError(f"line length k={self.k} must lie in 2..{n} on a {n}x{n} board")
        if not any(self.dirs):
            raise ValueError("at least one line direction must count (dirs all False)")
        if self.square and not 2 <= self.square <= n:
            raise ValueError(f"square={self.square} must be 0 (off) or lie in 2..{n}")
        for name in ("blocked", "first_forbidden"):
            bad = [c for c in getattr(self, name) if not 0 <= c < n * n]
            if bad:
                raise ValueError(f"{name} cells {bad} are outside the {n}x{n} board (0..{n * n - 1})")


def _mask(cells: tuple[int, ...], n: int) -> np.ndarray:
    m = np.zeros(n * n, bool)
    m[list(cells)] = True
    return m.reshape(n, n)


def grid_params(rules: GridRules, n: int, encoding: Encoding) -> GridParams:
    """The traced params of one variant (host numpy leaves, all of fixed dtype)."""
    rules.check(n)
    return GridParams(
        k=np.int32(rules.k), dirs=np.array(rules.dirs, bool), torus=np.bool_(rules.torus),
        gravity=np.bool_(rules.gravity), misere=np.bool_(rules.misere), shared=np.bool_(rules.shared),
        square=np.int32(rules.square), valid=~_mask(rules.blocked, n),
        first_forbidden=_mask(rules.first_forbidden, n),
        glyphs=glyph_table(encoding, rules.shared), display=encoding.display(n))


def _cells(labels: dict, cells: tuple[int, ...]) -> str:
    return ", ".join(labels["cell"][c] for c in sorted(cells))


def rules_text(rules: GridRules, n: int, labels: dict) -> str:
    """The rules a player reads, written through the label dictionary of the encoding."""
    own, other = labels["own"], labels["other"]
    marks = (f"Both players place the same mark {own}." if rules.shared else
             f"Your marks are {own}; the opponent's marks are {other}.")
    parts = [f"A two-player placement game on a {n}x{n} board. The first player moves first; then "
             f"the players alternate, each placing one mark on a cell per turn. {marks} "
             f"{labels['empty']} is an empty cell."]
    if rules.blocked:
        parts.append(f"Cells {_cells(labels, rules.blocked)} are blocked ({labels['blocked']}): "
                     "no mark may go there.")
    if rules.gravity:
        side = labels["down"]
        parts.append(f"Gravity: marks fall towards the {side} edge of the board as you see it: a "
                     f"mark may only go on a cell at that edge, or on a cell whose neighbour on "
                     f"the {side} side is taken or blocked.")
    if rules.first_forbidden:
        parts.append(f"The very first move may not take {_cells(labels, rules.first_forbidden)}.")
    ways = [w for w, on in zip(DIRECTION_WORDS, rules.dirs) if on]
    whose = "marks (of either player)" if rules.shared else "of your own marks"
    line = (f"A line means {rules.k} {whose} in a row along " + " or ".join(ways)
            + (", wrapping round the board edges (the board is a torus)" if rules.torus else "") + ".")
    parts.append(line)
    parts.append("The player who completes a line LOSES." if rules.misere
                 else "The player who completes a line wins.")
    if rules.square:
        parts.append(f"A player whose marks take the four corners of a {rules.square}x{rules.square} "
                     "square (and who did not complete a line with that move) loses.")
    parts.append("If the player to move has no legal cell, the game is a draw. An illegal move, "
                 "or no move, loses the game.")
    parts.append("Cell names, by position on the board as you see it (top row first):\n" + labels["layout"])
    return " ".join(parts[:-1]) + "\n" + parts[-1]
