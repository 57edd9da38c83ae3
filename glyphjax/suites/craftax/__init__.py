"""Craftax suite on the `craftax` package's own JAX engine (catalogue §3.6-3.7, issue 16).

engine.py adapts the package's step and world generator; arena.py builds focused start states;
rules.py turns state deltas into task rewards; render.py draws the glyph window and HUD;
native.py gives the package's own text and pixel observations (`env.observation(state, obs_format)`);
tasks.py declares the focused tasks; env.py holds the shells. Importing this package registers
`craftax/<task>` (standard track), `craftax/classic` and `craftax/full` (extended track).

The engine is the optional dependency `craftax` (`pip install glyphjax[craftax]`); without it the
suite registers nothing, like a suite that is not installed.
"""

import importlib.util

from glyphjax.core.registry import register
from glyphjax.core.types import EXTENDED

AVAILABLE = importlib.util.find_spec("craftax") is not None

if AVAILABLE:
    from glyphjax.suites.craftax.env import ClassicGameEnv, ClassicTaskEnv, FullGameEnv, FullTaskEnv
    from glyphjax.suites.craftax.full_tasks import FULL_TASKS
    from glyphjax.suites.craftax.tasks import CLASSIC_TASKS

    for _task in CLASSIC_TASKS:
        register(f"craftax/{_task.name}", lambda t=_task: ClassicTaskEnv(t))
    for _task in FULL_TASKS:
        register(f"craftax/{_task.name}", lambda t=_task: FullTaskEnv(t))
    register("craftax/classic", ClassicGameEnv, track=EXTENDED)
    register("craftax/full", FullGameEnv, track=EXTENDED)
