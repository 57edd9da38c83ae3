"""Test-session set-up shared by every test.

JAX's persistent compilation cache is OFF by default: with it on, pytest workers on this CPU
build crashed (segmentation faults inside the cache's executable write/read and the compile that
feeds it, in runs with two xdist workers), and a crashed worker can stall the whole xdist run.
A developer loop can opt in with $GLYPHJAX_JAX_CACHE=DIR (a cold cache only costs time, never
changes results).
"""

from __future__ import annotations

import os

import jax

_CACHE = os.environ.get("GLYPHJAX_JAX_CACHE")
if _CACHE:
    os.makedirs(_CACHE, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", _CACHE)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
