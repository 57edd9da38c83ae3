"""The train/test level protocol: split params pick disjoint level ranges, the gap report's
means and intervals, and clear errors for tasks without level sets."""

import numpy as np
import pytest

from eval.generalisation import gap_report, split_params
from eval.results import TaskResult
from glyphjax.suites.procgen.engine import TEST_LEVEL_START


def _result(task, returns):
    n = len(returns)
    return TaskResult(task=task, seeds=np.arange(n), returns=np.asarray(returns, np.float64),
                      lengths=np.ones(n, np.int64), terminated=np.ones(n, bool), truncated=np.zeros(n, bool),
                      success=None)


def test_split_params__train_and_test_level_ranges_are_disjoint():
    train, test = split_params("procgen/maze", "train", 50), split_params("procgen/maze", "test")
    assert (int(train.level_start), int(train.level_count)) == (0, 50)
    assert int(test.level_start) == TEST_LEVEL_START and int(test.level_count) == 2 ** 31 - TEST_LEVEL_START
    assert bool(split_params("procgen/maze-hard", "test").hard)


def test_split_params__a_task_without_levels_is_named():
    with pytest.raises(ValueError, match="classics/snake-easy has no level sets"):
        split_params("classics/snake-easy", "train")
    with pytest.raises(ValueError, match="split must be"):
        split_params("procgen/maze", "validation")


def test_gap_report__means_gap_and_interval():
    train = {"procgen/a": _result("procgen/a", [1.0] * 30 + [0.0] * 10),
             "procgen/b": _result("procgen/b", [0.5] * 40)}
    test = {"procgen/a": _result("procgen/a", [1.0] * 10 + [0.0] * 30),
            "procgen/b": _result("procgen/b", [0.5] * 40)}
    rep = gap_report(train, test, n_resamples=2000)
    a, b = rep["tasks"]["procgen/a"], rep["tasks"]["procgen/b"]
    assert (a["train"], a["test"], a["gap"]) == (0.75, 0.25, 0.5)
    assert 0.25 < a["gap_ci"][0] < 0.5 < a["gap_ci"][1] < 0.75
    assert b["gap"] == 0.0 and b["gap_ci"] == [0.0, 0.0]
    assert rep["mean_gap"] == 0.25 and rep["mean_gap_ci"][0] < 0.25 < rep["mean_gap_ci"][1]
    with pytest.raises(ValueError, match="same tasks"):
        gap_report(train, {"procgen/a": test["procgen/a"]})
