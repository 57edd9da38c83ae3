"""Frogger: cars kill, water kills, logs carry (and can carry you off screen), goal pays +1."""

import jax
import jax.numpy as jnp

import glyphjax
from glyphjax.suites.classics import frogger as fr

ENV = glyphjax.make("classics/frogger")
UP, DOWN, LEFT, RIGHT, WAIT = range(5)
KEY = glyphjax.step_key(0, 0)
STEP = jax.jit(ENV.step)
RESET = jax.jit(ENV.reset)
RENDER = jax.jit(ENV.render)


def _state(frog, cells, direction, period=None):
    """cells: list of (row, col) occupied at offset 0; direction: {row: +-1}."""
    s = RESET(glyphjax.reset_key(0))
    lanes = jnp.zeros((fr.H, fr.W), bool)
    for r, c in cells:
        lanes = lanes.at[r, c].set(True)
    d = jnp.zeros(fr.H, jnp.int32)
    for r, v in direction.items():
        d = d.at[r].set(v)
    return s.replace(frog=jnp.array(frog, jnp.int32), lanes=lanes, offset=jnp.zeros(fr.H, jnp.int32),
                     direction=d, period=jnp.ones(fr.H, jnp.int32) if period is None else period)


def _step(s, a):
    return STEP(KEY, s, jnp.int32(a))


def test_frogger__hopping_into_a_car_kills():
    s = _state([9, 6], [(8, 6)], {8: 0})
    _, tr = _step(s, UP)
    assert bool(tr.terminated) and float(tr.reward) == -1.0 and int(tr.event) == fr.EV_CAR
    # a car driving into the frog kills too
    s = _state([8, 6], [(8, 5)], {8: 1})
    _, tr = _step(s, WAIT)
    assert bool(tr.terminated) and int(tr.event) == fr.EV_CAR


def test_frogger__water_kills_and_a_log_carries_you():
    _, tr = _step(_state([5, 6], [], {4: 1}), UP)
    assert bool(tr.terminated) and float(tr.reward) == -1.0 and int(tr.event) == fr.EV_WATER
    s2, tr = _step(_state([5, 6], [(4, 5), (4, 6), (4, 7)], {4: 1}), UP)
    assert not bool(tr.terminated) and s2.frog.tolist() == [4, 7], "the log moved the frog right"
    _, tr = _step(_state([5, 12], [(4, 12)], {4: 1}), UP)
    assert bool(tr.terminated) and int(tr.event) == fr.EV_EDGE, "carried off the right edge"


def test_frogger__reaching_the_goal_row_pays_plus_one():
    s2, tr = _step(_state([1, 3], [(1, 3)], {1: 0}), UP)
    assert bool(tr.terminated) and float(tr.reward) == 1.0 and int(tr.event) == fr.EV_HOME
    assert s2.frog.tolist() == [0, 3]


def test_frogger__lanes_wrap_around_and_slow_lanes_wait():
    period = jnp.full(fr.H, 2, jnp.int32)
    s = _state([9, 0], [(7, 0)], {7: -1}, period)
    s1, _ = _step(s, WAIT)  # t=0: moves (wraps to column 12)
    assert bool(fr.lane_cells(s1)[7, 12])
    s2, _ = _step(s1, WAIT)  # t=1: a period-2 lane waits
    assert bool(fr.lane_cells(s2)[7, 12])


def test_frogger__golden_board_after_one_hop():
    s = _state([9, 6], [(4, 3), (4, 4), (4, 5), (7, 2), (8, 10)], {4: 1, 7: -1, 8: 1})
    s, tr = _step(s, UP)
    assert not bool(tr.terminated)
    expected = "\n".join([
        "⌂⌂⌂⌂⌂⌂⌂⌂⌂⌂⌂⌂⌂",
        "≈≈≈≈≈≈≈≈≈≈≈≈≈",
        "≈≈≈≈≈≈≈≈≈≈≈≈≈",
        "≈≈≈≈≈≈≈≈≈≈≈≈≈",
        "≈≈≈≈═══≈≈≈≈≈≈",
        "·············",
        "·············",
        "·◙···········",
        "······@····◙·",
        "·············",
    ])
    got = glyphjax.render_text(ENV.card, RENDER(s)).grid
    assert got == expected, f"classics/frogger step 1:\n{got}"
