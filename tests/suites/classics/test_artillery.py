"""Artillery: aiming limits, shell physics against a plain float reference, craters, target
hits and scoring, running out of shells, and a golden board."""

import math

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics import artillery as ar

ENV = glyphjax.make("classics/artillery")
AIM_UP, AIM_DOWN, POWER_UP, POWER_DOWN, FIRE = range(5)
KEY = glyphjax.step_key(0, 0)
STEP = jax.jit(ENV.step)
RESET = jax.jit(ENV.reset)
RENDER = jax.jit(ENV.render)


def _state(height, targets, angle_deg=45, power=5, shots=30, alive=(True, True, True)):
    s = RESET(glyphjax.reset_key(0))
    return s.replace(height=jnp.array(height, jnp.int32), target_col=jnp.array(targets, jnp.int32),
                     target_alive=jnp.array(alive), angle=jnp.int32(ar.ANGLES.index(angle_deg)),
                     power=jnp.int32(power), shots=jnp.int32(shots))


def _step(s, a):
    return STEP(KEY, s, jnp.int32(a))


FLAT = [2] * ar.W


def _reference_landing(height, angle_deg, power):
    """Float reference of the documented physics: launch from the cannon cell centre at speed
    0.6*power, gravity 0.96, 4 sub-steps per time unit; first column whose ground it enters."""
    x = ar.CANNON_COL + 0.5
    y = height[ar.CANNON_COL] + 1.5
    th = math.radians(angle_deg)
    vx, vy = 0.6 * power * math.cos(th) / 4, 0.6 * power * math.sin(th) / 4
    for _ in range(ar.MAX_SUB):
        x, y = x + vx, y + vy
        vy -= 0.96 / 16
        col = math.floor(x)
        if col < 0 or col >= ar.W:
            return None
        if math.floor(y) < height[col]:
            return col
    return None


def test_artillery__angle_and_power_stay_in_range():
    s = _state(FLAT, [20, 24, 27], angle_deg=80, power=10)
    s2, _ = _step(s, AIM_UP)
    s2, _ = _step(s2, POWER_UP)
    assert int(s2.angle) == len(ar.ANGLES) - 1 and int(s2.power) == 10
    s = _state(FLAT, [20, 24, 27], angle_deg=10, power=1)
    s2, _ = _step(s, AIM_DOWN)
    s2, _ = _step(s2, POWER_DOWN)
    assert int(s2.angle) == 0 and int(s2.power) == 1
    assert int(s2.shots) == 30, "aiming does not use shells"


def test_artillery__shell_lands_where_the_float_reference_says():
    for angle, power in [(45, 5), (30, 7), (60, 6), (20, 9)]:
        s, _ = _step(_state(FLAT, [28, 28, 28], angle, power, alive=(False, False, True)), FIRE)
        ref = _reference_landing(FLAT, angle, power)
        got = int(s.impact) - 2
        assert ref is not None and abs(got - ref) <= 1, f"angle {angle} power {power}: {got} vs {ref}"


def test_artillery__hit_destroys_targets_within_one_cell_and_digs_a_crater():
    col = _reference_landing(FLAT, 45, 5)
    s, tr = _step(_state(FLAT, [col, col + 1, 27]), FIRE)
    assert s.target_alive.tolist() == [False, False, True]
    assert abs(float(tr.reward) - 2 / 3) < 1e-6 and int(tr.event) == ar.EV_HIT
    h = np.asarray(s.height)
    assert (h[col - 1:col + 2] < 2).all() and h[col + 3] == 2, "crater three columns wide"
    s, tr = _step(_state(FLAT, [col, 20, 27], alive=(True, False, False)), FIRE)
    assert bool(tr.terminated) and int(tr.event) == ar.EV_WIN and abs(float(tr.reward) - 1 / 3) < 1e-6


def test_artillery__last_shell_missing_ends_the_game():
    s, tr = _step(_state(FLAT, [27, 28, 26], power=1, shots=1), FIRE)
    assert bool(tr.terminated) and int(tr.event) == ar.EV_OUT and float(tr.reward) == 0.0
    assert int(s.shots) == 0


def test_artillery__golden_board_before_firing():
    height = [3] * 10 + [4] * 10 + [2] * 10
    s, _ = _step(_state(height, [12, 22, 28], power=5), POWER_UP)
    empty = " " * 30
    expected = "\n".join([empty] * 10 + [
        " " * 12 + "⊗" + " " * 17,
        "  ◭" + " " * 7 + "▒" * 10 + " " * 10,
        "▒" * 20 + "  ⊗     ⊗ ",
        "▒" * 30, "▒" * 30])
    obs = glyphjax.render_text(ENV.card, RENDER(s))
    assert obs.grid == expected, f"classics/artillery step 1:\n{obs.grid}"
    assert "Power: 6" in obs.hud and "Last impact column: none" in obs.hud


def test_artillery__generated_targets_are_distinct_and_to_the_right():
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(300, dtype=jnp.uint32))
    st = jax.device_get(jax.jit(jax.vmap(ENV.reset))(keys))
    for seed in range(300):
        tc = st.target_col[seed].tolist()
        assert len(set(tc)) == 3 and all(12 <= c <= ar.W - 2 for c in tc), f"seed {seed}: targets {tc}"
        h = st.height[seed]
        assert h.min() >= 2 and h.max() <= 8 and np.abs(np.diff(h)).max() <= 1, f"seed {seed}: terrain"


def test_artillery__fired_shell_path_is_drawn_above_the_ground():
    s, _ = _step(_state(FLAT, [28, 28, 28], 45, 5, alive=(False, False, True)), FIRE)
    grid = glyphjax.render_text(ENV.card, RENDER(s)).grid.split("\n")
    trail = [(r, c) for r, line in enumerate(grid) for c, ch in enumerate(line) if ch == ar.TRAIL]
    land = int(s.impact) - 2
    assert len(trail) >= 5 and all(ar.CANNON_COL <= c <= land for _, c in trail), trail
    assert all(r < ar.H - 2 for r, _ in trail), "the path is drawn in the air only"
