"""MiniGrid suite: 71 tasks (GlyphBench catalogue §3.1) on one JAX grid-world engine.

engine.py holds the state and the rules, levels.py the generators, render.py the glyphs and the
two views, tasks.py the declarations (importing it registers every `minigrid/...` id).
"""

from glyphjax.suites.minigrid import tasks  # noqa: F401  (registers the tasks)
from glyphjax.suites.minigrid.tasks import TASKS, MiniGrid, make_task  # noqa: F401
