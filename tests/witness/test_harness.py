"""The WITNESS harness memory protocol and plan executor with scripted fake models."""

from __future__ import annotations

import json

from glyphjax.witness.engine import Witness
from glyphjax.witness.harness import RuleMemory, play
from glyphjax.witness.layout import Level, game_params

LEVEL = Level(board=("S..", "...", "..E"), rules=("hexagon",), solution=(3, 3, 1, 1))


def _env(levels=(LEVEL,)):
    return Witness("witness/test-harness", game_params(list(levels), (0, 1, 2, 3)), "fixture")


def _script(*replies):
    """A fake model answering the given replies in turn (then repeating the last)."""
    calls = []

    def model(prompt: str) -> str:
        calls.append(prompt)
        return json.dumps(replies[min(len(calls) - 1, len(replies) - 1)])
    return model, calls


def test_memory__at_most_two_adds_per_reflection_each_with_two_observations():
    mem = RuleMemory()
    mem.apply([{"op": "add", "rule": "a", "evidence": [0, 1]}, {"op": "add", "rule": "b", "evidence": [1]},
               {"op": "add", "rule": "c", "evidence": [2, 3]}, {"op": "add", "rule": "d", "evidence": [0, 3]}], known=4)
    assert [r.text for r in mem.rules.values()] == ["a", "c"] and mem.refused_ops == 2
    mem.apply([{"op": "add", "rule": "e", "evidence": [0, 9]}], known=4)  # observation 9 does not exist
    assert len(mem.rules) == 2 and mem.refused_ops == 3


def test_memory__counter_evidence_reaching_support_deletes_the_rule():
    mem = RuleMemory()
    mem.apply([{"op": "add", "rule": "A1 moves up", "evidence": [0, 1]}], known=6)
    mem.apply([{"op": "support", "id": 1, "evidence": [2]}, {"op": "counter", "id": 1, "evidence": [3, 4]}], known=6)
    assert mem.rules[1].support == {0, 1, 2} and mem.rules[1].counter == {3, 4}
    mem.apply([{"op": "counter", "id": 1, "evidence": [5]}], known=6)
    assert 1 not in mem.rules


def test_plan__abandoned_after_three_consecutive_noops_then_a_new_call():
    model, calls = _script({"plan": ["A1"] * 16}, {"action": "A4"})  # A1 = up from row 0: refused
    state, log = play(_env(), model, call_budget=2)
    assert log.actions == [0, 0, 0, 3] and log.abandoned_plans == 1 and log.calls == 2


def test_plan__longer_than_16_actions_is_cut_and_memory_survives_levels():
    add = [{"op": "add", "rule": "H must be covered", "evidence": [0, 1]}]
    solve = ["A4", "A4", "A2", "A2", "CONFIRM"]
    model, calls = _script({"plan": ["A4", "A3"] * 10}, {"memory_ops": add, "plan": ["RESET"] + solve},
                           {"plan": solve})
    state, log = play(_env((LEVEL, LEVEL)), model)
    assert len(log.actions) == 16 + 6 + 5 and bool(state.solved[:2].all())
    assert "H must be covered" in calls[2]  # shown again on level 2
    assert [r.text for r in log.memory.rules.values()] == ["H must be covered"]


def test_budget__the_run_stops_at_exactly_the_call_budget():
    def garbage(prompt: str) -> str:
        return "I will think about it"
    state, log = play(_env(), garbage, call_budget=7)
    assert log.calls == 7 and log.parse_failures == 7 and log.actions == [] and not bool(state.done)


def test_memory__a_scripted_models_ops_through_play_are_limited_supported_and_deleted():
    explore = {"plan": ["A4", "A3", "A4", "A3"]}  # moved, retracted, moved, retracted: observations 0-3
    adds = {"memory_ops": [{"op": "add", "rule": "a", "evidence": [0, 1]},
                           {"op": "add", "rule": "one observation", "evidence": [2]},
                           {"op": "add", "rule": "unknown id", "evidence": [0, 99]},
                           {"op": "add", "rule": "d", "evidence": [2, 3]},
                           {"op": "add", "rule": "third add", "evidence": [1, 2]}], "action": "A4"}
    weigh = {"memory_ops": [{"op": "support", "id": 1, "evidence": [2]},
                            {"op": "counter", "id": 2, "evidence": [0]}], "action": "A3"}
    delete = {"memory_ops": [{"op": "counter", "id": 2, "evidence": [4]}],
              "plan": ["A4", "A4", "A2", "A2", "CONFIRM"]}
    model, calls = _script(explore, adds, weigh, delete)
    state, log = play(_env(), model)
    assert bool(state.done) and log.calls == 4
    assert "Rule memory:\n[1] a (support 2, counter 0)\n[2] d (support 2, counter 0)" in calls[2]
    assert "[1] a (support 3, counter 0)\n[2] d (support 2, counter 1)" in calls[3]
    assert list(log.memory.rules) == [1] and log.memory.rules[1].support == {0, 1, 2}
    assert log.memory.refused_ops == 3  # one observation, an unknown id, a third add


def test_notices__ten_unchanged_actions_and_95_percent_of_the_budget():
    model, calls = _script({"action": "A1"})  # up from row 0: refused every time
    state, log = play(_env(), model, call_budget=290)
    assert log.calls == 290 and int(state.used) == 290 and not bool(state.done)
    switch = "10 actions in a row changed nothing"
    assert switch not in calls[9] and switch in calls[10]
    assert "over 95%" not in calls[285] and "over 95%" in calls[286]  # 286 of 300 used
