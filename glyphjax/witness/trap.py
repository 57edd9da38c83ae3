"""Trap candidates: levels built against the rule-blind greedy walk, for the rule sets whose
uniform and planted candidates never passed the filters on a 5x5 board (walls alone, symmetry
beside walls, hexagons, squares or stars).

A candidate is drawn as a long legal path first (`planted.plant_path`), the path's cells and their
shadows kept clear. Then, in rounds, every tie-break order of the rule-blind greedy walk that the
level accepts is attacked: a wall on one of its cells (or a blocked edge on one of its moves) off
the planted path; walls then go on the shortest accepted route until the optimum is long. Symbols
(hexagons, squares, stars) are placed so that the planted path satisfies them, and redrawn until
no greedy walk is accepted. Each draft is screened on the host by the exact probability that
uniform random play (6 actions, one level's budget) wins, a Markov chain over the level's legal
simple paths; drafts expected to win more than SCREEN_WINS of 2,000 episodes are discarded, and
the next draft is drawn from the same generator (up to DRAFTS per candidate). The screen only
saves the forge's random-play calls: every candidate still goes through every forge filter,
the vmapped 2,000-episode random play included.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from glyphjax.core.grid import DIR_OFFSETS
from glyphjax.witness import solver
from glyphjax.witness.forge import MIN_DEPTH, ORDERS, RANDOM_EPISODES
from glyphjax.witness.layout import BUDGET, COLS, COLOURS, ROWS, Level, with_edges_both_ways
from glyphjax.witness.planted import _endpoints, plant_path
from glyphjax.witness.reference import MIRROR_DIR, Cell, mirror, move_refused, view, violations

DRAFTS = 100  # drafts per candidate before it is given up (None)
SCREEN_WINS = 3.0  # expected wins in 2,000 random episodes a draft may have
MAX_STATES = 60_000  # legal simple paths the exact random-play screen enumerates at most
MAX_BLOCKS = 10  # walls or blocked edges per draft
SYMBOL_TRIES = 30  # symbol placements per draft
TRAP_RULES = ("walls", "hexagon", "squares", "stars", "symmetry")  # rule sets this generator draws


def random_win_probability(level: Level, budget: int = BUDGET, max_states: int = MAX_STATES) -> float | None:
    """P(uniform random play over the 6 actions solves the level within `budget` actions), exact:
    a Markov chain over the legal simple paths from S (a move extends, retracts or is refused,
    RESET returns to [S], CONFIRM wins iff the path is accepted). None beyond max_states paths."""
    states, index, nxt, wins = [(level.start,)], {(level.start,): 0}, [], []
    i = 0
    while i < len(states):
        path = list(states[i])
        row = []
        for d in range(4):
            dr, dc = DIR_OFFSETS[d]
            target = (path[-1][0] + dr, path[-1][1] + dc)
            if len(path) >= 2 and target == path[-2]:
                key = states[i][:-1]
            elif move_refused(level, path, d):
                key = states[i]
            else:
                key = states[i] + (target,)
            if key not in index:
                index[key] = len(states)
                states.append(key)
                if len(states) > max_states:
                    return None
            row.append(index[key])
        nxt.append(row)
        wins.append(level.at(*path[-1]) == "E" and not violations(level, path))
        i += 1
    n = len(states)
    to = np.empty((n, 6), np.int64)
    to[:, :4] = np.array(nxt)
    to[:, 4] = 0  # RESET
    to[:, 5] = np.where(np.array(wins), n, np.arange(n))  # CONFIRM: n is the absorbing win
    v = np.zeros(n + 1)
    v[n] = 1.0
    for _ in range(budget):
        v[:n] = v[to].mean(axis=1)
    return float(v[0])


def _protected(level: Level, path: list[Cell]) -> tuple[set[Cell], set[tuple[int, int, int]]]:
    """Cells and directed edges no wall may touch: the planted path's (and its shadow's), S, exits."""
    cells = set(path) | {(r, c) for r in range(level.rows) for c in range(level.cols) if level.at(r, c) in "SE"}
    edges = set()
    for a, b in zip(path, path[1:]):
        d = DIR_OFFSETS.index((b[0] - a[0], b[1] - a[1]))
        edges |= {(*a, d), (*b, d ^ 1)}
        if level.has("symmetry"):
            ma, mb = mirror(level, a), mirror(level, b)
            md = MIRROR_DIR[level.axis][d]
            edges |= {(*ma, md), (*mb, md ^ 1)}
    if level.has("symmetry"):
        cells |= {mirror(level, x) for x in cells}
    return cells, edges


def _block(level: Level, route: list[Cell], path: list[Cell], keep: tuple[set, set],
           rng: np.random.Generator) -> Level | None:
    """The level with the last move of `route` after it leaves the planted path that no protected
    cell or edge forbids cut: a wall on the move's target cell, or (when that cell is protected,
    or at random) a blocked edge. The branch before it stays open as a dead end for the greedy
    walk to enter. None when the route has no such move (it follows the planted path)."""
    cells, edges = keep
    i = 0
    while i + 1 < min(len(route), len(path)) and route[i + 1] == path[i + 1]:
        i += 1
    for a, b in reversed(list(zip(route[i:], route[i + 1:]))):
        d = DIR_OFFSETS.index((b[0] - a[0], b[1] - a[1]))
        if b not in cells and level.at(*b) == "." and rng.random() < 0.5:
            board = [list(row) for row in level.board]
            board[b[0]][b[1]] = "#"
            return dataclasses.replace(level, board=tuple("".join(row) for row in board))
        if (*a, d) not in edges:
            return dataclasses.replace(level, edges=with_edges_both_ways(tuple(level.edges) + ((*a, d),)))
    return None


def _greedy_winner(level: Level) -> list[Cell] | None:
    for order in ORDERS:
        walk = solver.greedy_path(level, order)
        if not violations(level, walk):
            return walk
    return None


def _symbols(level: Level, path: list[Cell], rules: tuple[str, ...], rng: np.random.Generator) -> Level:
    """Hexagons on the planted path; squares one colour per region of the path; stars in pairs of a
    colour inside one region (so the planted path passes each)."""
    board = [list(row) for row in level.board]
    pv = view(level, path)
    free = lambda cells: [x for x in sorted(cells) if board[x[0]][x[1]] == "."]  # noqa: E731
    if "hexagon" in rules:
        spots = free(set(path))
        for i in rng.choice(len(spots), size=min(len(spots), int(rng.integers(1, 4))), replace=False):
            board[spots[i][0]][spots[i][1]] = "H"
    regions = sorted({reg for reg in pv.region_of.values()}, key=min)
    order = list(rng.permutation(len(regions)))
    if "squares" in rules:  # colours repeat over regions (a region of one colour passes)
        for n, i in enumerate(order[:int(rng.integers(2, 4))]):
            spots = free(regions[i])
            for j in rng.choice(len(spots), size=min(len(spots), int(rng.integers(1, 3))), replace=False):
                board[spots[j][0]][spots[j][1]] = COLOURS[n % 2]
    if "stars" in rules:  # pairs, often of one colour in several regions (merged regions hold 4)
        same = rng.random() < 0.6
        for n, i in enumerate(order[:int(rng.integers(1, 4))]):
            spots = free(regions[i])
            if len(spots) >= 2:
                for j in rng.choice(len(spots), size=2, replace=False):
                    board[spots[j][0]][spots[j][1]] = COLOURS[3 if same else 3 - n].lower()
    return dataclasses.replace(level, board=tuple("".join(row) for row in board))


def _tighten(level: Level, path: list[Cell], rules: tuple[str, ...], rng: np.random.Generator) -> Level | None:
    """More squares or stars that the planted path satisfies (a square of a region's colour, or of
    either colour in a region without squares; a pair of a colour the region lacks), two at a
    time, until random play is expected to win at most SCREEN_WINS of 2,000 episodes. Adding
    such a symbol only removes accepted paths, so the greedy walks keep failing and the planted
    path keeps passing. None when the board has no room left first."""
    pv = view(level, path)
    regions = sorted({reg for reg in pv.region_of.values()}, key=min)
    while True:
        p = random_win_probability(level)
        if p is not None and p * RANDOM_EPISODES <= SCREEN_WINS:
            return level
        board = [list(row) for row in level.board]
        spots = []  # (cell, symbol) that keep the planted path accepted
        for reg in regions:
            free = [x for x in sorted(reg) if board[x[0]][x[1]] == "."]
            have = {board[r][c] for r, c in reg}
            if "squares" in rules:
                sq = [ch for ch in COLOURS if ch in have]
                colour = sq[0] if sq else COLOURS[rng.integers(2)]
                spots += [((x,), colour) for x in free]
            if "stars" in rules and len(free) >= 2:
                colour = next((ch.lower() for ch in COLOURS[::-1] if ch.lower() not in have), None)
                if colour is not None:
                    a, b = rng.choice(len(free), size=2, replace=False)
                    spots.append(((free[a], free[b]), colour))
        if not spots:
            return None
        for i in rng.choice(len(spots), size=min(2, len(spots)), replace=False):
            cells, ch = spots[i]
            if all(board[r][c] == "." for r, c in cells):
                for r, c in cells:
                    board[r][c] = ch
        level = dataclasses.replace(level, board=tuple("".join(row) for row in board))


def _draft(slot, rng: np.random.Generator) -> Level | None:
    """One draft: endpoints, a planted path, symbols it satisfies with every greedy walk rejected,
    then (walls) cuts until no greedy walk is accepted and the optimum is long, or (squares, stars)
    symbols added until the random-play screen passes; None when a step finds no way."""
    rules = tuple(sorted(slot.rules))
    sym = "symmetry" in rules
    # ours: symmetric drafts use the full board even for a 4x5 introduce slot, where path and
    # shadow leave no room for a long route (the extension's pools key slots by rules, not size)
    rows, cols = (ROWS, COLS) if sym else slot.size
    axis = int(rng.integers(3)) if sym else None
    s, exits = _endpoints(rows, cols, axis, rng)
    grid = [["."] * cols for _ in range(rows)]
    grid[s[0]][s[1]] = "S"
    for r, c in exits:
        grid[r][c] = "E"
    bare = Level(board=tuple("".join(r) for r in grid), rules=rules, axis=axis or 0)
    # symbols need regions off the path (and its shadow): a shorter path for them
    moves = rows * cols // 2 if "walls" in rules else int(rng.integers(5, 11))
    path = plant_path(dataclasses.replace(bare, rules=("symmetry",) if sym else ()), moves, rng)
    if path is None:
        return None
    keep = _protected(bare, path)
    walks = [solver.greedy_path(bare, order) for order in ORDERS]  # symbols do not steer the walk
    walks = [w for w in walks if bare.at(*w[-1]) == "E"]
    for _ in range(SYMBOL_TRIES):  # symbols until the planted path passes and no greedy walk does
        level = _symbols(bare, path, rules, rng)
        if violations(level, path):
            return None
        if "walls" in rules or all(violations(level, w) for w in walks):
            break
    else:
        return None
    if "walls" not in rules:
        return _tighten(level, path, rules, rng)
    target = int(rng.integers(7, 11))  # moves the optimum is pushed to (at most the planted path's)
    for _ in range(MAX_BLOCKS):
        route = _greedy_winner(level)
        if route is None:
            found = solver.first_path(level, lambda p: not violations(level, p))
            if found is None or len(found[1]) >= min(target, len(path) - 1):
                return level
            route = found[0]
        level = _block(level, route, path, keep, rng)
        if level is None:
            return None
    return None


def trap_candidate(slot, rng: np.random.Generator) -> Level | None:
    """A candidate for the slot: the first of up to DRAFTS drafts whose greedy walks all fail, whose
    optimum is >= 5 actions and whose exact random-play win probability is at most SCREEN_WINS
    in 2,000; None when no draft qualifies (the forge counts it under `structure`)."""
    for _ in range(DRAFTS):
        level = _draft(slot, rng)
        if level is None or _greedy_winner(level) is not None:
            continue
        sol = solver.solve(level)
        if sol is None or len(sol) + 1 < MIN_DEPTH:
            continue
        p = random_win_probability(level)
        if p is not None and p * RANDOM_EPISODES <= SCREEN_WINS:
            return level
    return None
