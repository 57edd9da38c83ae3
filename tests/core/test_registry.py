"""Registry: ids, task sets by suite/track/glob, clear errors for unknown ids."""

from __future__ import annotations

import pytest

import glyphjax
from glyphjax.core.registry import UnknownTaskError


def test_registry__unknown_id_names_the_closest_ids():
    with pytest.raises(UnknownTaskError) as e:
        glyphjax.make("classics/snake-eazy")
    assert "classics/snake-easy" in str(e.value)


def test_registry__unknown_pattern_is_an_error_not_an_empty_set():
    with pytest.raises(UnknownTaskError, match="unknown task id"):
        glyphjax.task_ids("classics/snek*")


def test_registry__glob_suite_and_track_selection():
    snakes = glyphjax.task_ids("classics/snake-*")
    assert snakes == ["classics/snake-easy", "classics/snake-hard", "classics/snake-medium"]
    assert glyphjax.task_ids("dummy") == glyphjax.task_ids(suite="dummy")
    assert set(glyphjax.task_ids(track="standard")) >= set(snakes)
    assert glyphjax.task_ids(["dummy/arrow-1", "dummy/*"]) == ["dummy/arrow-1", "dummy/arrow-4"]
    with pytest.raises(UnknownTaskError, match="unknown suite"):
        glyphjax.task_ids(suite="nosuchsuite")


def test_registry__ids_are_suite_slash_name_and_cards_agree():
    for task_id in glyphjax.all_ids():
        suite, *name = task_id.split("/")  # suite/name, or suite/family/variant (zerosum)
        assert len(name) in (1, 2) and all(name), task_id
        env = glyphjax.make(task_id)
        assert env.card.id == task_id and env.card.suite == suite
        assert glyphjax.make(task_id) is env  # built once


def test_registry__duplicate_and_malformed_ids_rejected():
    with pytest.raises(ValueError, match="registered twice"):
        glyphjax.register("classics/snake-easy", lambda: None)
    with pytest.raises(ValueError, match="suite/name"):
        glyphjax.register("NoSlash", lambda: None)
