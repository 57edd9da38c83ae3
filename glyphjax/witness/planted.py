"""Planted candidate levels: draw a long legal path first, then place each primitive's symbols so
that this path satisfies them (and, for an eliminator, so that it breaks exactly what the
eliminators can cancel). Uniform symbol placement almost never yields a solvable eliminator level
(a mixed-colour region marks >= 2 squares, one `%` cancels one) and leaves symmetry levels short
enough for random play to win; a planted path fixes both. The forge still applies every filter.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from glyphjax.core.grid import DIR_OFFSETS
from glyphjax.witness import solver
from glyphjax.witness.layout import COLOURS, PIECE_CELLS, PIECES, Level
from glyphjax.witness.primitives.polyomino import rotations
from glyphjax.witness.reference import Cell, mirror_rc, move_refused, view

PLANT_TRIES = 3000  # DFS expansions when drawing the planted path
MIN_PLANT = 6  # fewest moves of a planted path


def _endpoints(rows: int, cols: int, axis: int | None, rng: np.random.Generator) -> tuple[Cell, list[Cell]]:
    """Start and exit cells: opposite corners, or under symmetry an exit pair mirrored across the
    axis (both heads must end on an exit), with the shadow's start left clear."""
    if axis is None:
        s = [(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)][rng.integers(4)]
        return s, [(rows - 1 - s[0], cols - 1 - s[1])]
    cells = [(r, c) for r in range(rows) for c in range(cols) if mirror_rc(rows, cols, axis, (r, c)) != (r, c)]
    s = cells[rng.integers(len(cells))]
    ends = [x for x in cells if x not in (s, mirror_rc(rows, cols, axis, s))]

    def reach(x: Cell) -> int:  # the head may end on either exit of the pair
        m = mirror_rc(rows, cols, axis, x)
        return min(abs(x[0] - s[0]) + abs(x[1] - s[1]), abs(m[0] - s[0]) + abs(m[1] - s[1]))
    far = max(reach(x) for x in ends)
    ends = [x for x in ends if reach(x) >= far - 1]
    e = ends[rng.integers(len(ends))]
    return s, sorted({e, mirror_rc(rows, cols, axis, e)})


def _board(rows: int, cols: int, s: Cell, exits: list[Cell]) -> list[list[str]]:
    grid = [["."] * cols for _ in range(rows)]
    grid[s[0]][s[1]] = "S"
    for r, c in exits:
        grid[r][c] = "E"
    return grid


def plant_path(level: Level, min_moves: int, rng: np.random.Generator) -> list[Cell] | None:
    """A random legal simple path from S to an exit with >= min_moves moves (randomised DFS that
    never passes through an exit); failing that, the longest one of >= MIN_PLANT moves met within
    PLANT_TRIES expansions, else None."""
    stack, expansions, best = [[level.start]], 0, None
    while stack and expansions < PLANT_TRIES:
        path = stack.pop()
        expansions += 1
        if level.at(*path[-1]) == "E":
            if len(path) - 1 >= min_moves:
                return path
            if len(path) - 1 >= MIN_PLANT and (best is None or len(path) > len(best)):
                best = path
            continue
        dirs = list(rng.permutation(4))
        for d in dirs:
            nxt = (path[-1][0] + DIR_OFFSETS[d][0], path[-1][1] + DIR_OFFSETS[d][1])
            if (len(path) < 2 or nxt != path[-2]) and not move_refused(level, path, int(d)):
                stack.append(path + [nxt])
    return best


def _free(grid: list[list[str]], cells) -> list[Cell]:
    return [x for x in sorted(cells) if grid[x[0]][x[1]] == "."]


def _pick(rng: np.random.Generator, cells: list[Cell], n: int) -> list[Cell]:
    return [cells[i] for i in sorted(rng.choice(len(cells), size=min(n, len(cells)), replace=False))]


def _shape_piece(region: frozenset[Cell]) -> int | None:
    """The piece whose shape the region is (any rotation), if any."""
    r0, c0 = min(r for r, _ in region), min(c for _, c in region)
    norm = frozenset((r - r0, c - c0) for r, c in region)
    return next((i for i, cells in enumerate(PIECE_CELLS) if norm in rotations(cells)), None)


def _block_shortcuts(grid, base: Level, covered: set[Cell], rng: np.random.Generator) -> None:
    """Walls off the planted path, each on the current shortest open route or a rule-blind greedy
    walk (so neither takes the direct way), then a few at random."""
    for _ in range(int(rng.integers(2, 5))):
        level = dataclasses.replace(base, board=tuple("".join(r) for r in grid))
        found = solver.first_path(level, lambda p: True)
        routes = set(found[0]) if found else set()
        routes |= {x for order in ((0, 1, 2, 3), (3, 2, 1, 0)) for x in solver.greedy_path(level, order)}
        on_route = [x for x in _free(grid, routes) if x not in covered]
        if not on_route:
            break
        r, c = _pick(rng, on_route, 1)[0]
        grid[r][c] = "#"
    off = [x for x in _free(grid, {(r, c) for r in range(base.rows) for c in range(base.cols)}) if x not in covered]
    for r, c in _pick(rng, off, int(rng.integers(0, 2))):
        grid[r][c] = "#"


