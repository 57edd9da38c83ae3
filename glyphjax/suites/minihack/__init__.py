"""MiniHack suite: the GlyphBench MiniHack tasks (catalogue §3.2) on one JAX dungeon engine.

constants.py holds the vocabulary, state.py the state, engine.py the turn, terrain.py / items.py
/ monsters.py / vision.py one mechanic each, levels.py the generator, layouts.py the task
families, tasks.py the declarations (importing it registers every `minihack/...` id),
planner.py the scripted planner-fighter and certify.py the level certifier (`python -m`).
"""

from glyphjax.suites.minihack import tasks  # noqa: F401  (registers the tasks)
from glyphjax.suites.minihack.tasks import TASKS, MiniHack, make_task  # noqa: F401
