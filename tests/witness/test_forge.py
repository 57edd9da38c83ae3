"""The forge's candidate generators and its screened random-play filter (host side, no JAX)."""

from __future__ import annotations

import numpy as np

from glyphjax.witness import forge
from glyphjax.witness.games import Slot
from glyphjax.witness.layout import Level
from glyphjax.witness.planted import planted_candidate
from glyphjax.witness.reference import violations
from glyphjax.witness.solver import cells_of, without


def test_planted__squares_eliminator_levels_pass_the_host_filters_where_uniform_ones_never_do():
    slot = Slot("introduce", ("eliminator", "squares"), (4, 5))
    planted = [planted_candidate(slot, np.random.default_rng([7, j])) for j in range(12)]
    passing = [lv for lv in planted if lv is not None and forge.first_failed_filter(lv, set())[0] is None]
    assert len(passing) >= 3, "planted squares+eliminator candidates should often pass"
    for lv in passing:  # the optimum needs the eliminators: without them it is rejected
        sol = cells_of(lv, forge.solver.solve(lv))
        assert not violations(lv, sol) and violations(without(lv, "eliminator"), sol)
    uniform = [forge.candidate(slot, np.random.default_rng([7, j])) for j in range(4)]
    assert all(forge.first_failed_filter(lv, set())[0] == "depth" for lv in uniform)  # one % never cancels two squares


def test_screened_win_counts__full_run_only_for_levels_the_prescreen_does_not_reject(monkeypatch):
    levels = [Level(board=("S.", ".E"), rules=()), Level(board=("S..", "..E"), rules=()), Level(board=("S.E", "..."), rules=())]
    played = []
    table = {forge.PRESCREEN_EPISODES: [20, 3, 9], forge.RANDOM_EPISODES: {1: 30}}

    def fake(lvs, episodes=forge.RANDOM_EPISODES, sigmas=None):
        played.append((episodes, [levels.index(lv) for lv in lvs]))
        if episodes == forge.PRESCREEN_EPISODES:
            return table[episodes]
        return [table[episodes].get(levels.index(lv), 0) for lv in lvs]
    monkeypatch.setattr(forge, "random_win_counts", fake)
    assert forge.screened_win_counts(levels) == [20, 30, 9]
    assert played == [(forge.PRESCREEN_EPISODES, [0, 1, 2]), (forge.RANDOM_EPISODES, [1])]


def test_curriculum__20_levels_keep_the_schedule_audit_for_every_game():
    import pytest

    from glyphjax.witness.games import GAMES, curriculum
    for g in GAMES:
        slots = curriculum(g, 20)
        assert len(slots) == 20 and len(curriculum(g)) == 2 * len(g.primitives) + 1
        introduced, new_at = set(), []
        for k, s in enumerate(slots):
            if s.phase == "introduce":
                new_at += [k] * len(set(s.rules) - introduced)
                introduced |= set(s.rules)
            assert set(s.rules) <= introduced, f"{g.name} slot {k} requires an unintroduced rule"
        assert introduced == set(g.primitives) and slots[-1] == curriculum(g)[-1]  # ends on a full reinforce
        assert all(sum(k <= x < k + 5 for x in new_at) <= 2 for k in range(20)), f"{g.name}: > 2 new per 5 levels"
        assert any(s.phase == "reinforce" and set(s.rules) == set(g.primitives) for s in slots)
        for s in slots:  # hints hide symbols: introduced beside a primitive that has some (walls have none)
            assert s.phase != "introduce" or "hints" not in s.rules or set(s.rules) - {"hints", "walls"}, g.name
    with pytest.raises(ValueError, match="curriculum has"):
        curriculum(GAMES[0], 21)
