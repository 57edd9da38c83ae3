"""Glyphs and the per-cell action naming shared by the Classics games (grid mechanics, directions
and glyph tables are in `glyphjax.core.grid`).

Glyph meanings are per suite: a glyph means the same thing in every Classics task (a test checks
it over the whole suite). Put a glyph used by several games here; game-only glyphs live in the
game's module.
"""

from __future__ import annotations

# Shared glyph meanings of the Classics suite.
WALL = "█"
FLOOR = "·"
GLYPHS_COMMON = {
    WALL: "wall",
    FLOOR: "empty floor",
}


def cell_actions(verb: str, size: int, describe: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Named per-cell actions of a size x size board: (`VERB_i` names, descriptions), with cell
    i = row * size + column (the numbering the grid labels and the rules text state). `describe`
    is formatted with {row} and {col}, e.g. "press the cell at row {row}, column {col}"."""
    n = size * size
    return (tuple(f"{verb}_{i}" for i in range(n)),
            tuple(describe.format(row=i // size, col=i % size) for i in range(n)))


# The player avatar (every game where "you" move) and empty space in side views / open fields.
PLAYER = "@"
EMPTY_SPACE = " "
GLYPHS_ARCADE = {PLAYER: "you", EMPTY_SPACE: "empty space"}
