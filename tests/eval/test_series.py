"""Best-of-three series scoring (eval/series.py, gamesmith.md §6.2) on hand-worked games."""

from __future__ import annotations

import numpy as np
import pytest

from eval.series import game_score, series_scores, series_share


def test_game_score__return_sign_and_budget_overruns():
    assert [game_score(1.0), game_score(-1.0), game_score(0.0)] == [1.0, 0.0, 0.5]
    assert game_score(1.0, over_budget_a=3) == 0.0  # A ran to the budget: A loses whatever the board said
    assert game_score(-1.0, over_budget_b=5) == 1.0
    assert game_score(0.0, over_budget_a=4, over_budget_b=2) == 1.0  # B overran first
    assert game_score(0.0, over_budget_a=2, over_budget_b=2) == 0.0  # same turn: A, who moved first there, loses


def test_series_scores__seed_order_triples_drop_the_40th():
    # 40 games given out of order; seeds 0..39. A wins seeds 0-2, loses 3-5, then (win, draw, loss)
    # repeating, and the 40th (seed 39) is dropped.
    scores = {0: 1, 1: 1, 2: 0, 3: 0, 4: 0, 5: 1}
    pattern = [1.0, 0.5, 0.0]
    games = [(s, float(scores[s]) if s in scores else pattern[s % 3]) for s in range(40)]
    out = series_scores(list(reversed(games)))
    assert len(out) == 13
    assert out[0] == 1.0 and out[1] == 0.0  # (1,1,0) -> A; (0,0,1) -> B
    assert np.all(out[2:] == 0.5)  # one win, one draw, one loss each: tied series count 0.5


def test_series_share__pools_series_and_bootstraps_over_variants():
    games = {"v1": [(s, 1.0) for s in range(6)],            # 2 series won
             "v2": [(s, 0.0) for s in range(9)],            # 3 series lost
             "v3": [(0, 1.0), (1, 0.0)]}                    # no full series: left out
    got = series_share(games, n_resamples=2000)
    assert got["share"] == pytest.approx(2 / 5) and got["series"] == 5 and got["variants"] == 2
    assert got["per_variant"] == {"v1": 1.0, "v2": 0.0}
    lo, hi = got["ci95"]
    assert lo == pytest.approx(0.0) and hi == pytest.approx(1.0)  # resampling 2 variants: all-v2 .. all-v1
    with pytest.raises(ValueError, match="cannot form a series"):
        series_share({"v": [(0, 1.0)]})
