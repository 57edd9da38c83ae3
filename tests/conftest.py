"""Test-session set-up shared by every test: JAX's persistent compilation cache.

Compilation dominates these tests on a small CPU (each task compiles its reset, step and render
programs). The cache lives outside the clone ($GLYPHJAX_JAX_CACHE, default
~/.cache/glyphjax/jax-compile) so repeated runs on one machine reuse compiled programs; a cold
cache only costs time, never changes results.
"""

from __future__ import annotations

import os
from pathlib import Path

import jax

_CACHE = Path(os.environ.get("GLYPHJAX_JAX_CACHE", Path.home() / ".cache" / "glyphjax" / "jax-compile"))
_CACHE.mkdir(parents=True, exist_ok=True)
jax.config.update("jax_compilation_cache_dir", str(_CACHE))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
