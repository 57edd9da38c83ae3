"""The mapping guard frees compiled programs, and only when the process is crowded."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from glyphjax.core import compiled


def _compile_many(n: int) -> list:
    fns = [jax.jit(lambda x, i=i: jnp.cumsum(x) * i) for i in range(n)]
    for f in fns:
        f(jnp.ones(8)).block_until_ready()
    return fns


@pytest.mark.skipif(compiled.mapped_regions() is None, reason="needs /proc/self/maps (Linux)")
def test_guard_releases_compiled_programs_when_crowded(monkeypatch):
    jax.clear_caches()
    before = compiled.mapped_regions()
    fns = _compile_many(60)
    grown = compiled.mapped_regions()
    assert grown > before + 60  # each compiled CPU program holds mappings while cached
    # A cap far above what we hold: nothing happens.
    monkeypatch.setattr(compiled, "map_limit", lambda: 10 * grown)
    assert not compiled.release_if_crowded()
    assert compiled.mapped_regions() >= grown - 5
    # A cap we are over: the caches go and the mappings with them, though `fns` still lives.
    monkeypatch.setattr(compiled, "map_limit", lambda: grown)
    assert compiled.release_if_crowded(0.5)
    assert compiled.mapped_regions() < grown - 60
    # Programs recompile on next use and give the same answer.
    assert float(fns[3](jnp.ones(8))[-1]) == 24.0


def test_guard_rejects_bad_fraction():
    with pytest.raises(ValueError, match="fraction"):
        compiled.release_if_crowded(1.5)


def test_guard_is_a_no_op_where_the_os_does_not_say(monkeypatch):
    monkeypatch.setattr(compiled, "mapped_regions", lambda: None)
    assert not compiled.release_if_crowded()
