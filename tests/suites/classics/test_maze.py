"""Maze: movement rules, rewards, a golden board, and generator certification (1,000 seeds)."""

from collections import deque

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.suites.classics.maze import MazeState
from glyphjax.core.types import init_state_fields

IDS = ["classics/maze-easy", "classics/maze-medium", "classics/maze-hard"]
UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3


def bfs_distances(open_, start):
    """Independent host BFS: {cell: shortest path length from start} over open cells."""
    h, w = open_.shape
    open_ = open_.tolist()
    seen = {start: 0}
    q = deque([start])
    while q:
        r, c = q.popleft()
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            n = (r + dr, c + dc)
            if 0 <= n[0] < h and 0 <= n[1] < w and open_[n[0]][n[1]] and n not in seen:
                seen[n] = seen[(r, c)] + 1
                q.append(n)
    return seen


def bfs_path_length(open_, start, goal):
    return bfs_distances(open_, start).get(goal)


def hand_state():
    """A 7x7 maze drawn by hand: start top-left, exit bottom-right."""
    rows = ["#######",
            "#...#.#",
            "###.#.#",
            "#.....#",
            "#.###.#",
            "#...#.#",
            "#######"]
    open_ = np.array([[ch == "." for ch in row] for row in rows])
    return MazeState(**init_state_fields(), open=jnp.asarray(open_), pos=jnp.array([1, 1], jnp.int32),
                     exit=jnp.array([5, 5], jnp.int32))


def board(env, state):
    return glyphjax.render_text(env.card, env.render(state)).grid


@pytest.mark.parametrize("task_id", IDS)
def test_maze__generated_mazes_are_perfect_and_solvable_on_1000_seeds(task_id):
    env = glyphjax.make(task_id)
    states = jax.jit(jax.vmap(env.reset))(jax.vmap(glyphjax.reset_key)(jnp.arange(1000, dtype=jnp.uint32)))
    opens = np.asarray(states.open)
    n = env.size
    cells = ((n - 1) // 2) ** 2
    for seed in range(1000):
        o = opens[seed]
        # a perfect maze: the cells plus exactly cells-1 passages, all connected (a spanning tree)
        assert o.sum() == 2 * cells - 1, f"{task_id} seed {seed}: {o.sum()} open cells"
        assert not (o[0].any() or o[-1].any() or o[:, 0].any() or o[:, -1].any()), f"{task_id} seed {seed}: border open"
        dist = bfs_distances(o, (1, 1))
        assert (n - 2, n - 2) in dist, f"{task_id} seed {seed}: exit unreachable"
        assert len(dist) == o.sum(), f"{task_id} seed {seed}: maze not connected"


def test_maze__wall_bump_is_free_and_moves_cost_one_over_t():
    env = glyphjax.make("classics/maze-easy")
    s = hand_state()
    s2, tr = env.step(glyphjax.step_key(0, 0), s, jnp.int32(UP))  # wall above
    assert np.array_equal(s2.pos, [1, 1]) and float(tr.reward) == 0.0
    s3, tr = env.step(glyphjax.step_key(0, 1), s2, jnp.int32(RIGHT))
    assert np.array_equal(s3.pos, [1, 2])
    assert float(tr.reward) == pytest.approx(-1 / 100) and not bool(tr.terminated)
    s4, tr = env.step(glyphjax.step_key(0, 2), s3, jnp.int32(-1))  # NO_ACTION
    assert np.array_equal(s4.pos, [1, 2]) and float(tr.reward) == 0.0


def test_maze__scripted_trajectory_matches_golden_boards_and_pays_exit():
    env = glyphjax.make("classics/maze-easy")
    s = hand_state()
    assert board(env, s) == ("███████\n"
                             "█@··█·█\n"
                             "███·█·█\n"
                             "█·····█\n"
                             "█·███·█\n"
                             "█···█★█\n"
                             "███████")
    moves = [RIGHT, RIGHT, DOWN, DOWN, RIGHT, RIGHT, DOWN, DOWN]
    total = 0.0
    for t, a in enumerate(moves):
        s, tr = env.step(glyphjax.step_key(0, t), s, jnp.int32(a))
        total += float(tr.reward)
        if t == 3:
            assert board(env, s) == ("███████\n"
                                     "█···█·█\n"
                                     "███·█·█\n"
                                     "█··@··█\n"
                                     "█·███·█\n"
                                     "█···█★█\n"
                                     "███████"), f"maze golden board after step {t}"
    assert bool(tr.terminated) and int(tr.event) == 1
    assert total == pytest.approx(1.0 - 7 / 100)
    assert board(env, s).splitlines()[5] == "█···█@█"


@pytest.mark.parametrize("task_id", IDS)
def test_maze__scripted_policy_walks_the_shortest_path(task_id):
    env = glyphjax.make(task_id)
    seeds = jnp.arange(16, dtype=jnp.uint32)
    res = jax.device_get(glyphjax.rollout(env, env.scripted_policy, seeds))
    states = jax.vmap(env.reset)(jax.vmap(glyphjax.reset_key)(seeds))
    n = env.size
    for i in range(16):
        length = bfs_path_length(np.asarray(states.open[i]), (1, 1), (n - 2, n - 2))
        assert res.lengths[i] == length, f"{task_id} seed {i}: {res.lengths[i]} moves vs BFS {length}"
        assert res.returns[i] == pytest.approx(1 - (length - 1) / env.card.max_steps, abs=1e-5)
