"""Ski: one row down per turn, sideways steering, gates, obstacles (death nets the return to -1),
the finish, every gate reachable on generated courses, and a golden scrolled view."""

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics import ski as sk

ENV = glyphjax.make("classics/ski")
LEFT, RIGHT, NOOP = range(3)
KEY = glyphjax.step_key(0, 0)
STEP = jax.jit(ENV.step)
RESET = jax.jit(ENV.reset)
RENDER = jax.jit(ENV.render)


def _state(row, col, cells, earned=0.0, gates=0):
    """cells: {(slope_row, col): code} with codes 1 tree, 2 rock, 3 flag, 4 gate opening."""
    s = RESET(glyphjax.reset_key(0))
    course = np.zeros((sk.WORLD_H, sk.W), np.int8)
    for (r, c), v in cells.items():
        course[r + sk.PAD_TOP, c] = v
    return s.replace(course=jnp.asarray(course), row=jnp.int32(row), col=jnp.int32(col),
                     earned=jnp.float32(earned), gates=jnp.int32(gates))


def _gate(row, centre):
    return {(row, centre - 2): 3, (row, centre - 1): 4, (row, centre): 4, (row, centre + 1): 4,
            (row, centre + 2): 3}


def _step(s, a):
    return STEP(KEY, s, jnp.int32(a))


def test_ski__each_turn_moves_one_row_down_and_steers_within_the_edges():
    s, _ = _step(_state(0, 7, {}), LEFT)
    assert (int(s.row), int(s.col)) == (1, 6)
    s, _ = _step(_state(0, 14, {}), RIGHT)
    assert (int(s.row), int(s.col)) == (1, 14)


def test_ski__gate_pays_one_twentieth_and_obstacles_end_the_run_at_minus_one():
    s, tr = _step(_state(4, 7, _gate(5, 8)), NOOP)
    assert abs(float(tr.reward) - 1 / 20) < 1e-7 and int(s.gates) == 1 and int(tr.event) == sk.EV_GATE
    _, tr = _step(_state(4, 7, _gate(5, 3)), NOOP)
    assert float(tr.reward) == 0.0 and int(tr.event) == sk.EV_MISS and not bool(tr.terminated)
    _, tr = _step(_state(4, 7, _gate(5, 9)), NOOP)  # flag post at column 7
    assert bool(tr.terminated) and int(tr.event) == sk.EV_CRASH
    _, tr = _step(_state(10, 5, {(11, 6): 1}, earned=0.3), RIGHT)
    assert bool(tr.terminated) and abs(float(tr.reward) + 1.3) < 1e-6, "tree: -1 - earned"


def test_ski__row_100_is_the_finish():
    _, tr = _step(_state(99, 7, {}), NOOP)
    assert bool(tr.terminated) and int(tr.event) == sk.EV_FINISH


def test_ski__every_gate_can_be_passed_on_generated_courses():
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(300, dtype=jnp.uint32))
    courses = np.asarray(jax.jit(jax.vmap(ENV.reset))(keys).course)
    for seed in range(300):
        c = courses[seed, sk.PAD_TOP:]
        reach = np.zeros(sk.W, bool)
        reach[sk.W // 2] = True
        for y in range(1, sk.ROWS + 1):
            spread = reach | np.roll(reach, 1) & (np.arange(sk.W) > 0) | np.roll(reach, -1) & (np.arange(sk.W) < sk.W - 1)
            ok = (c[y] == 0) | (c[y] == 4)
            if y % sk.GATE_EVERY == 0:
                assert (c[y] == 4).sum() == sk.GATE_W, f"seed {seed} row {y}: gate opening width"
                ok = c[y] == 4
            reach = spread & ok
            assert reach.any(), f"classics/ski seed {seed}: no way through every gate at row {y}"


def test_ski__golden_scrolled_view():
    s = _state(0, 7, {(2, 7): 1, (4, 3): 2, **_gate(5, 7)})
    s, _ = _step(s, LEFT)
    blank = " " * 15
    expected = "\n".join([blank, blank, blank, "      @        ", "       ↟       ", blank,
                          "   ⬟           ", "     ⚑┈┈┈⚑     "] + [blank] * 12)
    obs = glyphjax.render_text(ENV.card, RENDER(s))
    assert obs.grid == expected, f"classics/ski step 1:\n{obs.grid}"
    assert "Slope row: 1 / 100" in obs.hud
