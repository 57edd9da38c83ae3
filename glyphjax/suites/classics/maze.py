"""Maze: walk from the top-left corner to the exit in the bottom-right corner of a random maze.

Reference (catalogue §4, §5 row 16): maze 9/15/21 cells square *including* the wall border,
T = 100/300/500. Generation: a randomized depth-first spanning tree over the ((n-1)/2)^2 room
cells (`_puzzles.dfs_spanning_tree`, a bounded fori_loop of 2*cells-1 iterations), so the maze is
perfect (exactly one path between any two cells) and the exit is always reachable.

Reward: -1/T for each move that changes your cell, +1 (instead of the move cost) on the move that
reaches the exit, which ends the episode. Bumping into a wall or NO_ACTION costs nothing (house
rule: impossible actions are no-ops without penalty; the reference charged every turn). Return in
[-1, 1] by construction: at most T moves, so failures are >= -T/T = -1; a win after k moves pays
1 - (k-1)/T in (0, 1].
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import DIR_DELTAS, DIR_NAMES, UNREACHED, bfs_distances, codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._puzzles import (GLYPHS_PUZZLE, GOAL, PLAYER, dfs_spanning_tree, tree_to_maze)
from glyphjax.suites.classics.common import FLOOR, GLYPHS_COMMON, WALL

GLYPHS = {**GLYPHS_COMMON, **GLYPHS_PUZZLE}
EV_EXIT = 1
EVENTS = ("", "You reached the exit!")
_TABLE = codepoints(FLOOR + WALL + GOAL + PLAYER)  # cell codes 0 floor, 1 wall, 2 exit, 3 you


@struct.dataclass
class MazeState(EnvState):
    open: jax.Array  # bool[n, n]: walkable cells
    pos: jax.Array  # int32[2] (row, col)
    exit: jax.Array  # int32[2]


class Maze(Env):
    def __init__(self, task_id: str, size: int, max_steps: int):
        if size % 2 == 0 or size < 5:
            raise ValueError(f"{task_id}: maze size must be odd and >= 5, got {size}")
        self.size = size
        self.card = TaskCard(
            id=task_id,
            rules=(f"A {size}x{size} maze whose outer ring is wall. You start in the top-left corner; "
                   "the exit is in the bottom-right corner. UP/DOWN/LEFT/RIGHT move you one cell; "
                   "walking into a wall does nothing. The maze is perfect: exactly one path leads "
                   "from any cell to any other. Reach the exit in as few moves as possible."),
            actions=DIR_NAMES,
            action_descriptions=tuple(f"move one cell {d.lower()}" for d in DIR_NAMES),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}",
            hud_fields=(),
            max_steps=max_steps,
            reward=(f"-1/{max_steps} for each move that changes your cell (bumping a wall is free); "
                    "+1 on the move that reaches the exit, which ends the episode. "
                    "Return range [-1, 1]."),
            events=EVENTS,
            success=(EV_EXIT,),
            return_range=(-1.0, 1.0),
        )

    def _reset(self, key, params):
        cells = (self.size - 1) // 2
        right, down = dfs_spanning_tree(key, cells, cells)
        open_ = tree_to_maze(right, down)
        e = self.size - 2
        return MazeState(**init_state_fields(), open=open_, pos=jnp.array([1, 1], jnp.int32),
                         exit=jnp.array([e, e], jnp.int32))

    def _step(self, key, state: MazeState, action, params):
        delta = DIR_DELTAS[jnp.clip(action, 0, 3)]
        nxt = state.pos + delta
        s = self.size
        nxt = jnp.clip(nxt, 0, s - 1)
        moved = (action >= 0) & state.open[nxt[0], nxt[1]]
        pos = jnp.where(moved, nxt, state.pos)
        won = moved & jnp.all(pos == state.exit)
        reward = jnp.where(won, 1.0, jnp.where(moved, -1.0 / self.card.max_steps, 0.0))
        return state.replace(pos=pos), reward, won, jnp.where(won, EV_EXIT, 0)

    def _render(self, state: MazeState, params):
        codes = jnp.where(state.open, 0, 1)
        codes = codes.at[state.exit[0], state.exit[1]].set(2)
        codes = codes.at[state.pos[0], state.pos[1]].set(3)
        return _TABLE[codes], ()

    @staticmethod
    def scripted_policy(key, state: MazeState, params):
        """Optimal: step to the neighbour with the smallest BFS distance to the exit."""
        s = state.open.shape[0]
        at_exit = jnp.zeros_like(state.open).at[state.exit[0], state.exit[1]].set(True)
        dist = bfs_distances(state.open, at_exit)
        nxt = jnp.clip(state.pos[None, :] + DIR_DELTAS, 0, s - 1)
        d = jnp.where(state.open[nxt[:, 0], nxt[:, 1]], dist[nxt[:, 0], nxt[:, 1]], UNREACHED)
        return jnp.argmin(d).astype(jnp.int32)


MAZE_VARIANTS = {"easy": (9, 100), "medium": (15, 300), "hard": (21, 500)}

for _name, (_size, _steps) in MAZE_VARIANTS.items():
    register(f"classics/maze-{_name}", lambda n=_name, s=_size, t=_steps: Maze(f"classics/maze-{n}", s, t))
