"""Encodings of the zero-sum grid games: bijections on what a seat reads, applied after the game.

An encoding (gamesmith.md §2.4) changes text only: the marks drawn for the two seats, the
coordinate scheme of the cell labels (action names), and the orientation of the board (one of the
8 symmetries of the square). The jitted game only ever sees canonical cell indices; the encoding
enters as traced arrays (`display`: which canonical cell each display position shows, the glyph
table) and as host-side text (the card's action names and rules, written through `labels`).

Conventions: a canonical cell is `r * n + c` on the n x n board, row 0 at the top. A display
position is the same kind of index into the drawn grid. Orientation o maps canonical (r, c) to the
display position `D4[o](r, c)`; the label of a canonical cell is the label of its display position
in the coordinate scheme.
"""

from __future__ import annotations

import dataclasses
import string

import numpy as np

EMPTY_GLYPH = "·"
BLOCKED_GLYPH = "▪"

# (own mark, other seat's mark): each glyph keeps one meaning across the whole suite.
MARK_SETS: tuple[tuple[str, str], ...] = (("X", "O"), ("●", "○"), ("■", "□"), ("▲", "△"), ("◆", "◇"))
# Games where both seats place the same mark (Notakto-like): one glyph per encoding.
SHARED_MARKS: tuple[str, ...] = ("✕", "✚", "✱", "✦", "✶")

ORIENTATIONS = ("identity", "rot90", "rot180", "rot270", "flip-lr", "flip-ud", "transpose", "anti-transpose")
COORDINATES = ("a1", "rc", "index", "keypad")
# The side of the drawn board that canonical "down" (row + 1) points to, per orientation.
DOWN_SIDE = ("bottom", "left", "top", "right", "bottom", "top", "right", "left")


def d4(o: int, r: int, c: int, n: int) -> tuple[int, int]:
    """Where canonical (r, c) is drawn under orientation o on an n x n board."""
    m = n - 1
    return ((r, c), (c, m - r), (m - r, m - c), (m - c, r), (r, m - c), (m - r, c), (c, r),
            (m - c, m - r))[o]


def position_label(scheme: str, r: int, c: int, n: int) -> str:
    """The action name of display position (r, c) in a coordinate scheme (UPPER_SNAKE_CASE)."""
    if scheme == "a1":  # column letter, row number counted from the top (A1 = top-left)
        return f"{string.ascii_uppercase[c]}{r + 1}"
    if scheme == "rc":
        return f"R{r + 1}C{c + 1}"
    if scheme == "index":  # row-major from the top-left, 1-based
        return f"CELL_{r * n + c + 1}"
    if scheme == "keypad":  # numeric-keypad order: the bottom row holds 1..n
        return f"KEY_{(n - 1 - r) * n + c + 1}"
    raise ValueError(f"unknown coordinate scheme {scheme!r}; use one of {COORDINATES}")


@dataclasses.dataclass(frozen=True)
class Encoding:
    """One text encoding of an n x n grid game: mark set, coordinate scheme, orientation."""

    marks: int = 0
    coordinates: str = "a1"
    orientation: int = 0

    def __post_init__(self):
        if self.coordinates not in COORDINATES:
            raise ValueError(f"unknown coordinate scheme {self.coordinates!r}; use one of {COORDINATES}")
        if not 0 <= self.orientation < len(ORIENTATIONS):
            raise ValueError(f"orientation {self.orientation} is not one of 0..{len(ORIENTATIONS) - 1}")
        if not 0 <= self.marks < len(MARK_SETS):
            raise ValueError(f"mark set {self.marks} is not one of 0..{len(MARK_SETS) - 1}")

    @property
    def name(self) -> str:
        """Short descriptor, e.g. `m1-rc-rot90` (the identity encoding is `m0-a1-identity`)."""
        return f"m{self.marks}-{self.coordinates}-{ORIENTATIONS[self.orientation]}"

    def display(self, n: int) -> np.ndarray:
        """int32[n*n]: the canonical cell shown at each display position."""
        out = np.zeros(n * n, np.int32)
        for r in range(n):
            for c in range(n):
                dr, dc = d4(self.orientation, r, c, n)
                out[dr * n + dc] = r * n + c
        return out

    def action_names(self, n: int) -> tuple[str, ...]:
        """Action name of each canonical cell (the card's `actions`, in canonical order)."""
        return tuple(position_label(self.coordinates, *d4(self.orientation, r, c, n), n)
                     for r in range(n) for c in range(n))

    def marks_of(self, shared: bool) -> tuple[str, str]:
        """(own, other) glyphs; a shared-mark game draws both seats' marks with one glyph."""
        if shared:
            return SHARED_MARKS[self.marks], SHARED_MARKS[self.marks]
        return MARK_SETS[self.marks]

    def layout(self, n: int) -> str:
        """The label of every display position, row by row: the dictionary the rules text gives."""
        return "\n".join(" ".join(position_label(self.coordinates, r, c, n) for c in range(n))
                         for r in range(n))

    def labels(self, n: int, shared: bool = False) -> dict:
        """The label dictionary the rules text is written through: marks, glyphs, cell names."""
        own, other = self.marks_of(shared)
        names = self.action_names(n)
        return {"own": own, "other": other, "empty": EMPTY_GLYPH, "blocked": BLOCKED_GLYPH,
                "layout": self.layout(n), "cell": names, "down": DOWN_SIDE[self.orientation]}


def all_encodings() -> list[Encoding]:
    """Every encoding (5 mark sets x 4 schemes x 8 orientations)."""
    return [Encoding(m, s, o) for m in range(len(MARK_SETS)) for s in COORDINATES
            for o in range(len(ORIENTATIONS))]
