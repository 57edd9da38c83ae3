"""Ice Sliding: slide rule, rewards, golden board, and BFS certification on 1,000 seeds."""

from collections import deque

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.types import init_state_fields
from glyphjax.suites.classics.icesliding import IceState

IDS = ["classics/icesliding-easy", "classics/icesliding-medium", "classics/icesliding-hard"]
UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3


def solve(rocks, start, goal):
    """Independent host BFS over resting positions; fewest moves to rest on goal (or None)."""
    s = rocks.shape[0]
    blocked = rocks.copy()
    blocked[0, :] = blocked[-1, :] = blocked[:, 0] = blocked[:, -1] = True
    blocked = blocked.tolist()
    seen = {start: 0}
    q = deque([start])
    while q:
        p = q.popleft()
        if p == goal:
            return seen[p]
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            r, c = p
            while not blocked[r + dr][c + dc]:
                r, c = r + dr, c + dc
            if (r, c) not in seen:
                seen[(r, c)] = seen[p] + 1
                q.append((r, c))
    return None


def hand_state(rows):
    """'#' wall, 'o' rock, '@' you, '*' goal, '.' ice."""
    g = np.array([list(r) for r in rows])
    rocks = g == "o"
    pos = np.argwhere(g == "@")[0]
    goal = np.argwhere(g == "*")[0]
    return IceState(**init_state_fields(), rocks=jnp.asarray(rocks), pos=jnp.asarray(pos, jnp.int32),
                    goal=jnp.asarray(goal, jnp.int32), moves=jnp.int32(0))


@pytest.mark.parametrize("task_id", IDS)
def test_icesliding__every_start_is_solvable_in_two_or_more_moves_on_1000_seeds(task_id):
    env = glyphjax.make(task_id)
    states = jax.device_get(jax.jit(jax.vmap(env.reset))(
        jax.vmap(glyphjax.reset_key)(jnp.arange(1000, dtype=jnp.uint32))))
    lengths = []
    for seed in range(1000):
        rocks = np.asarray(states.rocks[seed])
        assert rocks.sum() in (env.rocks, 0), f"{task_id} seed {seed}: {rocks.sum()} rocks"
        start, goal = tuple(states.pos[seed].tolist()), tuple(states.goal[seed].tolist())
        assert not rocks[start] and not rocks[goal] and start != goal
        k = solve(rocks, start, goal)
        assert k is not None, f"{task_id} seed {seed}: goal unreachable"
        assert 2 <= k < env.card.max_steps, f"{task_id} seed {seed}: optimal solution {k} moves"
        lengths.append(k)
    assert np.mean(lengths) >= 3.0, f"{task_id}: puzzles too easy (mean optimum {np.mean(lengths)})"


def test_icesliding__slides_until_blocked_and_goal_does_not_stop_you():
    env = glyphjax.make("classics/icesliding-easy")
    s = hand_state(["########",
                    "#@..*..#",
                    "#......#",
                    "#...o..#",
                    "#......#",
                    "#......#",
                    "#......#",
                    "########"])
    s1, tr = env.step(glyphjax.step_key(0, 0), s, jnp.int32(RIGHT))  # slides over the goal to the wall
    assert s1.pos.tolist() == [1, 6] and not bool(tr.terminated)
    assert float(tr.reward) == pytest.approx(-1 / 100)
    s2, tr = env.step(glyphjax.step_key(0, 1), s1, jnp.int32(UP))  # blocked: free no-op
    assert s2.pos.tolist() == [1, 6] and float(tr.reward) == 0.0 and int(s2.moves) == 1


def test_icesliding__golden_boards_and_win():
    env = glyphjax.make("classics/icesliding-easy")
    s = hand_state(["########",
                    "#@.....#",
                    "#......#",
                    "#......#",
                    "#......#",
                    "#...*..#",
                    "#...o..#",
                    "########"])
    board = lambda st: glyphjax.render_text(env.card, env.render(st)).grid
    total = 0.0
    # DOWN -> (6,1); RIGHT -> (6,3) stops before the rock at (6,4)
    s, tr = env.step(glyphjax.step_key(0, 0), s, jnp.int32(DOWN))
    total += float(tr.reward)
    s, tr = env.step(glyphjax.step_key(0, 1), s, jnp.int32(RIGHT))
    total += float(tr.reward)
    assert board(s) == ("████████\n"
                        "█░░░░░░█\n"
                        "█░░░░░░█\n"
                        "█░░░░░░█\n"
                        "█░░░░░░█\n"
                        "█░░░★░░█\n"
                        "█░░@◆░░█\n"
                        "████████")
    # UP -> (1,3); RIGHT -> (1,6); LEFT -> (1,1): nothing in row 1 stops you
    s, tr = env.step(glyphjax.step_key(0, 2), s, jnp.int32(UP))
    total += float(tr.reward)
    s, tr = env.step(glyphjax.step_key(0, 3), s, jnp.int32(RIGHT))
    total += float(tr.reward)
    assert s.pos.tolist() == [1, 6]
    assert board(s).splitlines()[1] == "█░░░░░@█"
    s, tr = env.step(glyphjax.step_key(0, 4), s, jnp.int32(LEFT))  # back to (1,1): no rock in row 1
    total += float(tr.reward)
    assert s.pos.tolist() == [1, 1] and not bool(tr.terminated)
    assert total == pytest.approx(-5 / 100)


def test_icesliding__rock_stops_you_on_the_goal():
    env = glyphjax.make("classics/icesliding-easy")
    s = hand_state(["########",
                    "#...@..#",
                    "#......#",
                    "#......#",
                    "#......#",
                    "#...*..#",
                    "#...o..#",
                    "########"])
    s, tr = env.step(glyphjax.step_key(0, 0), s, jnp.int32(DOWN))
    assert bool(tr.terminated) and float(tr.reward) == 1.0 and int(tr.event) == 1
    assert glyphjax.render_text(env.card, env.render(s)).grid.splitlines()[5] == "█░░░@░░█"
    assert solve(np.asarray(s.rocks), (1, 4), (5, 4)) == 1


@pytest.mark.parametrize("task_id", IDS)
def test_icesliding__scripted_policy_is_optimal(task_id):
    env = glyphjax.make(task_id)
    seeds = jnp.arange(20, dtype=jnp.uint32)
    res = jax.device_get(glyphjax.rollout(env, env.scripted_policy, seeds))
    states = jax.device_get(jax.vmap(env.reset)(jax.vmap(glyphjax.reset_key)(seeds)))
    for i in range(20):
        k = solve(np.asarray(states.rocks[i]), tuple(states.pos[i].tolist()), tuple(states.goal[i].tolist()))
        assert bool(res.terminated[i]) and res.lengths[i] == k, f"{task_id} seed {i}: {res.lengths[i]} vs {k}"
