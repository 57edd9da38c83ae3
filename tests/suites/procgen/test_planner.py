"""The solvability certificate on a real subset of level seeds (the full 1,000-seed run is
`python -m glyphjax.suites.procgen.certify`): the planner's plans replay to a win, maze plans
are as short as an independent host BFS says, and a wrong plan is rejected."""

from collections import deque

import jax
import numpy as np
import pytest

import glyphjax
from glyphjax.suites.procgen import mazes
from glyphjax.suites.procgen.planner import plan, single_level, verify

LEVELS = np.arange(900, 906, dtype=np.uint32)


def _host_shortest(world, start, goal_code, wall_codes):
    """Independent BFS over the level's cells: turns from start to the nearest goal cell."""
    h, w = world.shape
    seen, q = {start: 0}, deque([start])
    while q:
        r, c = q.popleft()
        if world[r, c] == goal_code:
            return seen[(r, c)]
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            n = (r + dr, c + dc)
            if 0 <= n[0] < h and 0 <= n[1] < w and world[n] not in wall_codes and n not in seen:
                seen[n] = seen[(r, c)] + 1
                q.append(n)
    return None


@pytest.fixture(scope="module")
def maze_plans():
    env = glyphjax.make("procgen/maze")
    return env, plan(env, LEVELS, frontier=16, table_bits=16)


def test_planner__maze_plans_win_and_are_shortest(maze_plans):
    env, p = maze_plans
    assert verify(env, LEVELS, p).all()
    reset = jax.jit(env.reset)
    for i, level in enumerate(LEVELS):
        s = reset(glyphjax.reset_key(0), single_level(env.default_params(), level))
        want = _host_shortest(np.asarray(s.world), tuple(int(x) for x in s.pos), mazes.MZ_CHEESE,
                              (mazes.MZ_WALL, mazes.MZ_OUT))
        assert int(p.length[i]) == want, f"level {level}: plan {int(p.length[i])} vs BFS {want}"


def test_planner__verify_rejects_a_plan_that_does_not_win(maze_plans):
    env, p = maze_plans
    idle = p._replace(actions=np.zeros_like(np.asarray(p.actions)))
    assert not verify(env, LEVELS, idle).any()


@pytest.mark.parametrize("task_id", ["procgen/coinrun-hard", "procgen/leaper"])
def test_planner__side_view_and_lane_levels_are_certified(task_id):
    env = glyphjax.make(task_id)
    levels = LEVELS[:4]
    p = plan(env, levels, frontier=32, table_bits=16)
    assert verify(env, levels, p).all(), f"{task_id}: uncertified levels {levels[~np.asarray(p.found)]}"
