"""Text rendering and the prompt harness."""

from __future__ import annotations

import numpy as np
import pytest

import glyphjax
from glyphjax.core.types import Frame, TaskCard
from glyphjax.harness.prompt import HarnessConfig, system_prompt, turn_message
from glyphjax.render.text import grid_strings, observation_strings, observation_text, render_batch, render_text

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


def _plain_text(grid: np.ndarray, hud: list[int], event: int, card: TaskCard = CARD) -> str:
    """The observation written out by hand from the card's rules (the expected text, not the
    renderer's): the glyphs shown in code point order, the HUD template filled in (enum fields by
    name), the rows (for a labelled grid: column numbers mod 10 above, row numbers right-aligned
    on the left), the message when there is one."""
    shown = {chr(c) for c in grid.ravel()}
    legend = "\n".join(f"{g} — {m}" for g, m in sorted(card.glyphs.items()) if g in shown)
    values = {f: card.hud_enums[f][v] if f in card.hud_enums else v for f, v in zip(("step", *card.hud_fields), hud)}
    rows = ["".join(chr(c) for c in row) for row in grid]
    if card.grid_labels:
        pad = len(str(len(rows) - 1))
        rows = ([" " * (pad + 1) + "".join(str(c % 10) for c in range(grid.shape[1]))]
                + [f"{r:>{pad}} {row}" for r, row in enumerate(rows)])
    parts = ([f"[Legend]\n{legend}"] + ([f"[HUD]\n{card.hud.format(max_steps=card.max_steps, **values)}"] if card.hud else [])
             + ["[Grid]\n" + "\n".join(rows)])
    return "\n\n".join(parts + ([f"[Message]\n{card.events[event]}"] if event else []))


def test_render__every_task_card_single_frame_and_batched_text_equal_the_plain_text():
    """Every registered task's card (its glyphs, HUD fields and names, events, grid labels): random
    frames give the hand-written text through the single-frame paths (`observation_text`,
    `render_text`) and the batched ones (`observation_strings`, `render_batch`), cold and warm."""
    rng = np.random.default_rng(5)
    for task in glyphjax.all_ids():
        card = glyphjax.make(task).card
        codes = np.array(sorted(ord(g) for g in card.glyphs), np.uint32)
        grids = np.stack([rng.choice(rng.choice(codes, size=min(len(codes), int(rng.integers(1, 7))), replace=False),
                                     size=(11, 12)) for _ in range(6)]).astype(np.uint32)
        grids[0].flat[:len(codes)] = codes  # one frame shows every glyph of the card
        grids[5] = grids[4]  # a repeated glyph set and HUD row: cache hits in the batch
        huds = np.stack([rng.integers(0, card.max_steps + 1, 6)] + [
            rng.integers(0, len(card.hud_enums[f]), 6) if f in card.hud_enums else rng.integers(-3, 1000, 6)
            for f in card.hud_fields], axis=1).astype(np.int32)
        huds[5] = huds[4]
        events = rng.integers(0, len(card.events), 6).astype(np.int32)
        frames = Frame(grid=grids, hud=huds, event=events)
        want = [_plain_text(grids[i], huds[i].tolist(), int(events[i]), card) for i in range(6)]
        for rep in range(2):
            assert observation_strings(card, frames) == want, f"{task}: observation_strings, pass {rep}"
            assert [o.render() for o in render_batch(card, frames)] == want, f"{task}: render_batch, pass {rep}"
            for i in range(6):
                one = Frame(grid=grids[i], hud=huds[i], event=events[i])
                assert observation_text(card, one) == render_text(card, one).render() == want[i], (
                    f"{task}: frame {i}, pass {rep}: single-frame text")


