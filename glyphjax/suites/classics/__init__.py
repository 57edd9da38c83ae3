"""Classics suite: 32 game families, 50 tasks (GlyphBench catalogue §3.4, §5)."""

import importlib
import pkgutil

# Every game module registers its tasks on import.
for _m in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _m != "common" and not _m.startswith("_"):
        importlib.import_module(f"{__name__}.{_m}")
