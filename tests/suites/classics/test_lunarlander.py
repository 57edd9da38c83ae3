"""Lunar Lander: half-cell fixed-point gravity and thrust, fuel, landing limits, crashes,
leaving the screen, and a golden board with the velocity HUD."""

import jax
import jax.numpy as jnp

import glyphjax
from glyphjax.suites.classics import lunarlander as ll

ENV = glyphjax.make("classics/lunarlander")
UP, LEFT, RIGHT, NOOP = range(4)
KEY = glyphjax.step_key(0, 0)
STEP = jax.jit(ENV.step)
RESET = jax.jit(ENV.reset)
RENDER = jax.jit(ENV.render)


def _state(pos2, vel2, fuel=100):
    s = RESET(glyphjax.reset_key(0))
    return s.replace(pos2=jnp.array(pos2, jnp.int32), vel2=jnp.array(vel2, jnp.int32),
                     fuel=jnp.int32(fuel), surface=jnp.full(ll.W, ll.H - 3, jnp.int32),
                     pad_left=jnp.int32(8))


def _step(s, a):
    return STEP(KEY, s, jnp.int32(a))


def test_lunarlander__gravity_adds_half_a_cell_per_turn_and_thrust_costs_fuel():
    s, _ = _step(_state([4, 21], [0, 0]), NOOP)
    assert s.vel2.tolist() == [1, 0] and s.pos2.tolist() == [5, 21] and int(s.fuel) == 100
    s, _ = _step(_state([4, 21], [0, 0]), UP)
    assert s.vel2.tolist() == [-1, 0] and s.pos2.tolist() == [3, 21] and int(s.fuel) == 99
    s, _ = _step(_state([4, 21], [0, 0]), RIGHT)
    assert s.vel2.tolist() == [1, 1] and int(s.fuel) == 99
    s, _ = _step(_state([4, 21], [0, 0], fuel=0), UP)
    assert s.vel2.tolist() == [1, 0] and int(s.fuel) == 0, "no thrust without fuel"


def test_lunarlander__soft_touchdown_on_the_pad_wins():
    s, tr = _step(_state([22, 19], [2, 0]), NOOP)  # vy becomes 1.5: the limit
    assert bool(tr.terminated) and float(tr.reward) == 1.0 and int(tr.event) == ll.EV_LANDED


def test_lunarlander__fast_or_off_pad_touchdown_and_leaving_the_screen_crash():
    _, tr = _step(_state([22, 19], [3, 0]), NOOP)  # vy 2.0 > 1.5
    assert bool(tr.terminated) and float(tr.reward) == -1.0 and int(tr.event) == ll.EV_CRASH
    _, tr = _step(_state([22, 19], [2, 3]), NOOP)  # |vx| 1.5 > 1
    assert float(tr.reward) == -1.0 and int(tr.event) == ll.EV_CRASH
    _, tr = _step(_state([22, 5], [2, 0]), NOOP)  # column 2: not the pad
    assert float(tr.reward) == -1.0 and int(tr.event) == ll.EV_CRASH
    _, tr = _step(_state([10, 1], [0, -2]), NOOP)
    assert bool(tr.terminated) and float(tr.reward) == -1.0 and int(tr.event) == ll.EV_OFF


def test_lunarlander__golden_board_and_velocity_hud():
    s, _ = _step(_state([6, 9], [0, 0]), NOOP)
    empty = " " * 20
    expected = "\n".join([empty] * 3 + ["    @" + " " * 15] + [empty] * 8 + [
        "▒▒▒▒▒▒▒▒▬▬▬▒▒▒▒▒▒▒▒▒", "▒" * 20, "▒" * 20])
    obs = glyphjax.render_text(ENV.card, RENDER(s))
    assert obs.grid == expected, f"classics/lunarlander step 1:\n{obs.grid}"
    assert obs.hud == "Step: 1 / 300    Fuel: 100    vx: +0.0    vy: +0.5", obs.hud


def test_lunarlander__generated_pads_are_flat_three_wide_and_start_is_airborne():
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(300, dtype=jnp.uint32))
    st = jax.device_get(jax.jit(jax.vmap(ENV.reset))(keys))
    for seed in range(300):
        left, surf = int(st.pad_left[seed]), st.surface[seed]
        assert 0 <= left and left + ll.PAD_W <= ll.W, f"seed {seed}: pad off screen"
        assert len(set(surf[left:left + ll.PAD_W].tolist())) == 1, f"seed {seed}: pad not flat"
        r, c = st.pos2[seed] // 2
        assert r < surf[c] - 3, f"seed {seed}: lander starts too close to the ground"
        assert st.fuel[seed] == ll.FUEL
