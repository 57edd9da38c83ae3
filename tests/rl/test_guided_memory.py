"""harness=guided_memory (glyphjax/harness/guided.py): update cadence (every fifth move and after
events), memory contents and size caps, landmarks keyed by floor, floor guidance, garbage update
replies (memory kept, counted, no crash). A scripted fake model plays dummy/arrow shells."""

from __future__ import annotations

import dataclasses
import json

import jax.numpy as jnp
import pytest

from glyphjax.harness import guided
from glyphjax.harness.prompt import HarnessConfig, system_prompt
from glyphjax.suites.dummy.arrow import Arrow
from rl.policies.base import Completion
from rl.rollout import run_rollouts

TURNS = 20


class FloorArrow(Arrow):
    """dummy/arrow over 20 turns with scripted Craftax-like signals, by steps taken t: health 9
    falls to 7 at t = 3 (damage after move 2), floor 0 -> 1 at t = 7 (after move 6), one
    achievement at t = 12 (after move 11)."""

    def memory_signals(self, state, params=None):
        t = state.t
        return jnp.stack([(t >= 7).astype(jnp.float32), jnp.where(t >= 3, 7.0, 9.0),
                          (t >= 12).astype(jnp.float32)])

    def floor_name(self, floor):
        return ("the meadow", "the cellar")[floor]

    def floor_guidance(self, floor):
        return f"guidance for floor {floor}"


class ScriptedModel:
    """Answers UP on play turns; update calls get `updates[k]` (k counts update calls)."""

    name = "scripted"

    def __init__(self, updates):
        self.updates = list(updates)
        self.play_users: list[str] = []
        self.update_users: list[str] = []

    def complete(self, conversations, sampling):
        out = []
        for conv in conversations:
            last = conv[-1]["content"]
            if "Update your guided memory" in last:
                self.update_users.append(last)
                text = self.updates[len(self.update_users) - 1]
            else:
                self.play_users.append(last)
                text = "<action>UP</action>"
            out.append(Completion(text, [1], [2], [-0.1], "stop"))
        return out


def _memory(**fields) -> str:
    return f"<memory>{json.dumps(fields)}</memory>"


def _updated_turns(rec) -> list[int]:
    return [t.t for t in rec.turns if t.memory_update is not None]


def test_guided_memory__updates_every_fifth_move_and_after_each_event_with_landmarks_by_floor():
    model = ScriptedModel([
        _memory(plan=["find the ladder"], landmarks=["lake west"], exploration="start area"),  # after move 2 (floor 0)
        _memory(landmarks=["ladder up here"]),  # after move 6: now on floor 1
        "I think I should go left. {plan: oops",  # after move 11: garbage, memory kept
        _memory(plan=["a", "b"], exploration="cellar half seen"),  # after move 16 (five moves later)
    ])
    rec, = run_rollouts(model, [("dummy/arrow-4", 3)], HarnessConfig(name="guided_memory"),
                        envs={"dummy/arrow-4": FloorArrow(TURNS)})
    assert rec.harness == "guided_memory" and rec.length == TURNS
    # damage after move 2, floor change after 6, achievement after 11, then five moves: 16
    assert _updated_turns(rec) == [2, 6, 11, 16]
    assert "you took damage (health 9 -> 7)" in model.update_users[0]
    assert "you moved from floor 0 to floor 1" in model.update_users[1]
    assert "you unlocked 1 achievement" in model.update_users[2]
    assert model.update_users[3].startswith("Update your guided memory")  # scheduled: no event named
    assert rec.memory_updates == 3 and rec.memory_failures == 1

    shown = {t.t: t.memory for t in rec.turns}
    assert shown[0].startswith("Floor: floor 0 (the meadow)\nGuidance: guidance for floor 0")
    assert "(none yet)" in shown[0] and "Recent actions: (none yet)" in shown[0]
    # after the first update: plan, floor-0 landmark, summary
    assert "1. find the ladder" in shown[3] and "floor 0 (the meadow): lake west" in shown[3]
    assert "Exploration: start area" in shown[3]
    # on floor 1: its guidance; its landmark listed first, floor 0's kept under its own key
    assert shown[7].startswith("Floor: floor 1 (the cellar)\nGuidance: guidance for floor 1")
    assert shown[7].index("floor 1 (the cellar): ladder up here") < shown[7].index("floor 0 (the meadow): lake west")
    assert shown[12] == shown[11]  # the garbage reply after move 11 kept the memory (recent: eight UPs in both)
    assert "1. find the ladder" in shown[12]
    assert "1. a\n  2. b" in shown[17] and "Exploration: cellar half seen" in shown[17]
    assert "lake west" in shown[17]  # a reply without landmarks keeps them
    # recent actions: the last eight, written by the harness
    assert "Recent actions: " + ", ".join(["UP"] * 8) + "\n" in shown[19]
    assert "Recent actions: UP, UP, UP\n" in shown[3]
    # the play prompt carries the block; the system prompt explains it
    assert all(u.startswith("[Memory]\nFloor: ") for u in model.play_users)
    assert "# Guided memory" in rec.system_prompt


