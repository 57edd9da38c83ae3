"""Plain-Python second implementation of the WITNESS rules: path legality and submission checks.

Written independently of the JAX engine (loops over cells and sets, breadth-first floods) so the
differential tests can cross-examine the two; the solver and the level filters use this one.
"""

from __future__ import annotations

import dataclasses
from collections import deque

from glyphjax.core.grid import DIR_OFFSETS
from glyphjax.witness.layout import Level

Cell = tuple[int, int]


def inside(level: Level, cell: Cell) -> bool:
    r, c = cell
    return 0 <= r < level.rows and 0 <= c < level.cols


def mirror_rc(rows: int, cols: int, axis: int, cell: Cell) -> Cell:
    """The symmetric shadow of a cell on a rows x cols board (axis 0 vertical, 1 horizontal,
    2 point)."""
    r, c = cell
    if axis == 0:
        return r, cols - 1 - c
    if axis == 1:
        return rows - 1 - r, c
    return rows - 1 - r, cols - 1 - c


def mirror(level: Level, cell: Cell) -> Cell:
    return mirror_rc(level.rows, level.cols, level.axis, cell)


@dataclasses.dataclass
class PathView:
    """A submitted path as the reference checks see it."""

    level: Level
    path: list[Cell]
    covered: set[Cell]
    region_of: dict[Cell, frozenset[Cell]]  # free cell -> its region

    def region(self, cell: Cell) -> frozenset[Cell] | None:
        return self.region_of.get(cell)


def view(level: Level, path: list[Cell]) -> PathView:
    covered = set(path)
    if level.has("symmetry"):
        covered |= {mirror(level, p) for p in path}
    free = {(r, c) for r in range(level.rows) for c in range(level.cols)
            if level.at(r, c) != "#" and (r, c) not in covered}
    region_of: dict[Cell, frozenset[Cell]] = {}
    for cell in sorted(free):
        if cell in region_of:
            continue
        seen, todo = {cell}, deque([cell])
        while todo:
            r, c = todo.popleft()
            for dr, dc in DIR_OFFSETS:
                n = (r + dr, c + dc)
                if n in free and n not in seen:
                    seen.add(n)
                    todo.append(n)
        region = frozenset(seen)
        for x in region:
            region_of[x] = region
    return PathView(level, path, covered, region_of)


def symbol_cells(level: Level, chars: str) -> list[tuple[Cell, str]]:
    """Every cell holding one of `chars`, with its character, in row-major order."""
    return [((r, c), level.at(r, c)) for r in range(level.rows) for c in range(level.cols) if level.at(r, c) in chars]


def blocked_edge(level: Level, cell: Cell, d: int) -> bool:
    return (cell[0], cell[1], d) in set(level.edges)


MIRROR_DIR = ((0, 1, 3, 2), (1, 0, 2, 3), (1, 0, 3, 2))  # per axis: direction of the shadow's move


def move_refused(level: Level, path: list[Cell], d: int) -> bool:
    """Whether moving the head in direction d is refused (a retraction never is)."""
    head = path[-1]
    target = (head[0] + DIR_OFFSETS[d][0], head[1] + DIR_OFFSETS[d][1])
    if len(path) >= 2 and target == path[-2]:
        return False
    if not inside(level, target) or level.at(*target) == "#" or blocked_edge(level, head, d):
        return True
    if target in path:
        return True
    if level.has("symmetry"):
        shadow = mirror(level, target)
        if shadow == target or shadow in path or level.at(*shadow) == "#":
            return True
        if blocked_edge(level, mirror(level, head), MIRROR_DIR[level.axis][d]):
            return True
    return False


def violations(level: Level, path: list[Cell], rules: tuple[str, ...] | None = None) -> set[Cell]:
    """Cells a CONFIRM of this path marks `!` (empty = accepted). `rules` overrides the level's
    active primitives (the filters ask what a level would accept without one)."""
    from glyphjax.witness.primitives import CHECKS  # the primitive modules import this one

    active = level.rules if rules is None else rules
    lv = dataclasses.replace(level, rules=tuple(active))
    pv = view(lv, path)
    bad: set[Cell] = set()
    for name, module in CHECKS.items():
        if name != "eliminator" and name in active:
            bad |= module.check_reference(pv)
    if "eliminator" in active:
        bad = CHECKS["eliminator"].resolve_reference(pv, bad)
    if lv.at(*path[-1]) != "E":
        bad.add(path[-1])
    return bad
