"""Text rendering and the prompt harness."""

from __future__ import annotations

import numpy as np
import pytest

import glyphjax
from glyphjax.core.types import Frame, TaskCard
from glyphjax.harness.prompt import HarnessConfig, system_prompt, turn_message
from glyphjax.render.text import grid_strings, render_batch

CARD = TaskCard(id="test/card", rules="Rules here.", actions=("A", "B"), action_descriptions=("do a", "do b"),
                glyphs={"#": "wall", ".": "floor", "@": "you"}, hud="Step: {step} / {max_steps}  Item: {item}",
                hud_fields=("item",), hud_enums={"item": ("nothing", "key")}, max_steps=10,
                reward="+1 at the end.", events=("", "Boom."))


def _codes(rows):
    return np.array([[ord(c) for c in r] for r in rows], np.uint32)


def test_render__grid_strings_equal_a_plain_join():
    rng = np.random.default_rng(0)
    alphabet = np.array([ord(c) for c in "#.@█·▲é"], np.uint32)
    grids = alphabet[rng.integers(0, len(alphabet), size=(50, 7, 9))]
    out = grid_strings(grids)
    for g, s in zip(grids, out):
        assert s == "\n".join("".join(chr(c) for c in row) for row in g)


def test_render__grid_labels_number_columns_and_rows():
    g = _codes(["#" * 12] * 11)
    s = str(grid_strings(g, labels=True)[0]).split("\n")
    assert s[0] == "   012345678901"
    assert s[1] == " 0 ############" and s[11] == "10 ############"


def test_render__observation_sections_legend_hud_message():
    frames = Frame(grid=np.stack([_codes(["###", "#@.", "###"]), _codes(["###", "#..", "###"])]),
                   hud=np.array([[3, 1], [4, 0]], np.int32), event=np.array([1, 0], np.int32))
    a, b = render_batch(CARD, frames)
    assert a.render() == ("[Legend]\n# — wall\n. — floor\n@ — you\n\n[HUD]\nStep: 3 / 10  Item: key\n\n"
                          "[Grid]\n###\n#@.\n###\n\n[Message]\nBoom.")
    assert "@ — you" not in b.legend and b.message == "" and "[Message]" not in b.render()


def test_render__unknown_glyph_is_a_renderer_bug():
    frames = Frame(grid=_codes(["#X#"])[None], hud=np.array([[0, 0]], np.int32), event=np.array([0]))
    with pytest.raises(ValueError, match="no legend entry"):
        render_batch(CARD, frames)


def test_harness__system_prompt_has_rules_actions_reward_and_format():
    env = glyphjax.make("classics/snake-easy")
    p = system_prompt(env.card)
    assert env.card.rules in p and env.card.reward in p
    for name, desc in zip(env.card.actions, env.card.action_descriptions):
        assert f"- {name}: {desc}" in p
    assert "<action>ACTION_NAME</action>" in p and "200 turns" in p
    assert p == system_prompt(env.card)  # static per episode


def test_harness__turn_message_history_and_memory():
    msg = turn_message("OBS3", history=[("OBS1", "UP"), ("OBS2", "LEFT")], memory="note")
    assert msg.index("[Memory]\nnote") < msg.index("OBS1") < msg.index("OBS2") < msg.index("OBS3")
    assert "2 turns ago" in msg and "1 turn ago" in msg and "Your action: LEFT" in msg
    with pytest.raises(ValueError, match="unknown harness"):
        HarnessConfig(name="fancy")


def test_harness__compact_system_prompt_is_short_and_keeps_rules_actions_format():
    env = glyphjax.make("dummy/arrow-1")
    compact = system_prompt(env.card, HarnessConfig(name="compact"))
    basic = system_prompt(env.card)
    assert env.card.rules in compact and "Actions: UP, DOWN, LEFT, RIGHT." in compact
    assert "<action>ACTION_NAME</action>" in compact
    assert "[Legend]" not in compact and env.card.action_descriptions[0] not in compact  # the long parts dropped
    assert len(compact) < len(basic) / 2, (len(compact), len(basic))
    assert basic == system_prompt(env.card, HarnessConfig(name="basic"))  # basic unchanged by the new variant
    with pytest.raises(ValueError, match="unknown harness"):
        HarnessConfig(name="tiny")