def test_guided_memory__generic_form_on_a_task_without_floors():
    """No memory_signals: one floor key, generic guidance, and a nonzero reward is the event."""
    model = ScriptedModel([_memory(landmarks=[f"mark {k}"]) for k in range(TURNS)])
    rec, = run_rollouts(model, [("dummy/arrow-4", 7)], HarnessConfig(name="guided_memory"),
                        envs={"dummy/arrow-4": Arrow(TURNS)})
    expected, since = [], 0
    for turn in rec.turns[:-1]:  # no update after the last move (the episode is over)
        since += 1
        if turn.reward != 0 or since >= guided.UPDATE_EVERY:
            expected.append(turn.t)
            since = 0
    assert 0 < sum(t.reward != 0 for t in rec.turns) < TURNS  # both kinds of turn happened
    assert _updated_turns(rec) == expected
    last = rec.turns[-1].memory
    assert last.startswith(f"Floor: {guided.GENERIC_FLOOR}\nGuidance: {guided.GENERIC_GUIDANCE}")
    n = len(expected)
    kept = [f"mark {k}" for k in range(max(0, n - guided.MAX_LANDMARKS), n)]
    assert f"  {guided.GENERIC_FLOOR}: {'; '.join(kept)}\n" in last  # the newest MAX_LANDMARKS


def test_guided_memory__caps_and_block_limit():
    mem = guided.GuidedMemory(limit=300)
    assert mem.apply(_memory(plan=[f"step {i}" for i in range(9)], landmarks=["x" * 500],
                             exploration="y" * 900), "floor 0")
    assert mem.plans == [f"step {i}" for i in range(guided.MAX_PLANS)]
    assert len(mem.landmarks["floor 0"][0]) == guided.ITEM_CHARS and len(mem.exploration) == guided.SUMMARY_CHARS
    for k in range(12):
        mem.apply(_memory(landmarks=[f"l{k}", "l0"]), "floor 2")  # a repeat moves to the end, not twice
    assert mem.landmarks["floor 2"] == [f"l{k}" for k in range(5, 12)] + ["l0"]
    for k in range(20):
        mem.moved(f"A{k}")
    assert mem.recent == [f"A{k}" for k in range(12, 20)]
    text = mem.render("floor 2", "g")
    assert len(text) == 300 and text.endswith("...")
    assert len(dataclasses.replace(mem, limit=2000).render("floor 2", "g")) > 300  # the limit is what cut it


@pytest.mark.parametrize("reply", [
    None, "", "no tags at all", "<memory>not json</memory>", "<memory>[1, 2]</memory>",
    "<memory>{}</memory>", '<memory>{"mood": "good"}</memory>', '<memory>{"plan": {"a": 1}}</memory>',
    '<memory>{"plan": ["ok", ["nested"]]}</memory>', '<memory>{"exploration": 5}</memory>',
    '<memory>{"landmarks": [null]}</memory>', "<memory>" + "[" * 5000 + "</memory>",
    '<memory>{"plan": ["x"]', "<memory>\x00\xff{</memory>",
])
def test_guided_memory__unreadable_update_keeps_the_memory_and_is_counted(reply):
    mem = guided.GuidedMemory()
    assert mem.apply(_memory(plan=["keep me"], landmarks=["here"], exploration="so far"), "floor 0")
    before = mem.render("floor 0", "g")
    mem.since_update = 4
    assert mem.apply(reply, "floor 0") is False
    assert mem.render("floor 0", "g") == before and mem.failures == 1 and mem.updates == 1
    assert mem.since_update == 0  # the schedule restarts either way


def test_guided_memory__reads_the_last_block_fenced_json_and_lone_strings():
    got = guided.parse_update('<memory>{"plan": ["old"]}</memory> then <memory>```json\n'
                              '{"plan": "one step", "landmarks": ["a", 3]}\n```</memory>')
    assert got == {"plan": ["one step"], "landmarks": ["a", "3"]}


def test_harness_config__guided_memory_is_a_harness_with_a_preset():
    from hydra import compose, initialize_config_dir

    from eval.config import register_eval_schema
    from tests.rl.test_obs_format import CONF
    assert HarnessConfig(name="guided_memory").guided and not HarnessConfig(name="memory").guided
    assert "# Guided memory" not in system_prompt(Arrow(4).card, HarnessConfig(name="memory", memory=True))
    register_eval_schema()
    with initialize_config_dir(config_dir=str(CONF), version_base=None):
        cfg = compose(config_name="eval", overrides=["harness=guided_memory"])
    assert HarnessConfig(**cfg.harness).guided
