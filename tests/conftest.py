"""Test-session set-up shared by every test.

JAX's persistent compilation cache is OFF by default: with it on, pytest workers on this CPU
build crashed (segmentation faults inside the cache's executable write/read and the compile that
feeds it, in runs with two xdist workers), and a crashed worker can stall the whole xdist run.
A developer loop can opt in with $GLYPHJAX_JAX_CACHE=DIR (a cold cache only costs time, never
changes results). The same crashes were also seen in plain XLA CPU compiles of long test sessions,
so the session also compiles with LLVM code generation in one piece
(`--xla_cpu_parallel_codegen_split_count=1`) and runs CPU programs synchronously: both change
speed only, never results.
"""

from __future__ import annotations

import os

_FLAG = "--xla_cpu_parallel_codegen_split_count=1"
if _FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + _FLAG).strip()

import jax  # noqa: E402

jax.config.update("jax_cpu_enable_async_dispatch", False)

_CACHE = os.environ.get("GLYPHJAX_JAX_CACHE")
if _CACHE:
    os.makedirs(_CACHE, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", _CACHE)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
