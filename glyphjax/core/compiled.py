"""Keeping a long-lived process under the kernel's memory-mapping limit.

Every program XLA compiles for the CPU keeps its machine code in a handful of memory mappings
(about six on jaxlib 0.10) for as long as JAX's compilation caches hold it. Linux caps a process
at `vm.max_map_count` mappings (65530 by default); a process that compiles ~10 000 programs —
an evaluation over the whole registry with many variants, a long test session — reaches the cap,
and the next compile dies inside LLVM with a segmentation fault rather than a Python error.

`release_if_crowded()` is the guard: when the process holds more than a fraction of its allowance
it drops JAX's compilation caches (`jax.clear_caches()`), which unmaps those programs. Programs
are recompiled on next use, so results never change; only time is spent. Off Linux (no
/proc/self/maps) it does nothing.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

import jax

_MAPS = Path("/proc/self/maps")
_LIMIT = Path("/proc/sys/vm/max_map_count")


def mapped_regions() -> int | None:
    """How many memory mappings this process holds now (None where the OS does not say)."""
    try:
        with _MAPS.open("rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return None


def map_limit() -> int | None:
    """The kernel's cap on mappings per process (None where the OS does not say)."""
    try:
        return int(_LIMIT.read_text().strip())
    except (OSError, ValueError):
        return None


def release_if_crowded(fraction: float = 0.4) -> bool:
    """Drop JAX's compiled programs when this process holds over `fraction` of its mapping cap.

    Returns True when it released them. Cheap enough to call between tasks or tests (it reads one
    /proc file)."""
    if not 0.0 < fraction < 1.0:
        raise ValueError(f"fraction must lie in (0, 1), got {fraction}")
    limit, held = map_limit(), mapped_regions()
    if limit is None or held is None or held <= fraction * limit:
        return False
    jax.clear_caches()
    gc.collect()
    return True


CACHE_ENV = "GLYPHJAX_JAX_CACHE"  # a directory, or "off"
CACHE_MAX_BYTES = 4 << 30  # JAX evicts the least recently used programs past this size


def default_cache_dir() -> Path:
    """$GLYPHJAX_CACHE/xla (default ~/.cache/glyphjax/xla): where the command-line tools keep
    compiled programs between runs."""
    root = os.environ.get("GLYPHJAX_CACHE") or Path.home() / ".cache" / "glyphjax"
    return Path(root) / "xla"


def use_persistent_cache(directory: str | Path | None = None) -> Path | None:
    """Keep compiled XLA programs on disk so a later process (the next evaluation, a resumed run,
    each worker of a sweep) loads them instead of compiling again.

    `directory` defaults to $GLYPHJAX_JAX_CACHE, else `default_cache_dir()`; "off" (or "0",
    "none", "") turns the cache off. Returns the directory in use, or None when off. A cache
    never changes results: a program is found by a hash of its compiled computation, and an
    unreadable entry is compiled again (JAX warns). Programs that compile in under 0.5 s are not
    stored."""
    chosen = os.environ.get(CACHE_ENV) if directory is None else str(directory)
    if chosen is not None and chosen.strip().lower() in ("", "off", "0", "none", "false"):
        return None
    path = Path(chosen).expanduser() if chosen is not None else default_cache_dir()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"{CACHE_ENV}: cannot create the compilation cache directory {path} ({err}); "
                         f"name a writable directory, or set {CACHE_ENV}=off") from err
    jax.config.update("jax_compilation_cache_dir", str(path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    jax.config.update("jax_compilation_cache_max_size", CACHE_MAX_BYTES)
    return path
