"""Each rule primitive on hand-made levels: a known accepted and a known rejected path through
the JAX engine (golden boards after CONFIRM), the same verdicts from the plain-Python reference,
and a vmapped differential test against the reference on random levels and paths."""

from __future__ import annotations

import pytest

from glyphjax.witness import crosscheck
from glyphjax.witness.layout import Level
from glyphjax.witness.reference import violations
from tests.witness.helpers import MOVES, play

ACCEPTED, REJECTED = "solved: every level of the game is solved", "rejected: the cells marked ! break a rule"

# (primitive, level, accepted moves, rejected moves, golden board after the rejected CONFIRM)
FIXTURES = [
    ("hexagon", Level(board=("S.H", "...", "..E"), rules=("hexagon",)), "RRDD", "DDRR",
     "S.!\no..\noo@"),
    ("squares", Level(board=("S...", "....", "R.B.", "...E"), rules=("squares",)), "RDDDRR", "RRRDDD",
     "Sooo\n...o\n!.!o\n...@"),
    ("stars", Level(board=("S..", ".r.", "r.E"), rules=("stars",)), "RRDD", "DRRD",
     "S..\no!o\n!.@"),
    ("triangles", Level(board=("S2.", "...", "..E"), rules=("triangles",)), "DRRD", "DDRR",
     "S!.\no..\noo@"),
    ("polyomino", Level(board=("S.p", "...", "..E"), rules=("polyomino",)), "DRRD", "DDRR",
     "S.!\no..\noo@"),
    ("eliminator", Level(board=("S..", "H..", "%.E"), rules=("hexagon", "eliminator")), "RRDD", "DDRR",
     "S..\no..\n!o@"),
    ("symmetry", Level(board=("S...", "....", "E..E"), rules=("symmetry",), axis=0), "DD", "DR",
     "S..+\no!!+\nE..E"),
]


def _cells(moves: str, start):
    path = [start]
    for m in moves:
        dr, dc = ((-1, 0), (1, 0), (0, -1), (0, 1))[MOVES[m]]
        path.append((path[-1][0] + dr, path[-1][1] + dc))
    return path


@pytest.mark.parametrize("name, level, good, bad, golden", FIXTURES, ids=[f[0] for f in FIXTURES])
def test_primitive__fixture_accepts_and_rejects_with_golden_marks(name, level, good, bad, golden):
    _, events, rewards, _ = play(level, good + "C")
    assert events[-1] == ACCEPTED and rewards[-1] > 0, f"{name}: {good} was not accepted ({events})"
    _, events, rewards, board = play(level, bad + "C")
    assert events[-1] == REJECTED and rewards[-1] == 0, f"{name}: {bad} was not rejected ({events})"
    assert board == golden, f"{name}: board after rejecting {bad}:\n{board}\nwant\n{golden}"
    marked = {(r, c) for r, row in enumerate(golden.split("\n")) for c, ch in enumerate(row) if ch == "!"}
    assert violations(level, _cells(good, level.start)) == set()
    assert violations(level, _cells(bad, level.start)) == marked


def test_primitive__without_the_rule_the_rejected_path_passes():
    for name, level, _, bad, _ in FIXTURES:
        if name == "symmetry":
            continue  # its rejected path ends off every exit: no rule set accepts it
        rules = tuple(r for r in level.rules if r != name)
        assert violations(level, _cells(bad, level.start), rules=rules) == set(), name


def test_walls__wall_cells_and_blocked_edges_refuse_moves():
    level = Level(board=("S#.", "...", "..E"), rules=("walls",), edges=((1, 1, 3), (1, 2, 2)))
    state, events, _, board = play(level, "RDRR")
    assert events == ["refused", "moved", "moved", "refused"]
    assert board == "S#.\no@.\n..E" and int(state.used) == 4
    _, events, _, _ = play(level, "DDRRC")
    assert events[-1] == ACCEPTED


def test_symmetry__moves_the_shadow_cannot_make_are_refused():
    level = Level(board=("S...", "....", "E..E"), rules=("symmetry",), axis=0)
    _, events, _, board = play(level, "RR")
    assert events == ["moved", "refused"]  # the shadow already holds (0, 2)
    assert board == "S@++\n....\nE..E"


def test_hints__hidden_symbol_shows_once_the_head_has_visited():
    level = Level(board=("S..", ".H.", "..E"), rules=("hexagon", "hints"), hidden=((1, 1),))
    _, _, _, board = play(level, "")
    assert board == "@..\n.?.\n..E"
    _, _, _, board = play(level, "DRL")  # visit (1, 1), then retract
    assert board == "S..\n@H.\n..E"
    _, events, _, _ = play(level, "DRRDC")
    assert events[-1] == ACCEPTED


@pytest.mark.parametrize("primitive", sorted(crosscheck.PRIMITIVE_RULES))
def test_primitive__jax_and_reference_agree_on_random_levels_and_paths(primitive):
    cases = crosscheck.cases_for(primitive, 10_000, seed=1)  # the issue's >= 10,000 per primitive
    bad = crosscheck.disagreements(cases, chunk=2048)
    assert not bad, f"{primitive}: {len(bad)} disagreements, first: case {bad[0][0]} " \
                    f"{cases[bad[0][0]].level} path {cases[bad[0][0]].path}: {bad[0][1]}"
