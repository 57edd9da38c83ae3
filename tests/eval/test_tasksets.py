"""Task sets from config: globs, suites, track filter, exclusions, and errors naming close ids."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import glyphjax
from eval.tasksets import resolve_tasks, tasks_from_config


def test_tasksets__glob_exclude_and_order():
    assert resolve_tasks(["classics/snake-*"], exclude=["*-hard"]) == ["classics/snake-easy", "classics/snake-medium"]
    assert resolve_tasks(["dummy/arrow-4", "dummy"]) == ["dummy/arrow-4", "dummy/arrow-1"]


def test_tasksets__standard_track_excludes_dummy():
    ids = resolve_tasks(["*"], track="standard", exclude=["dummy/*"])
    assert "classics/snake-easy" in ids and not any(i.startswith("dummy/") for i in ids)


def test_tasksets__unknown_id_names_close_ids():
    with pytest.raises(glyphjax.UnknownTaskError, match="classics/snake-easy"):
        resolve_tasks(["classics/snake-esy"])
    with pytest.raises(glyphjax.UnknownTaskError, match="selects no registered task"):
        resolve_tasks(["dummy/*"], exclude=["dummy/*"])


@pytest.mark.parametrize("name", ["classics", "standard"])
def test_tasksets__single_agent_sets_leave_out_the_two_seat_games(name):
    cfg = yaml.safe_load((Path(__file__).parents[2] / "conf" / "tasks" / f"{name}.yaml").read_text())
    ids = tasks_from_config(cfg)
    multi = [t for t in ids if glyphjax.make(t).card.num_players > 1]
    assert not multi, f"task set {name} holds multi-seat games {multi}"
    assert "classics/connectfour" in ids and "classics/tron" in ids
