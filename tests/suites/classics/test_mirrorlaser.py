"""Mirror Laser: reflection rules, toggle, golden board, and solver certification on 1,000 seeds."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.types import init_state_fields
from glyphjax.suites.classics.mirrorlaser import LaserState

TASK = "classics/mirrorlaser"
MOVES = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
SLASH = {"R": "U", "U": "R", "L": "D", "D": "L"}
BACK = {"R": "D", "D": "R", "L": "U", "U": "L"}


def min_flips(mirrors, row, target):
    """Independent solver: DFS over the orientation of each mirror the beam meets (a mirror keeps
    the orientation chosen at its first meeting). Returns the fewest toggles that make the beam hit
    the target, or None if no orientation does."""
    n = mirrors.shape[0]
    best = [None]

    def go(r, c, d, chosen):
        for _ in range(4 * n * n + 1):
            dr, dc = MOVES[d]
            r, c = r + dr, c + dc
            if not (0 <= r < n and 0 <= c < n) or (c == 0 and r == row):
                return
            if (r, c) == target:
                flips = sum(1 for (cell, o) in chosen.items() if o != mirrors[cell])
                best[0] = flips if best[0] is None else min(best[0], flips)
                return
            if mirrors[r, c]:
                if (r, c) in chosen:
                    d = SLASH[d] if chosen[(r, c)] == 1 else BACK[d]
                else:
                    for o in (1, 2):
                        go(r, c, SLASH[d] if o == 1 else BACK[d], {**chosen, (r, c): o})
                    return
        raise AssertionError("beam did not terminate")

    go(row, 0, "R", {})
    return best[0]


def hand_state(rows):
    """'>' emitter (column 0), 'T' target, '/' and '\\' mirrors, '.' empty."""
    g = np.array([list(r) for r in rows])
    mirrors = np.where(g == "/", 1, np.where(g == "\\", 2, 0))
    return LaserState(**init_state_fields(), mirrors=jnp.asarray(mirrors, jnp.int32),
                      emitter_row=jnp.int32(np.argwhere(g == ">")[0][0]),
                      target=jnp.asarray(np.argwhere(g == "T")[0], jnp.int32))


def test_mirrorlaser__every_start_is_solvable_and_unsolved_on_1000_seeds():
    env = glyphjax.make(TASK)
    st = jax.device_get(jax.jit(jax.vmap(env.reset))(
        jax.vmap(glyphjax.reset_key)(jnp.arange(1000, dtype=jnp.uint32))))
    flips = []
    for seed in range(1000):
        m, row, target = np.asarray(st.mirrors[seed]), int(st.emitter_row[seed]), tuple(st.target[seed].tolist())
        assert m[target] == 0 and target != (row, 0) and m[:, 0].sum() == 0, f"{TASK} seed {seed}"
        k = min_flips(m, row, target)
        assert k is not None, f"{TASK} seed {seed}: no mirror setting hits the target"
        assert k >= 1, f"{TASK} seed {seed}: target already hit at the start"
        flips.append(k)
    fallback = int(((np.asarray(st.mirrors) > 0).sum((1, 2)) == 1).sum())
    assert fallback <= 10, f"{TASK}: {fallback} fallback layouts in 1000 seeds"


def test_mirrorlaser__golden_board_toggle_and_hit():
    env = glyphjax.make(TASK)
    s = hand_state([".......",
                    "..T....",
                    ".......",
                    ">.\\....",
                    ".......",
                    "..../..",
                    "......."])
    board = lambda st: glyphjax.render_text(env.card, env.render(st)).grid
    # the beam turns down at the '\' and leaves the board at the bottom
    assert board(s) == ("  0123456\n"
                        "0 ·······\n"
                        "1 ··⌖····\n"
                        "2 ·······\n"
                        "3 ☼─\\····\n"
                        "4 ··│····\n"
                        "5 ··│·/··\n"
                        "6 ··│····")
    s1, tr = env.step(glyphjax.step_key(0, 0), s, jnp.int32(0))  # empty cell: no-op
    assert float(tr.reward) == 0.0 and np.array_equal(np.asarray(s1.mirrors), np.asarray(s.mirrors))
    s2, tr = env.step(glyphjax.step_key(0, 1), s1, jnp.int32(3 * 7 + 2))  # '\' -> '/': beam goes up
    assert bool(tr.terminated) and float(tr.reward) == 1.0 and int(tr.event) == 1
    assert board(s2).splitlines()[3:5] == ["2 ··│····", "3 ☼─/····"]
    assert min_flips(np.asarray(s.mirrors), 3, (1, 2)) == 1


def test_mirrorlaser__reflections_follow_the_rules():
    env = glyphjax.make(TASK)
    # right -> '/' up -> '\' left... : emitter row 5, '/' at (5,4) sends up, '\' at (1,4) sends left
    s = hand_state([".......",
                    "T...\\..",
                    ".......",
                    ".......",
                    ".......",
                    ">.../..",
                    "......."])
    s1, tr = env.step(glyphjax.step_key(0, 0), s, jnp.int32(-1))
    assert bool(tr.terminated) and float(tr.reward) == 1.0, "beam should reach (1, 0) via / then \\"
    assert min_flips(np.asarray(s.mirrors), 5, (1, 0)) == 0
