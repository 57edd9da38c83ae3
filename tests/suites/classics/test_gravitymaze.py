"""Gravity Maze: gravity, jumping, falling off, the goal, a golden board, and solvability of
1,000 generated levels certified by an independent host-side BFS."""

from collections import deque

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics import gravitymaze as gm

ENV = glyphjax.make("classics/gravitymaze")
LEFT, RIGHT, JUMP = 0, 1, 2
KEY = glyphjax.step_key(0, 0)
STEP = jax.jit(ENV.step)
RESET = jax.jit(ENV.reset)
RENDER = jax.jit(ENV.render)


def _level(heights, ball, goal):
    """heights: ground height of columns 1..10 (0 = pit)."""
    g = np.zeros((gm.H, gm.W), bool)
    for c, h in enumerate(heights, start=1):
        if h:
            g[gm.H - h:, c] = True
    s = RESET(glyphjax.reset_key(0))
    return s.replace(ground=jnp.asarray(g), ball=jnp.array(ball, jnp.int32), goal=jnp.array(goal, jnp.int32))


def _step(s, a):
    return STEP(KEY, s, jnp.int32(a))


FLAT = [1] * 10


def test_gravitymaze__unsupported_ball_falls_and_grounded_ball_stays():
    s, _ = _step(_level(FLAT, [3, 2], [6, 9]), LEFT)
    assert s.ball.tolist() == [4, 1], "moved left then fell one row"
    s, _ = _step(_level(FLAT, [6, 2], [6, 9]), RIGHT)
    assert s.ball.tolist() == [6, 3]


def test_gravitymaze__jump_rises_two_only_when_grounded_and_stops_at_ceilings():
    s, _ = _step(_level(FLAT, [6, 2], [6, 9]), JUMP)
    assert s.ball.tolist() == [4, 2]
    s, _ = _step(_level(FLAT, [4, 2], [6, 9]), JUMP)
    assert s.ball.tolist() == [5, 2], "jump in the air is ignored: gravity applies"
    lvl = _level(FLAT, [6, 2], [6, 9])
    lvl = lvl.replace(ground=lvl.ground.at[4, 2].set(True))
    s, _ = _step(lvl, JUMP)
    assert s.ball.tolist() == [5, 2], "a block two rows up limits the jump to one row"


def test_gravitymaze__falling_out_of_the_bottom_pays_minus_one_and_goal_plus_one():
    heights = [1, 1, 0, 1, 1, 1, 1, 1, 1, 1]
    s, tr = _step(_level(heights, [7, 3], [6, 9]), LEFT)  # inside the pit, bottom row
    assert bool(tr.terminated) and float(tr.reward) == -1.0 and int(tr.event) == gm.EV_FELL
    _, tr = _step(_level(FLAT, [6, 8], [6, 9]), RIGHT)
    assert bool(tr.terminated) and float(tr.reward) == 1.0 and int(tr.event) == gm.EV_GOAL


def test_gravitymaze__golden_board_after_a_step_right():
    s = _level([1, 1, 1, 2, 2, 0, 1, 1, 3, 3], [6, 1], [4, 9])
    s, tr = _step(s, RIGHT)
    assert not bool(tr.terminated)
    expected = "\n".join([
        "████████████",
        "█          █",
        "█          █",
        "█          █",
        "█        ★ █",
        "█        ▒▒█",
        "█ @ ▒▒   ▒▒█",
        "█▒▒▒▒▒ ▒▒▒▒█",
    ])
    got = glyphjax.render_text(ENV.card, RENDER(s)).grid
    assert got == expected, f"classics/gravitymaze step 1:\n{got}"


def _ref_move(solid, r, c, a):
    """The documented rules, written independently: sideways move, then jump or gravity."""
    h, w = solid.shape

    def free(rr, cc):
        return rr >= h or not solid[rr, cc]
    dc = {LEFT: -1, RIGHT: 1, JUMP: 0}[a]
    if free(r, c + dc):
        c += dc
    if a == JUMP and not free(r + 1, c):
        for _ in range(2):
            if free(r - 1, c):
                r -= 1
        return r, c
    if free(r + 1, c):
        r += 1
    return r, c


def _solvable(ground, ball, goal):
    solid = ground.copy()
    solid[0, :] = solid[:, 0] = solid[:, -1] = True
    start = (int(ball[0]), int(ball[1]))
    seen, todo = {start}, deque([start])
    while todo:
        r, c = todo.popleft()
        if (r, c) == (int(goal[0]), int(goal[1])):
            return True
        for a in (LEFT, RIGHT, JUMP):
            nxt = _ref_move(solid, r, c, a)
            if nxt[0] < solid.shape[0] and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def test_gravitymaze__1000_generated_levels_are_solvable():
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(1000, dtype=jnp.uint32))
    states = jax.device_get(jax.jit(jax.vmap(ENV.reset))(keys))
    for seed in range(1000):
        g, b, goal = states.ground[seed], states.ball[seed], states.goal[seed]
        assert not g[b[0], b[1]] and g[b[0] + 1, b[1]], f"seed {seed}: ball not standing on ground"
        assert _solvable(g, b, goal), f"classics/gravitymaze seed {seed}: goal unreachable"