def _satisfy(grid, rules, path, covered, regions, rng) -> None:
    """Place the symbols of every non-eliminator primitive so that the planted path passes."""
    off = [x for x in _free(grid, {(r, c) for r in range(len(grid)) for c in range(len(grid[0]))}) if x not in covered]
    if "hexagon" in rules:
        for r, c in _pick(rng, _free(grid, covered), int(rng.integers(1, 4))):
            grid[r][c] = "H"
    order = list(rng.permutation(len(regions)))
    if "squares" in rules:
        for colour, i in zip(COLOURS, order[:3]):
            for r, c in _pick(rng, _free(grid, regions[i]), int(rng.integers(1, 3))):
                grid[r][c] = colour
    if "stars" in rules:
        for colour, i in zip(COLOURS[::-1], order[-2:]):
            cells = _free(grid, regions[i])
            if len(cells) >= 2:
                for r, c in _pick(rng, cells, 2):
                    grid[r][c] = colour.lower()
    if "triangles" in rules:
        for r, c in _pick(rng, _free(grid, off), int(rng.integers(1, 4))):
            if grid[r][c] != ".":
                continue
            n = sum((r + dr, c + dc) in covered for dr, dc in DIR_OFFSETS)
            if 1 <= n <= 3:
                grid[r][c] = str(n)
    if "polyomino" in rules:
        for i in order:
            piece = _shape_piece(regions[i])
            cells = _free(grid, regions[i])
            if piece is not None and cells:
                r, c = _pick(rng, cells, 1)[0]
                grid[r][c] = PIECES[piece]


def _fault(grid, rules, covered, regions, rng) -> frozenset[Cell] | None:
    """Eliminators with exactly as many faults of another primitive in their region: one `%`
    and one fault (an uncovered hexagon, a wrong triangle, a lone star, a misfit piece), or two
    `%` beside two squares of different colours (a mixed region marks both)."""
    kinds = [k for k in ("hexagon", "triangles", "stars", "polyomino", "squares") if k in rules]
    if not kinds:
        return None
    kind = kinds[rng.integers(len(kinds))]
    need = 4 if kind == "squares" else 2
    spots = [reg for reg in regions if len(_free(grid, reg)) >= need]
    if not spots:
        return None
    region = spots[rng.integers(len(spots))]
    cells = _pick(rng, _free(grid, region), need)
    if kind == "squares":
        marks = ["%", "%", COLOURS[0], COLOURS[1]]
    elif kind == "hexagon":
        marks = ["%", "H"]
    elif kind == "stars":
        marks = ["%", COLOURS[2].lower()]
    elif kind == "polyomino":
        marks = ["%", PIECES[next(i for i in range(4) if i != _shape_piece(region))]]
    else:
        r, c = cells[1]
        n = sum((r + dr, c + dc) in covered for dr, dc in DIR_OFFSETS)
        marks = ["%", str(1 + n % 3)]
    for (r, c), ch in zip(cells, marks):
        grid[r][c] = ch
    return region


def planted_candidate(slot, rng: np.random.Generator) -> Level | None:
    """A candidate level for the slot built around a planted path (None when no path is drawn)."""
    rows, cols = slot.size
    rules = tuple(sorted(slot.rules))
    axis = int(rng.integers(3)) if "symmetry" in rules else None
    s, exits = _endpoints(rows, cols, axis, rng)
    grid = _board(rows, cols, s, exits)
    base = Level(board=tuple("".join(r) for r in grid), rules=("symmetry",) if axis is not None else (),
                 axis=axis or 0)
    path = plant_path(base, (rows * cols) // 2, rng)
    if path is None:
        return None
    if "walls" in rules:  # walls first: they shape the regions the other symbols are placed in
        _block_shortcuts(grid, base, view(base, path).covered, rng)
        base = dataclasses.replace(base, board=tuple("".join(r) for r in grid))
    pv = view(base, path)
    regions = sorted({reg for reg in pv.region_of.values()}, key=lambda reg: min(reg))
    if "eliminator" in rules:  # the fault's region first, kept apart from the satisfied symbols
        region = _fault(grid, rules, pv.covered, regions, rng)
        if region is None:
            return None
        regions = [reg for reg in regions if reg != region]
    _satisfy(grid, rules, path, pv.covered, regions, rng)
    return Level(board=tuple("".join(r) for r in grid), rules=rules, axis=axis or 0)
