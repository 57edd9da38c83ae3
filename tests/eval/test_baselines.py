"""eval/baselines.json is generated data: a fresh computation reproduces it."""

from __future__ import annotations

import pytest

import glyphjax
from eval import baselines
from eval.seeds import EVAL_SEED_START, eval_seeds

CHECKED = ["classics/snake-easy", "dummy/arrow-4", "classics/maze-easy", "minigrid/memory-s7"]  # maze, memory: outcome success


@pytest.fixture(scope="module")
def stored():
    return baselines.load()


def test_baselines__stored_file_matches_fresh_computation(stored):
    assert stored["glyphjax_version"] == glyphjax.__version__, "regenerate: python -m eval.baselines"
    assert stored["seeds"]["start"] == EVAL_SEED_START and stored["seeds"]["count"] >= 1000
    seeds = eval_seeds(stored["seeds"]["count"])
    fresh = baselines.compute(CHECKED, seeds)
    for task in CHECKED:
        assert task in stored["tasks"], f"{task} missing from eval/baselines.json"
        for policy in baselines.POLICIES:
            want, got = stored["tasks"][task][policy], fresh[task][policy]
            if want is None or got is None:  # no scripted policy
                assert want is got, f"{task} {policy}: stored {want} vs fresh {got}"
                continue
            for key in ("mean_return", "success_rate", "mean_length"):
                assert got[key] == pytest.approx(want[key], rel=1e-6, abs=1e-9), \
                    f"{task} {policy} {key}: stored {want[key]} vs fresh {got[key]} (python -m eval.baselines)"


def test_baselines__normalisation_maps_random_to_0_and_reference_to_1(stored):
    b = stored["tasks"]["classics/snake-easy"]
    r, s = b["random"]["mean_return"], b["scripted"]["mean_return"]
    assert s > r, "the greedy Snake baseline beats random play"
    assert baselines.normalised_return("classics/snake-easy", r, stored) == pytest.approx(0.0)
    assert baselines.normalised_return("classics/snake-easy", s, stored) == pytest.approx(1.0)
    assert baselines.normalised_return("classics/snake-easy", (r + s) / 2, stored) == pytest.approx(0.5)
    # the arrow oracle answers perfectly: its reference is the scripted mean 1.0
    a = stored["tasks"]["dummy/arrow-4"]
    assert a["scripted"]["mean_return"] == pytest.approx(1.0) and a["random"]["mean_return"] == pytest.approx(0.25, abs=0.02)


def test_baselines__fresh_recomputes_the_named_tasks_and_keeps_the_others(tmp_path):
    import json
    path = tmp_path / "b.json"
    tasks = ["dummy/arrow-1", "dummy/arrow-4"]
    assert baselines.main(["--tasks", *tasks, "--seeds", "64", "--out", str(path)]) == 0
    doc = json.loads(path.read_text())
    right = doc["tasks"]["dummy/arrow-4"]["random"]["mean_return"]
    for t in tasks:  # stale values, as after a change of the tasks' levels
        doc["tasks"][t]["random"]["mean_return"] = -7.0
    path.write_text(json.dumps(doc))
    assert baselines.main(["--tasks", "dummy/arrow-4", "--seeds", "64", "--out", str(path)]) == 0
    kept = json.loads(path.read_text())["tasks"]
    assert kept["dummy/arrow-4"]["random"]["mean_return"] == -7.0, "without --fresh a stored task is kept"
    assert baselines.main(["--tasks", "dummy/arrow-4", "--seeds", "64", "--out", str(path), "--fresh"]) == 0
    new = json.loads(path.read_text())["tasks"]
    assert new["dummy/arrow-4"]["random"]["mean_return"] == pytest.approx(right), "--fresh recomputes it"
    assert new["dummy/arrow-1"]["random"]["mean_return"] == -7.0, "--fresh keeps the tasks it was not given"
