"""Shared puzzle pieces for the Classics puzzle games (maze, ice sliding, sokoban, rush hour,
lights out, pipe connect, mirror laser, flood fill). The randomized depth-first spanning-tree
maze generator lives in `glyphjax.core.maze` (Procgen uses it too) and is re-exported here;
floods, BFS distances and shifts are in `glyphjax.core.grid`.

Glyphs shared by these games (same meaning everywhere in the suite) are defined here too.
"""

from __future__ import annotations

from glyphjax.core.maze import dfs_spanning_tree, tree_to_maze  # noqa: F401  (re-exported)

PLAYER = "@"
GOAL = "★"
GLYPHS_PUZZLE = {PLAYER: "you", GOAL: "goal"}
