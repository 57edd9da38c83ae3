"""Test-session set-up shared by every test.

A long test session compiles thousands of XLA programs in each worker process; every compiled
CPU program holds memory mappings until JAX's caches drop it, and a process past the kernel's
`vm.max_map_count` dies with a segmentation fault inside the next compile (the crashes of the
earlier two-worker runs). After every test the guard `glyphjax.core.compiled.release_if_crowded`
drops the caches once a worker holds over 40% of its allowance; programs recompile on next use,
so results never change.

JAX's persistent compilation cache is off unless $GLYPHJAX_JAX_CACHE=DIR names a directory
(a developer loop can opt in; a cold cache only costs time, never changes results).
"""

from __future__ import annotations

import os

import jax
import pytest

from glyphjax.core.compiled import release_if_crowded

_CACHE = os.environ.get("GLYPHJAX_JAX_CACHE")
if _CACHE:
    os.makedirs(_CACHE, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", _CACHE)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)


@pytest.fixture(autouse=True)
def _stay_under_map_limit():
    yield
    release_if_crowded()
