"""The mapping guard frees compiled programs, and only when the process is crowded; the persistent
compilation cache lets a second process load what a first one compiled."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

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


REPO = Path(__file__).resolve().parents[2]
# A fresh process that turns the cache on through $GLYPHJAX_JAX_CACHE, compiles one program (the
# 0.5 s threshold lowered so a small program is stored) and prints its answer and cache events.
_PROBE = textwrap.dedent("""
    import jax, jax.numpy as jnp
    from glyphjax.core.compiled import use_persistent_cache
    print(use_persistent_cache())
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    seen = []
    jax.monitoring.register_event_listener(lambda name, **kw: seen.append(name.rsplit("/", 1)[-1]))
    out = jax.jit(lambda x: jnp.cumsum(jnp.sin(x) * 3.0) ** 2)(jnp.arange(10.0))
    print(repr(float(out.sum())), seen.count("cache_hits"), seen.count("cache_misses"))
""")


def _probe(cache: str) -> tuple[list[str], str]:
    env = {**os.environ, compiled.CACHE_ENV: cache, "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.split(), done.stderr


def test_persistent_cache__a_second_process_loads_the_program_and_a_corrupt_entry_is_recompiled(tmp_path):
    cache = tmp_path / "xla"
    first, _ = _probe(str(cache))
    assert first[0] == str(cache) and int(first[2]) == 0 and int(first[3]) >= 1  # compiled and stored
    second, _ = _probe(str(cache))
    assert second[1] == first[1] and int(second[2]) >= 1 and int(second[3]) == 0  # loaded, same answer
    for entry in cache.glob("*-cache"):
        entry.write_bytes(b"not a compiled program")
    third, err = _probe(str(cache))
    assert third[1] == first[1] and int(third[2]) == 0  # compiled again, same answer
    assert "persistent compilation cache" in err


@pytest.mark.parametrize("value", ["off", "0", "none", ""])
def test_persistent_cache__off_leaves_jax_alone(value):
    before = jax.config.jax_compilation_cache_dir
    assert compiled.use_persistent_cache(value) is None
    assert jax.config.jax_compilation_cache_dir == before


def test_persistent_cache__unwritable_directory_is_a_clear_error(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(ValueError, match="GLYPHJAX_JAX_CACHE.*a-file/xla.*=off"):
        compiled.use_persistent_cache(blocker / "xla")
    assert jax.config.jax_compilation_cache_dir != str(blocker / "xla")
