"""Test-session set-up shared by every test.

A long test session compiles thousands of XLA programs in each worker process; every compiled
CPU program holds memory mappings until JAX's caches drop it, and a process past the kernel's
`vm.max_map_count` dies with a segmentation fault inside the next compile (the crashes of the
earlier two-worker runs). After every test the guard `glyphjax.core.compiled.release_if_crowded`
drops the caches once a worker holds over 40% of its allowance; programs recompile on next use,
so results never change.

A session that will run vLLM-server tests starts creating the vLLM venv (tests/provision.py, ~8
minutes on a fresh machine, mostly downloads) in the background as soon as the tests are
collected, so the set-up overlaps the other tests instead of stalling a worker when the first
vLLM test comes.

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


VLLM_GROUP = "@vllm-server"  # xdist_group of the tests on the shared vLLM server (tests/rl)
_background: list = []


def _start_vllm_venv(needed: bool) -> None:
    if needed and not _background:
        from tests.provision import VLLM_VENV, start_in_background
        _background.append(start_in_background(*VLLM_VENV))


def pytest_collection_finish(session):
    """Without xdist: this process runs the tests; start the venv if a collected test needs it."""
    if not hasattr(session.config, "workerinput") and not session.config.pluginmanager.hasplugin("dsession"):
        _start_vllm_venv(any("vllm_server" in getattr(i, "fixturenames", ()) for i in session.items))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """With xdist (in the controller): the workers' collections name the vLLM group's tests."""
    _start_vllm_venv(any(i.endswith(VLLM_GROUP) for i in ids))
