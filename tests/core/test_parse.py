"""Action parser: the last complete tag wins; never raises; classifies every failure."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from glyphjax.core.types import NO_ACTION
from glyphjax.harness.parse import (EMPTY, NO_TAG, OK, TRUNCATED, UNKNOWN_ACTION, parse_action)

ACTIONS = ("UP", "DOWN", "LEFT", "RIGHT", "MOVE_FORWARD")


def test_parse__last_complete_tag_wins():
    r = parse_action("I go <action>UP</action> no wait <action>LEFT</action> and <action>DOWN", ACTIONS)
    assert (r.action, r.status) == (2, OK)


def test_parse__case_and_whitespace_insensitive():
    assert parse_action("<action>  move_forward \n</action>", ACTIONS).action == 4
    assert parse_action("<ACTION>Right</ACTION>", ACTIONS).action == 3
    assert parse_action("<action>move forward</action>", ACTIONS).action == 4


def test_parse__failures_are_classified_and_never_default():
    assert parse_action("", ACTIONS).status == EMPTY
    assert parse_action("   ", ACTIONS, truncated=True).status == TRUNCATED
    assert parse_action("I think UP is best", ACTIONS).status == NO_TAG
    assert parse_action("thinking thinking <action>U", ACTIONS, truncated=True).status == TRUNCATED
    r = parse_action("<action>JUMP</action>", ACTIONS)
    assert (r.action, r.status, r.name) == (NO_ACTION, UNKNOWN_ACTION, "JUMP")
    # the last tag decides even when an earlier one was valid
    assert parse_action("<action>UP</action><action>FLY</action>", ACTIONS).status == UNKNOWN_ACTION


def test_parse__truncated_output_with_complete_tag_still_counts():
    r = parse_action("<action>UP</action> and then I would", ACTIONS, truncated=True)
    assert (r.action, r.status) == (0, OK)


def _reference(text, actions, truncated):
    """Independent slow reference: scan for tags by hand."""
    if not text.strip():
        return TRUNCATED if truncated else EMPTY, NO_ACTION
    low = text.lower()
    last = None
    pos = 0
    while True:
        i = low.find("<action>", pos)
        if i < 0:
            break
        j = low.find("</action>", i + 8)
        if j < 0:
            break
        last = text[i + 8:j]
        pos = j + 9
    if last is None:
        return TRUNCATED if truncated else NO_TAG, NO_ACTION
    name = re.sub(r"[\s\-]+", "_", last.strip()).upper()
    for k, a in enumerate(actions):
        if a == name:
            return OK, k
    return UNKNOWN_ACTION, NO_ACTION


pieces = st.one_of(st.text(max_size=20), st.sampled_from(
    ["<action>", "</action>", "<ACTION>", "up", "LEFT", " move forward ", "\n", "<action>DOWN</action>",
     "</action><action>", "jump", "-"]))


@settings(max_examples=500, deadline=None)
@given(st.lists(pieces, max_size=12), st.booleans())
def test_parse__never_raises_and_agrees_with_reference(parts, truncated):
    text = "".join(parts)
    r = parse_action(text, ACTIONS, truncated=truncated)
    status, action = _reference(text, ACTIONS, truncated)
    assert (r.status, r.action) == (status, action), text
    assert (r.action == NO_ACTION) == (r.status != OK)


@settings(max_examples=200, deadline=None)
@given(st.text(), st.booleans())
def test_parse__arbitrary_unicode_never_raises(text, truncated):
    r = parse_action(text, ACTIONS, truncated=truncated)
    assert r.status in (OK, NO_TAG, UNKNOWN_ACTION, TRUNCATED, EMPTY)
