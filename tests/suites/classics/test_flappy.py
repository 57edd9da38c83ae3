"""Flappy: flap/fall physics, pipe collisions, scoring per pipe, the 50-pipe win, golden board."""

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics import flappy as fl

ENV = glyphjax.make("classics/flappy")
FLAP, NOOP = 0, 1
KEY = glyphjax.step_key(0, 0)
STEP = jax.jit(ENV.step)
RESET = jax.jit(ENV.reset)
RENDER = jax.jit(ENV.render)


def _state(bird_row, pipe_x, gaps, passed=0):
    s = RESET(glyphjax.reset_key(0))
    return s.replace(bird_row=jnp.int32(bird_row), pipe_x=jnp.array(pipe_x, jnp.int32),
                     gap_top=jnp.array(gaps, jnp.int32), passed=jnp.int32(passed))


def _board(state):
    return glyphjax.render_text(ENV.card, RENDER(state)).grid


def test_flappy__flap_rises_one_row_and_noop_falls_one_row():
    s = _state(4, [12, 18, 24, 30], [1, 1, 1, 1])
    up, tr = STEP(KEY, s, jnp.int32(FLAP))
    down, _ = STEP(KEY, s, jnp.int32(NOOP))
    assert int(up.bird_row) == 3 and int(down.bird_row) == 5
    assert float(tr.reward) == 0.0 and not bool(tr.terminated)
    top, _ = STEP(KEY, _state(0, [12, 18, 24, 30], [1, 1, 1, 1]), jnp.int32(FLAP))
    assert int(top.bird_row) == 0, "row 0 is a ceiling"


def test_flappy__hitting_a_pipe_or_the_ground_ends_with_zero_reward():
    # pipe one column ahead, gap rows 1..3, bird at row 6 falling to row 7: collides
    s = _state(6, [fl.BIRD_COL + 1, 18, 24, 30], [1, 1, 1, 1])
    _, tr = STEP(KEY, s, jnp.int32(NOOP))
    assert bool(tr.terminated) and float(tr.reward) == 0.0
    assert int(tr.event) == fl.EV_CRASH_PIPE
    # the same pipe with the bird flapping into the gap survives
    _, tr = STEP(KEY, _state(4, [fl.BIRD_COL + 1, 18, 24, 30], [1, 1, 1, 1]), jnp.int32(FLAP))
    assert not bool(tr.terminated)
    _, tr = STEP(KEY, _state(fl.GROUND_ROW - 1, [12, 18, 24, 30], [1, 1, 1, 1]), jnp.int32(NOOP))
    assert bool(tr.terminated) and int(tr.event) == fl.EV_CRASH_GROUND and float(tr.reward) == 0.0


def test_flappy__passing_a_pipe_pays_one_fiftieth_and_the_fiftieth_wins():
    s = _state(3, [fl.BIRD_COL, 10, 16, 22], [2, 2, 2, 2], passed=7)
    s2, tr = STEP(KEY, s, jnp.int32(FLAP))
    assert abs(float(tr.reward) - 1 / 50) < 1e-7 and int(s2.passed) == 8
    s3, tr = STEP(KEY, s.replace(passed=jnp.int32(49)), jnp.int32(FLAP))
    assert bool(tr.terminated) and int(tr.event) == fl.EV_WIN and int(s3.passed) == 50


def test_flappy__scrolled_pipes_recycle_to_the_right():
    s = _state(3, [0, 6, 12, 18], [2, 2, 2, 2])
    s2, _ = STEP(KEY, s, jnp.int32(FLAP))
    np.testing.assert_array_equal(np.asarray(s2.pipe_x), [23, 5, 11, 17])
    assert 1 <= int(s2.gap_top[0]) <= fl.GROUND_ROW - fl.GAP - 1


def test_flappy__golden_board_after_one_fall():
    s = _state(4, [6, 12, 18, 24], [2, 4, 1, 3])
    s, _ = STEP(KEY, s, jnp.int32(NOOP))
    expected = "\n".join([
        "     ║     ║     ║  ",
        "     ║     ║        ",
        "           ║        ",
        "           ║        ",
        "                 ║  ",
        "    @║           ║  ",
        "     ║           ║  ",
        "     ║     ║     ║  ",
        "     ║     ║     ║  ",
        "▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒",
    ])
    assert _board(s) == expected, f"classics/flappy step 1:\n{_board(s)}"
