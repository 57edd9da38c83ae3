"""Guard Evasion: sight cones blocked by walls, patrol reversal, capture, exit, golden board and
reachability of the exit on 1,000 seeds per variant (host-side BFS)."""

from collections import deque

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.suites.classics import guardevasion as ge

ENV = glyphjax.make("classics/guardevasion-easy")
UP, DOWN, LEFT, RIGHT, WAIT = range(5)
KEY = glyphjax.step_key(0, 0)
STEP = jax.jit(ENV.step)
RESET = jax.jit(ENV.reset)
RENDER = jax.jit(ENV.render)


def _state(player, guards, heading, extra_walls=()):
    s = RESET(glyphjax.reset_key(0))
    w = np.zeros((10, 10), bool)
    w[0, :] = w[-1, :] = w[:, 0] = w[:, -1] = True
    for r, c in extra_walls:
        w[r, c] = True
    return s.replace(walls=jnp.asarray(w), player=jnp.array(player, jnp.int32),
                     guards=jnp.array(guards, jnp.int32), heading=jnp.array(heading, jnp.int32))


def _step(s, a):
    return STEP(KEY, s, jnp.int32(a))


def test_guardevasion__guard_sees_three_cells_ahead_until_a_wall():
    s = _state([1, 1], [[5, 2], [8, 8]], [3, 2])
    seen = np.asarray(ge.guard_sight(s.walls, s.guards, s.heading))
    assert seen[5, 2] and seen[5, 3] and seen[5, 4] and seen[5, 5] and not seen[5, 6]
    s = _state([1, 1], [[5, 2], [8, 8]], [3, 2], extra_walls=[(5, 4)])
    seen = np.asarray(ge.guard_sight(s.walls, s.guards, s.heading))
    assert seen[5, 3] and not seen[5, 4] and not seen[5, 5], "the wall blocks the sight"


def test_guardevasion__guard_turns_round_at_a_wall():
    s = _state([1, 1], [[5, 8], [2, 5]], [3, 0], extra_walls=[(1, 5)])
    s2, _ = _step(s, WAIT)
    assert s2.guards.tolist() == [[5, 7], [3, 5]]
    assert s2.heading.tolist() == [2, 1]


def test_guardevasion__stepping_into_sight_is_caught_and_exit_wins():
    s = _state([4, 4], [[5, 2], [8, 2]], [3, 3])
    _, tr = _step(s, DOWN)  # into (5, 4): seen by guard 0 looking right
    assert bool(tr.terminated) and float(tr.reward) == -1.0 and int(tr.event) == ge.EV_CAUGHT
    # the guard's move brings the player into sight: also caught
    s = _state([2, 6], [[2, 1], [8, 2]], [3, 3])
    _, tr = _step(s, WAIT)  # guard 0 moves to (2, 2) and sees (2, 3..5): not yet
    assert not bool(tr.terminated)
    _, tr = _step(_state([2, 5], [[2, 1], [8, 2]], [3, 3]), WAIT)
    assert bool(tr.terminated) and int(tr.event) == ge.EV_CAUGHT
    _, tr = _step(_state([8, 7], [[2, 1], [3, 1]], [1, 1]), RIGHT)
    assert bool(tr.terminated) and float(tr.reward) == 1.0 and int(tr.event) == ge.EV_EXIT


def test_guardevasion__golden_board_after_one_move():
    s = _state([1, 1], [[6, 2], [2, 7]], [3, 1], extra_walls=[(3, 3), (3, 4), (3, 5)])
    s, tr = _step(s, RIGHT)
    assert not bool(tr.terminated)
    expected = "\n".join([
        "██████████",
        "█·@······█",
        "█········█",
        "█··███·♜·█",
        "█······∷·█",
        "█······∷·█",
        "█··♜∷∷∷∷·█",
        "█········█",
        "█·······⌧█",
        "██████████",
    ])
    got = glyphjax.render_text(ENV.card, RENDER(s)).grid
    assert got == expected, f"classics/guardevasion-easy step 1:\n{got}"


def _reachable(walls, a, b):
    seen, todo = {a}, deque([a])
    while todo:
        r, c = todo.popleft()
        if (r, c) == b:
            return True
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            n = (r + dr, c + dc)
            if not walls[n] and n not in seen:
                seen.add(n)
                todo.append(n)
    return False


@pytest.mark.parametrize("variant", ["easy", "medium", "hard"])
def test_guardevasion__exit_reachable_and_start_unseen_on_1000_seeds(variant):
    env = glyphjax.make(f"classics/guardevasion-{variant}")
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(1000, dtype=jnp.uint32))
    st = jax.device_get(jax.jit(jax.vmap(env.reset))(keys))
    n_walled = 0
    for seed in range(1000):
        w = st.walls[seed]
        p, e = tuple(st.player[seed]), tuple(st.exit[seed])
        assert _reachable(w, p, e), f"guardevasion-{variant} seed {seed}: exit unreachable"
        g = st.guards[seed]
        assert not w[g[:, 0], g[:, 1]].any(), f"guardevasion-{variant} seed {seed}: guard in a wall"
        assert (np.abs(g - np.array(p)).sum(1) >= 6).all(), f"guardevasion-{variant} seed {seed}: guard too close"
        n_walled += int(w[1:-1, 1:-1].any())
    assert n_walled > 900, f"guardevasion-{variant}: only {n_walled} levels kept interior walls"