def test_render__single_and_batched_text_equal_the_plain_text_with_warm_caches():
    rng = np.random.default_rng(3)
    alphabet = np.array([ord(c) for c in "#.@"], np.uint32)
    grids = alphabet[rng.integers(0, 3, size=(40, 4, 5))]
    grids[::7] = ord("#")  # some frames repeat a glyph set and a HUD row: cache hits
    huds = np.stack([rng.integers(0, 3, 40), rng.integers(0, 2, 40)], axis=1).astype(np.int32)
    events = rng.integers(0, 2, 40).astype(np.int32)
    for rep in range(2):  # cold caches, then warm ones
        batch = [o.render() for o in render_batch(CARD, Frame(grid=grids, hud=huds, event=events))]
        strings = observation_strings(CARD, Frame(grid=grids, hud=huds, event=events))
        for i in range(len(grids)):
            want = _plain_text(grids[i], huds[i].tolist(), int(events[i]))
            one = render_text(CARD, Frame(grid=grids[i], hud=huds[i], event=events[i])).render()
            text = observation_text(CARD, Frame(grid=grids[i], hud=huds[i], event=events[i]))
            assert batch[i] == one == text == strings[i] == want, f"frame {i}, pass {rep}"
    # a HUD given as another integer dtype is formatted the same (not read through the int32 cache)
    assert render_batch(CARD, Frame(grid=grids[:2], hud=huds[:2].astype(np.int64), event=events[:2]))[1].hud == (
        f"Step: {huds[1, 0]} / 10  Item: {CARD.hud_enums['item'][huds[1, 1]]}")


def test_render__observation_strings_without_hud_and_with_grid_labels_equal_the_plain_text():
    card = TaskCard(id="test/labels", rules="Rules here.", actions=("A",), action_descriptions=("do a",),
                    glyphs={"#": "wall", ".": "floor"}, hud="", hud_fields=(), max_steps=5, reward="none.",
                    events=("", "Hi."),
                    grid_labels=True)
    frames = Frame(grid=np.stack([_codes(["#.", ".#"]), _codes(["##", "##"])]), hud=np.array([[1], [2]], np.int32),
                   event=np.array([1, 0], np.int32))
    assert observation_strings(card, frames) == [
        "[Legend]\n# — wall\n. — floor\n\n[Grid]\n  01\n0 #.\n1 .#\n\n[Message]\nHi.",
        "[Legend]\n# — wall\n\n[Grid]\n  01\n0 ##\n1 ##"]
    assert observation_strings(card, frames) == [o.render() for o in render_batch(card, frames)]
    assert [observation_text(card, Frame(grid=frames.grid[i], hud=frames.hud[i], event=frames.event[i]))
            for i in range(2)] == observation_strings(card, frames)


def test_render__unknown_glyph_raises_in_both_paths_after_its_known_glyphs_were_cached():
    known = _codes(["#.#"])
    render_text(CARD, Frame(grid=known, hud=np.array([0, 0], np.int32), event=np.int32(0)))
    for bad in (_codes(["#.X"]), _codes(["#.\U0010fffd"])):  # in the lookup table's range, and past it
        with pytest.raises(ValueError, match="no legend entry"):
            render_text(CARD, Frame(grid=bad, hud=np.array([0, 0], np.int32), event=np.int32(0)))
        with pytest.raises(ValueError, match="no legend entry"):
            observation_text(CARD, Frame(grid=bad, hud=np.array([0, 0], np.int32), event=np.int32(0)))
        for batched in (render_batch, observation_strings):
            with pytest.raises(ValueError, match="no legend entry"):
                batched(CARD, Frame(grid=np.stack([known, bad]), hud=np.zeros((2, 2), np.int32),
                                    event=np.zeros(2, np.int32)))


def test_render__hud_with_the_wrong_field_count_is_refused_in_both_paths():
    with pytest.raises(ValueError, match="HUD has 3 values"):
        render_text(CARD, Frame(grid=_codes(["#"]), hud=np.array([0, 0, 0], np.int32), event=np.int32(0)))
    with pytest.raises(ValueError, match="HUD has 1 values"):
        render_batch(CARD, Frame(grid=_codes(["#"])[None], hud=np.zeros((1, 1), np.int32), event=np.zeros(1, np.int32)))


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


def test_harness__minimal_system_prompt_is_compact_without_the_rules():
    env = glyphjax.make("minigrid/empty-random-5x5")
    minimal = system_prompt(env.card, HarnessConfig(name="minimal"))
    compact = system_prompt(env.card, HarnessConfig(name="compact"))
    assert env.card.rules.strip() not in minimal and env.card.rules.strip() in compact
    assert minimal.splitlines()[0] == "Game minigrid/empty-random-5x5."
    assert minimal.splitlines()[1:] == compact.splitlines()[1:]  # actions and response format kept
    assert len(minimal) < len(compact) / 3, (len(minimal), len(compact))


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
