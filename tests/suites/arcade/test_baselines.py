"""Every arcade id's scripted baseline beats random play and wins at least once (issue 18's
"Must hold"), as recorded in eval/baselines.json over its held-out seeds (>= 1,000); one cheap
id is recomputed to show the stored figures are current."""

from __future__ import annotations

import pytest

import glyphjax
from eval import baselines
from eval.seeds import eval_seeds


@pytest.fixture(scope="module")
def stored():
    return baselines.load()


def test_baselines__every_arcade_id_scripted_beats_random_and_wins_at_least_once(stored):
    ids = glyphjax.task_ids(["miniatari/*", "atari/*"])
    assert len(ids) == 100 and stored["seeds"]["count"] >= 1000
    missing = [t for t in ids if t not in stored["tasks"] or stored["tasks"][t]["scripted"] is None]
    assert not missing, f"no scripted baseline for {missing} (python -m eval.baselines --tasks ...)"
    worse = [t for t in ids
             if stored["tasks"][t]["scripted"]["mean_return"] <= stored["tasks"][t]["random"]["mean_return"]]
    never = [t for t in ids if stored["tasks"][t]["scripted"]["success_rate"] * stored["seeds"]["count"] < 1]
    assert not worse, f"scripted mean not above random's: {worse}"
    assert not never, f"scripted play never wins: {never}"


def test_baselines__a_fresh_computation_reproduces_an_arcade_entry(stored):
    task = "miniatari/freeway"
    fresh = baselines.compute([task], eval_seeds(stored["seeds"]["count"]))[task]
    for policy in baselines.POLICIES:
        for key in ("mean_return", "success_rate", "mean_length"):
            assert fresh[policy][key] == pytest.approx(stored["tasks"][task][policy][key], rel=1e-6, abs=1e-9), \
                f"{task} {policy} {key} (python -m eval.baselines --tasks {task})"
