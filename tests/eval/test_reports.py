"""Reports: trailing means and suite tables against hand-computed values; figures are written."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from eval.benchmark import results_document, write_json
from eval.reports import curve_points, eval_change, eval_interval, make_report, suite_rows, trailing_mean
from eval.results import TaskResult


def tr(task, returns, lengths=None, tokens=None):
    n = len(returns)
    kw = {}
    if tokens is not None:
        kw = dict(prompt_tokens=[tokens] * n, completion_tokens=[10] * n, turns=[1] * n,
                  parse_failures=[0] * n, completion_truncations=[0] * n)
    return TaskResult(task=task, seeds=list(range(n)), returns=returns, lengths=lengths or [5] * n,
                      terminated=[True] * n, truncated=[False] * n, success=[False] * n, **kw)


def test_trailing_mean__hand_computed():
    np.testing.assert_allclose(trailing_mean([1, 2, 3, 4, 5], window=2), [1, 1.5, 2.5, 3.5, 4.5])
    np.testing.assert_allclose(trailing_mean([0, 0, 3], window=512), [0, 0, 1])


def test_curve_points__peak_and_final_from_episode_returns():
    train = [{"kind": "train", "update": 1, "returns": [0.0, 1.0]},
             {"kind": "train", "update": 2, "returns": [1.0, 1.0]},
             {"kind": "train", "update": 3, "returns": [0.0, 0.0]}]
    c = curve_points(train, window=2)
    np.testing.assert_allclose(c["trailing"], [0, 0.5, 1, 1, 0.5, 0])
    assert c["peak"] == 1.0 and c["final"] == 0.0
    np.testing.assert_array_equal(c["batch_x"], [2, 4, 6])
    np.testing.assert_allclose(c["batch_y"], [0.5, 1.0, 0.0])


def test_eval_change__paired_difference_of_two_held_out_evaluations():
    """Before/after of one run's held-out evaluations on the same seeds: per-episode differences
    (0.5, 0.5, 0.5, 0.5) -> +0.5 with an interval of exactly [0.5, 0.5]; (1, 0, 0, 0) -> +0.25 with
    [0, 0.75]: a resample holds Binomial(4, 1/4) ones, P(0) = 0.32 > 2.5% and P(4) = 0.004 < 2.5%."""
    first = {"update": 0, "per_task": {"t": 0.0}, "seeds": [7, 8, 9, 10], "returns": [0.0, 0.0, 0.5, 0.0]}
    last = dict(first, update=60, returns=[0.5, 0.5, 1.0, 0.5])
    ch = eval_change(first, last)
    assert (ch["from_update"], ch["to_update"], ch["episodes"]) == (0, 60, 4)
    assert ch["mean_difference"] == pytest.approx(0.5) and ch["difference_ci"] == pytest.approx([0.5, 0.5])
    ch = eval_change(first, dict(last, returns=[1.0, 0.0, 0.5, 0.0]))
    assert ch["mean_difference"] == pytest.approx(0.25)
    assert ch["difference_ci"] == pytest.approx([0.0, 0.75])  # 0 of 4 ones drawn .. 3 of 4 (p(4 of 4) < 2.5%)
    assert eval_change(first, dict(last, seeds=[1, 2, 3, 4])) is None  # not the same episodes
    assert eval_change(dict(first, per_task={"a": 0, "b": 0}), last) is None  # tasks weigh equally, not episodes
    lo, hi = eval_interval(last)
    assert lo <= 0.625 <= hi and eval_interval({"return_mean": 0.3}) is None


def test_report__suite_table_and_figures(tmp_path):
    a = {"a/x": tr("a/x", [1.0, 0.0], tokens=100), "a/y": tr("a/y", [0.0, 0.0], tokens=100),
         "b/z": tr("b/z", [0.5, 0.5], lengths=[9, 11], tokens=300)}
    b = {"a/x": tr("a/x", [0.0, 0.0]), "a/y": tr("a/y", [1.0, 1.0]), "b/z": tr("b/z", [0.0, 1.0])}
    write_json(tmp_path / "m1.json", results_document({"model": a}, n_resamples=200))
    write_json(tmp_path / "m2.json", results_document({"model": b}, n_resamples=200))
    table = suite_rows({"m1": a, "m2": b}, n_resamples=200)
    assert table["a"]["m1"]["score"] == pytest.approx(0.25) and table["a"]["m2"]["score"] == pytest.approx(0.5)
    assert table["all"]["m1"]["score"] == pytest.approx((0.25 + 0.5) / 2)
    assert table["all"]["m2"]["score"] == pytest.approx((0.5 + 0.5) / 2)
    assert table["b"]["m1"]["mean_length"] == pytest.approx(10.0)
    assert table["b"]["m1"]["tokens"] == pytest.approx(310.0) and table["b"]["m2"]["tokens"] is None
    metrics = tmp_path / "snake" / "metrics.jsonl"
    metrics.parent.mkdir()
    metrics.write_text("\n".join(json.dumps(r) for r in [
        {"kind": "train", "update": 1, "returns": [0.1, 0.2], "return_mean": 0.15},
        {"kind": "eval", "update": 1, "return_mean": 0.3},
        {"kind": "train", "update": 2, "returns": [0.3, 0.4], "return_mean": 0.35}]) + "\n")
    report = make_report([tmp_path / "m1.json", tmp_path / "m2.json"], [metrics], tmp_path / "out",
                         window=2, n_resamples=200)
    text = report.read_text()
    assert "| **all (suites equal)** | 0.375" in text and "| snake | 4 | 0.350 | 0.350 |" in text
    # paired: a/x +0.5, a/y -1.0, b/z 0.0 -> suites a -0.25, b 0 -> overall -0.125
    assert "m1:model minus m2:model" in text and "**-0.125**" in text and "| a/y | -1.000 [-1.000, -1.000] |" in text
    for name in ("return_distributions", "length_and_tokens", "learning_curves"):
        png = (tmp_path / "out" / f"{name}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 2000, name
        ET.parse(tmp_path / "out" / f"{name}.svg")  # well-formed SVG
