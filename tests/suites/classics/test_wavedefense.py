"""Wave Defense: rotation, firing at the first enemy in line, enemy walking and entering, wave
clear / kill rewards, losing nets the return to -1, the win, and a golden board."""

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics import wavedefense as wd

ENV = glyphjax.make("classics/wavedefense")
CW, CCW, FIRE, WAIT = range(4)
KEY = glyphjax.step_key(0, 0)
STEP = jax.jit(ENV.step)
RESET = jax.jit(ENV.reset)
RENDER = jax.jit(ENV.render)


def _state(aim, enemies, delay=None, wave=0, earned=0.0, t=0):
    s = RESET(glyphjax.reset_key(0))
    e = np.full((wd.MAX_E, 2), 0, np.int32)
    alive = np.zeros(wd.MAX_E, bool)
    for i, p in enumerate(enemies):
        e[i] = p
        alive[i] = True
    d = np.zeros(wd.MAX_E, np.int32) if delay is None else np.array(delay, np.int32)
    return s.replace(aim=jnp.int32(aim), enemies=jnp.asarray(e), alive=jnp.asarray(alive),
                     delay=jnp.asarray(d), wave=jnp.int32(wave), earned=jnp.float32(earned),
                     t=jnp.int32(t))


def _run(s, actions):
    trs = []
    for a in actions:
        s, tr = STEP(KEY, s, jnp.int32(a))
        trs.append(tr)
    return s, trs


def test_wavedefense__cannon_rotates_in_eight_steps():
    s, _ = _run(_state(0, [(0, 0)]), [CW, CW, CW])
    assert int(s.aim) == 3
    s, _ = _run(_state(0, [(0, 0)]), [CCW])
    assert int(s.aim) == 7


def test_wavedefense__fire_destroys_only_the_nearest_enemy_on_the_aimed_line():
    s = _state(2, [(7, 12), (7, 10), (3, 3)])  # right: columns 12 and 10; (3, 3) is up-left
    s, trs = _run(s, [FIRE])
    assert s.alive.tolist()[:3] == [True, False, True]
    assert abs(float(trs[0].reward) - 0.5 / 20) < 1e-7 and int(trs[0].event) == wd.EV_KILL
    s, trs = _run(s.replace(aim=jnp.int32(4)), [FIRE])
    assert int(trs[0].event) == wd.EV_MISS and float(trs[0].reward) == 0.0


def test_wavedefense__enemies_walk_every_other_turn_and_enter_when_due():
    s = _state(0, [(7, 14), (0, 0)], delay=[0, 2, 0, 0, 0, 0])
    s, _ = _run(s, [WAIT])  # t=0: no step
    assert s.enemies[0].tolist() == [7, 14] and int(s.delay[1]) == 1
    s, _ = _run(s, [WAIT])  # t=1: step
    assert s.enemies[0].tolist() == [7, 13] and s.enemies[1].tolist() == [0, 0] and int(s.delay[1]) == 0
    s, _ = _run(s, [WAIT, WAIT])
    assert s.enemies[1].tolist() == [1, 1], "entered enemy walks diagonally"


def test_wavedefense__reaching_the_cannon_nets_minus_one():
    s = _state(0, [(7, 8)], earned=0.3, t=1)
    _, trs = _run(s, [WAIT])
    assert bool(trs[0].terminated) and int(trs[0].event) == wd.EV_LOST
    assert abs(float(trs[0].reward) + 1.3) < 1e-6


def test_wavedefense__clearing_a_wave_pays_and_spawns_the_next_and_the_last_wins():
    s, trs = _run(_state(2, [(7, 9)], wave=0), [FIRE])
    assert abs(float(trs[0].reward) - (0.5 / 20 + 0.1)) < 1e-6 and int(trs[0].event) == wd.EV_WAVE
    assert int(s.wave) == 1 and int(s.alive.sum()) == 3
    assert (np.asarray(s.delay)[:3] == [0, 4, 8]).all()
    _, trs = _run(_state(2, [(7, 9)], wave=4), [FIRE])
    assert bool(trs[0].terminated) and int(trs[0].event) == wd.EV_WIN


def test_wavedefense__golden_board():
    s = _state(0, [(7, 13), (2, 2), (0, 7)], delay=[0, 0, 3, 0, 0, 0])
    s, _ = _run(s, [CW])
    expected = "\n".join([
        "··············⊹",
        "·············⊹·",
        "··Ж·········⊹··",
        "···········⊹···",
        "··········⊹····",
        "·········⊹·····",
        "········⊹······",
        "·······↗·····Ж·",
        "···············",
        "···············",
        "···············",
        "···············",
        "···············",
        "···············",
        "···············",
    ])
    obs = glyphjax.render_text(ENV.card, RENDER(s))
    assert obs.grid == expected, f"classics/wavedefense step 1:\n{obs.grid}"
    assert "Still to enter this wave: 1" in obs.hud
