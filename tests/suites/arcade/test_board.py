"""The games of arcade/board.py's author (Seaquest, Q*bert, Surround ...): the mechanics of
board.py and, per game, its scoring, win and death rules on positions set up by hand, with golden
frames written from the rules in each game's module docstring."""

import jax.numpy as jnp
import pytest

from glyphjax.core import entities
from tests.suites.arcade.test_games import grid, play, pool, start


def with_cells(row: str, marks: dict) -> str:
    return "".join(marks.get(i, ch) for i, ch in enumerate(row))


# --- seaquest ---------------------------------------------------------------------------------------
SQ = "miniatari/seaquest"
SEA = " " * 14


def sea(marks: dict) -> list[str]:
    """The 12x14 sea with the surface on row 0 and {(row, col): glyph} drawn."""
    rows = ["≋" * 14] + [SEA] * 11
    for (r, c), g in marks.items():
        rows[r] = with_cells(rows[r], {c: g})
    return rows


def test_seaquest__touching_a_diver_rescues_it():
    s = start(SQ, t=0, player=[3, 5], heading=[0, 1], foes=pool([(3, 7), (8, 1)], vel=(0, -1), kinds=[1, 0], n=6))
    s, reward, done, msg = play(SQ, s, "RIGHT", rate=0.0)  # the diver swims to (3, 6), you move onto it
    assert reward == pytest.approx(1 / 4) and not done and msg == "You rescued a diver."
    assert grid(SQ, s) == sea({(3, 6): "⇒", (8, 0): "◄"}) and int(s.phase) == 35


def test_seaquest__a_torpedo_destroys_the_first_shark_it_meets_and_is_spent():
    s = start(SQ, t=1, player=[5, 3], heading=[0, 1], foes=pool([(5, 5), (5, 6)], vel=(0, -1), n=6))
    s, reward, done, _ = play(SQ, s, "FIRE", rate=0.0)  # t=1: the sharks rest this turn
    assert reward == 0 and not done  # the torpedo ran (5, 3) -> (5, 5): the first shark is gone
    assert grid(SQ, s) == sea({(5, 3): "⇒", (5, 6): "◄"})
    s, *_ = play(SQ, s, "FIRE", rate=0.0)  # t=2: the shark swims to (5, 5); the torpedo meets it
    assert grid(SQ, s) == sea({(5, 3): "⇒"}) and int(entities.count(s.foes)) == 0


def test_seaquest__no_torpedo_from_the_surface_and_it_runs_two_columns_the_way_you_face():
    s, *_ = play(SQ, start(SQ, t=1, player=[0, 6]), "FIRE", rate=0.0)
    assert not bool(s.shots.alive.any())
    s, *_ = play(SQ, start(SQ, t=1, player=[2, 6], heading=[0, -1]), "FIRE", rate=0.0)
    assert grid(SQ, s) == sea({(2, 6): "⇐", (2, 4): "—"})


def test_seaquest__a_shark_swimming_onto_you_kills_you():
    s = start(SQ, t=0, player=[4, 5], foes=pool([(4, 6)], vel=(0, -1), n=6))
    _, reward, done, msg = play(SQ, s, "NOOP", rate=0.0)
    assert done and reward == -1.0 and msg == "A shark got you or your air ran out. Game over."


def test_seaquest__oxygen_runs_out_under_water_and_refills_on_the_surface():
    s = start(SQ, t=1, player=[3, 3], phase=1)
    _, reward, done, msg = play(SQ, s, "NOOP", rate=0.0)
    assert done and reward == -1.0
    s, reward, done, _ = play(SQ, start(SQ, t=1, player=[1, 3], phase=2), "UP", rate=0.0)
    assert not done and reward == 0 and int(s.phase) == 36 and s.player.tolist() == [0, 3]


def test_seaquest__the_fourth_diver_wins():
    s = start(SQ, t=1, player=[6, 6], foes=pool([(6, 7)], vel=(0, -1), kinds=[1], n=6), score=3)
    _, reward, done, msg = play(SQ, s, "RIGHT", rate=0.0)
    assert done and reward == pytest.approx(1 / 4) and msg == "You reached the target. You win!"
