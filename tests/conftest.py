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

JAX's persistent compilation cache is on for the session, in a fresh temporary directory the
first process creates and names in $GLYPHJAX_JAX_CACHE, so the xdist workers and every CLI a
test runs as a subprocess load a program another process already compiled (the trainer and
evaluation CLIs compile the same tiny model and tasks in dozens of tests). It starts cold, as on
a fresh machine, and is removed at the end. A developer who sets $GLYPHJAX_JAX_CACHE=DIR keeps a
warm cache across sessions; =off turns it off. A cache never changes results.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from glyphjax.core.compiled import CACHE_ENV, release_if_crowded, use_persistent_cache

_OWN_CACHE = CACHE_ENV not in os.environ  # this process made the session's cache (and removes it)
if _OWN_CACHE:
    os.environ[CACHE_ENV] = tempfile.mkdtemp(prefix="glyphjax-xla-")
use_persistent_cache()


def pytest_unconfigure(config):
    if _OWN_CACHE and not hasattr(config, "workerinput"):
        shutil.rmtree(os.environ[CACHE_ENV], ignore_errors=True)


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
