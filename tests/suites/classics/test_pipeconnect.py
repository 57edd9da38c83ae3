"""Pipe Connect: rotation, joins, golden board, and solver certification on 1,000 seeds."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.types import init_state_fields
from glyphjax.suites.classics.pipeconnect import PipeState

IDS = ["classics/pipeconnect-easy", "classics/pipeconnect-medium", "classics/pipeconnect-hard"]
DELTA = {0: (-1, 0), 1: (0, 1), 2: (1, 0), 3: (0, -1)}  # bit index -> (dr, dc): UP RIGHT DOWN LEFT


def joined(masks):
    """Host flood from the source through mutually open sides."""
    n = masks.shape[0]
    seen, stack = {(0, 0)}, [(0, 0)]
    while stack:
        r, c = stack.pop()
        for b, (dr, dc) in DELTA.items():
            rr, cc = r + dr, c + dc
            if 0 <= rr < n and 0 <= cc < n and masks[r, c] >> b & 1 and masks[rr, cc] >> ((b + 2) % 4) & 1:
                if (rr, cc) not in seen:
                    seen.add((rr, cc))
                    stack.append((rr, cc))
    return seen


def can_link(mask, a, b):
    """Can the tile with opening bits `mask` be rotated to open both sides a and b?"""
    need = (1 << a) | (1 << b)
    return any((((mask << k) | (mask >> (4 - k))) & 15) & need == need for k in range(4))


def solvable(masks):
    """Independent solver: DFS for a simple source-to-drain path in which every pipe can be
    rotated to open towards both its path neighbours (the source and drain are open all round)."""
    n = masks.shape[0]
    goal = (n - 1, n - 1)

    def dfs(cell, came_from, visited):
        r, c = cell
        for b in sorted(DELTA, key=lambda b: -(DELTA[b][0] + DELTA[b][1])):  # towards the drain first
            dr, dc = DELTA[b]
            nxt = (r + dr, c + dc)
            if not (0 <= nxt[0] < n and 0 <= nxt[1] < n) or nxt in visited:
                continue
            if came_from is not None and not can_link(int(masks[r, c]), came_from, b):
                continue
            if nxt == goal:
                return True
            if dfs(nxt, (b + 2) % 4, visited | {nxt}):
                return True
        return False

    return dfs((0, 0), None, {(0, 0)})


@pytest.mark.parametrize("task_id", IDS)
def test_pipeconnect__every_start_is_solvable_and_unsolved_on_1000_seeds(task_id):
    env = glyphjax.make(task_id)
    st = jax.device_get(jax.jit(jax.vmap(env.reset))(
        jax.vmap(glyphjax.reset_key)(jnp.arange(1000, dtype=jnp.uint32))))
    n = env.size
    for seed in range(1000):
        m = np.asarray(st.masks[seed])
        assert m[0, 0] == 15 and m[n - 1, n - 1] == 15
        inner = np.delete(m.ravel(), [0, n * n - 1])
        bits = np.array([bin(x).count("1") for x in inner])
        assert ((bits == 2) | (bits == 3)).all(), f"{task_id} seed {seed}: a tile is not a pipe"
        assert (n - 1, n - 1) not in joined(m), f"{task_id} seed {seed}: connected at the start"
        assert solvable(m), f"{task_id} seed {seed}: no rotation joins source and drain"


def test_pipeconnect__rotation_golden_boards_and_connection():
    env = glyphjax.make("classics/pipeconnect-easy")
    # path along the top row then down the right column; the corner elbow is turned wrong
    rows = [[15, 10, 10, 10, 3],  # '┗' at (0,4) must become '┓' (12): two clockwise turns
            [5, 5, 5, 5, 5],
            [5, 5, 5, 5, 5],
            [5, 5, 5, 5, 5],
            [5, 5, 5, 10, 15]]
    s = PipeState(**init_state_fields(), masks=jnp.asarray(rows, jnp.int32))
    board = lambda st: glyphjax.render_text(env.card, env.render(st)).grid
    assert board(s) == ("  01234\n"
                        "0 ⊛━━━┗\n"
                        "1 ┃┃┃┃┃\n"
                        "2 ┃┃┃┃┃\n"
                        "3 ┃┃┃┃┃\n"
                        "4 ┃┃┃━⊘")
    s, tr = env.step(glyphjax.step_key(0, 0), s, jnp.int32(4))
    assert board(s).splitlines()[1] == "0 ⊛━━━┏" and not bool(tr.terminated) and float(tr.reward) == 0.0
    s, tr = env.step(glyphjax.step_key(0, 1), s, jnp.int32(4))
    assert board(s).splitlines()[1] == "0 ⊛━━━┓"
    assert bool(tr.terminated) and float(tr.reward) == 1.0 and int(tr.event) == 1
    # rotating the source is a no-op
    s0 = PipeState(**init_state_fields(), masks=jnp.asarray(rows, jnp.int32))
    s1, tr = env.step(glyphjax.step_key(0, 2), s0, jnp.int32(0))
    assert np.array_equal(np.asarray(s1.masks), np.asarray(s0.masks)) and float(tr.reward) == 0.0
    assert solvable(np.asarray(rows)) and not solvable(np.where(np.asarray(rows) == 3, 5, np.asarray(rows)))
