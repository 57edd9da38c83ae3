"""Exact search over paths (host side, plain Python over `reference`): the shortest accepted
path, paths a reduced rule set accepts but the full level rejects, and the rule-blind greedy
baseline. With the mapping known, retractions and resets never shorten a solution, so the
optimal action count is the shortest accepted simple path's moves + 1 (the CONFIRM)."""

from __future__ import annotations

import dataclasses
from typing import Callable, Iterator

from glyphjax.core.grid import DIR_OFFSETS
from glyphjax.witness.layout import Level
from glyphjax.witness.reference import Cell, move_refused, violations

Path = list[Cell]


def _extend(level: Level, path: Path) -> Iterator[tuple[int, Cell]]:
    head = path[-1]
    for d, (dr, dc) in enumerate(DIR_OFFSETS):
        nxt = (head[0] + dr, head[1] + dc)
        if len(path) >= 2 and nxt == path[-2]:
            continue  # a retraction, never part of a simple path
        if not move_refused(level, path, d):
            yield d, nxt


SEARCH_LIMIT = 150_000  # path prefixes one search may expand; beyond it the search gives up


def paths_to_exits(level: Level, max_moves: int, limit: int | None = None) -> Iterator[tuple[Path, list[int]]]:
    """Every legal simple path from S ending on an exit with at most max_moves moves, in order of
    length (breadth-first over path prefixes); stops after `limit` prefixes (so a search that
    finds nothing proves nothing beyond that many: the forge then rejects the level)."""
    limit = SEARCH_LIMIT if limit is None else limit
    frontier: list[tuple[Path, list[int]]] = [([level.start], [])]
    seen = 0
    for _ in range(max_moves + 1):
        nxt_frontier = []
        for path, dirs in frontier:
            if level.at(*path[-1]) == "E":
                yield path, dirs
            seen += 1
            if seen > limit:
                return
            for d, cell in _extend(level, path):
                nxt_frontier.append((path + [cell], dirs + [d]))
        frontier = nxt_frontier
        if not frontier:
            return


def first_path(level: Level, accept: Callable[[Path], bool], max_moves: int = 24) -> tuple[Path, list[int]] | None:
    """The shortest legal path to an exit that `accept` admits (first in row order of directions)."""
    for path, dirs in paths_to_exits(level, max_moves):
        if accept(path):
            return path, dirs
    return None


def solve(level: Level, max_moves: int = 24) -> list[int] | None:
    """Directions of a shortest accepted path, or None when no path of <= max_moves is accepted."""
    found = first_path(level, lambda p: not violations(level, p), max_moves)
    return None if found is None else found[1]


def optimal_actions(level: Level) -> int | None:
    sol = solve(level)
    return None if sol is None else len(sol) + 1


def greedy_path(level: Level, order: tuple[int, ...]) -> Path:
    """Rule-blind greedy walk: each step takes the legal move that brings the head closest to the
    nearest exit (Manhattan), ties broken by `order`; stops on an exit or when stuck."""
    exits = [(r, c) for r in range(level.rows) for c in range(level.cols) if level.at(r, c) == "E"]
    path = [level.start]
    while level.at(*path[-1]) != "E":
        options = dict(_extend(level, path))
        if not options:
            break
        best = min((d for d in order if d in options),
                   key=lambda d: min(abs(options[d][0] - e[0]) + abs(options[d][1] - e[1]) for e in exits))
        path.append(options[best])
    return path


SYMBOLS_OF = {"hexagon": "H", "squares": "RGBY", "stars": "rgby", "triangles": "123",
              "polyomino": "pqst", "eliminator": "%", "walls": "#"}


def without(level: Level, rule: str) -> Level:
    """The level with a primitive removed: inactive, its symbols (and blocked edges) erased."""
    gone = SYMBOLS_OF.get(rule, "")
    board = tuple("".join("." if ch in gone else ch for ch in row) for row in level.board)
    return dataclasses.replace(level, board=board, rules=tuple(r for r in level.rules if r != rule),
                              edges=() if rule == "walls" else level.edges,
                              hidden=tuple(h for h in level.hidden if board[h[0]][h[1]] != "."))


def accepted(level: Level, path: Path) -> bool:
    """A CONFIRM of this path (walked move by move) would be accepted."""
    return _legal(level, path) and not violations(level, path)


def cells_of(level: Level, dirs: list[int]) -> Path:
    """The cells a sequence of directions visits from the start."""
    path = [level.start]
    for d in dirs:
        path.append((path[-1][0] + DIR_OFFSETS[d][0], path[-1][1] + DIR_OFFSETS[d][1]))
    return path


def necessity(level: Level, rule: str, max_moves: int = 24, known: Path | None = None) -> Path | None:
    """A witness that `rule` matters: a path the level without it judges differently from the
    full level (accepted by one, rejected or refused by the other); None when none is found.
    A `known` path (e.g. the solution) is tried before the search."""
    reduced = without(level, rule)
    if known is not None and accepted(reduced, known) != accepted(level, known):
        return known
    found = first_path(reduced, lambda p: accepted(reduced, p) != accepted(level, p), max_moves)
    return None if found is None else found[0]


def _legal(level: Level, path: Path) -> bool:
    for i in range(1, len(path)):
        d = DIR_OFFSETS.index((path[i][0] - path[i - 1][0], path[i][1] - path[i - 1][1]))
        if move_refused(level, path[:i], d):
            return False
    return True
