"""The trap generator: its exact random-play screen (hand-computed win probabilities of a two-cell
level, agreement with the forge's vmapped random play), and walls+symmetry candidates passing the
host filters where the planted generator's do not."""

from __future__ import annotations

import math

import numpy as np

from glyphjax.witness.layout import Level
from glyphjax.witness.trap import random_win_probability

UP, DOWN, LEFT, RIGHT = range(4)


def test_random_win_probability__two_cell_level_by_hand():
    level = Level(board=("SE", "##"), rules=())  # the walls only refuse moves down
    # budget 1: a single action cannot move and confirm
    assert random_win_probability(level, budget=1) == 0.0
    # budget 2: RIGHT then CONFIRM
    assert math.isclose(random_win_probability(level, budget=2), 1 / 36)
    # budget 3: R C (any third), or a non-R first action then R C (RESET and CONFIRM at S change
    # nothing), or R, a refused move at E (up, down, right), C
    want = 1 / 36 + (5 / 6) * (1 / 36) + (1 / 6) * (3 / 6) * (1 / 6)
    assert math.isclose(random_win_probability(level, budget=3), want)


def test_random_win_probability__over_its_state_limit_is_unknown():
    assert random_win_probability(Level(board=(".....", "S...E", "....."), rules=()), max_states=10) is None


def test_random_win_probability__matches_the_forges_vmapped_random_play():
    from glyphjax.witness import forge
    level = Level(board=("S..", ".#.", "H.E"), rules=("hexagon", "walls"), edges=((0, 1, RIGHT), (0, 2, LEFT)))
    p = random_win_probability(level)
    n = forge.PRESCREEN_EPISODES
    wins = forge.random_win_counts([level], n)[0]
    sd = math.sqrt(n * p * (1 - p))
    assert 0.02 < p < 0.98 and abs(wins - n * p) <= 5 * sd, (wins, n * p, sd)
    assert np.isfinite(p)


def test_trap_candidate__walls_symmetry_levels_pass_the_host_filters_and_strand_every_greedy_walk():
    from glyphjax.witness import forge, solver
    from glyphjax.witness.games import Slot
    from glyphjax.witness.trap import SCREEN_WINS, trap_candidate
    slot = Slot("accumulate", ("symmetry", "walls"), (5, 5))
    levels = [trap_candidate(slot, np.random.default_rng([3, j])) for j in range(3)]
    passing = [lv for lv in levels if lv is not None and forge.first_failed_filter(lv, set())[0] is None]
    assert len(passing) >= 2, "trap walls+symmetry candidates should mostly pass the host filters"
    for lv in passing:
        assert forge.greedy_wins(lv) == 0 and solver.optimal_actions(lv) >= forge.MIN_DEPTH
        assert random_win_probability(lv) * forge.RANDOM_EPISODES <= SCREEN_WINS
    # the planted generator's candidates for the same slot: none passes (depth or greedy/necessity)
    planted = [forge.make_candidate(slot, np.random.default_rng([3, j])) for j in range(6)]
    assert all(lv is None or forge.first_failed_filter(lv, set())[0] is not None for lv in planted)
