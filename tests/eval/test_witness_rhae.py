"""RHAE on hand-computed worked examples (witness.md §7: L = 5, h = [10, 12, 15, 20, 25], p = 2)."""

from __future__ import annotations

import numpy as np
import pytest

from eval.witness import Run, dataset_score, rhae, rhae_all, solved_slots

H = np.array([10, 12, 15, 20, 25] + [10] * 15)


def _run(solved_actions: dict[int, int], n_levels: int = 20, seed: int = 0, game: str = "g") -> Run:
    solved = np.zeros(20, bool)
    actions = np.zeros(20, int)
    for k, a in solved_actions.items():
        solved[k], actions[k] = True, a
    return Run(game, seed, solved, actions, H, n_levels)


def test_rhae__worked_example_one_level_failed_caps_by_completion():
    # e = [1.0, 0.25, 1.15 (12 < 15: (15/12)^2 = 1.5625 capped), 0, 0]: weighted 4.95/15, complete 6/15
    run = _run({0: 10, 1: 24, 2: 12})
    assert rhae(run, 5) == pytest.approx(100 * 4.95 / 15)
    assert round(rhae(run, 5), 1) == 33.0


def test_rhae__over_efficient_levels_capped_at_1_15_and_by_completion():
    run = _run({0: 5, 1: 6, 2: 7, 3: 10})  # all four faster than reference: e = 1.15 each
    assert round(rhae(run, 5), 1) == 66.7  # min(11.5/15, 10/15)
    run = _run({0: 5, 1: 6, 2: 7, 3: 10, 4: 12})
    assert rhae(run, 5) == pytest.approx(100.0)


def test_rhae__unreached_levels_score_zero_and_l20_weights_every_level():
    run = _run({k: int(H[k]) for k in range(5)})  # first five at reference, the rest unreached
    assert rhae(run, 5) == pytest.approx(100.0)
    assert rhae(run, 20) == pytest.approx(100 * 15 / 210)  # sum 1..5 over sum 1..20
    assert rhae(_run({}), 5) == 0.0


def test_rhae__all_twenty_at_reference_then_level_ten_unsolved_l5_vs_l20():
    run = _run({k: int(H[k]) for k in range(20)})  # every level at its reference count: e = 1 each
    assert rhae(run, 5) == pytest.approx(100.0) and rhae(run, 20) == pytest.approx(100.0)
    run = _run({k: int(H[k]) for k in range(20) if k != 9})  # level 10 unsolved: outside L5's window
    assert rhae(run, 5) == pytest.approx(100.0)
    assert rhae(run, 20) == pytest.approx(100 * 200 / 210)  # (210 - 10) / sum 1..20
    assert round(rhae(run, 20), 1) == 95.2


def test_rhae__games_shorter_than_the_window_weigh_only_their_levels():
    run = _run({0: 10, 1: 12, 2: 15}, n_levels=3)
    assert rhae(run, 5) == pytest.approx(100.0) and rhae(run, 20) == pytest.approx(100.0)
    assert rhae(run, 5, p=1.0) == pytest.approx(100.0)
    half = _run({0: 20}, n_levels=1)  # (10/20)^p
    assert rhae(half, 5, p=1.0) == pytest.approx(50.0) and rhae(half, 5) == pytest.approx(25.0)


def test_dataset_score__mean_over_games_per_seed_then_mean_and_std_over_seeds():
    runs = [_run({0: 20}, 1, seed=0, game="a"), _run({}, 1, seed=0, game="b"),  # seed 0: (25 + 0) / 2
            _run({0: 10}, 1, seed=1, game="a"), _run({0: 10}, 1, seed=1, game="b")]  # seed 1: 100
    mean, std = dataset_score(runs, 5)
    assert mean == pytest.approx((12.5 + 100) / 2) and std == pytest.approx(np.std([12.5, 100], ddof=1))
    assert solved_slots(runs) == (3, 80)


def test_rhae__slot_count_of_the_test_split_is_17_x_5_x_20():
    from glyphjax.witness.games import GAMES
    test_games = [g for g in GAMES if g.split == "test"]
    runs = [_run({}, seed=s, game=g.name) for g in test_games for s in range(5)]
    assert solved_slots(runs) == (0, 1700)


def test_rhae_all__one_vectorised_call_equals_each_run_alone():
    runs = [_run({0: 10, 1: 24, 2: 12}), _run({0: 20}, 1), _run({}), _run({k: 9 for k in range(20)}, 7),
            _run({0: 10, 3: 40}, 5)]
    for window in (5, 20):
        np.testing.assert_allclose(rhae_all(runs, window), [rhae(r, window) for r in runs], rtol=1e-6)
    assert rhae_all([], 5).shape == (0,)
