"""Farm: planting, 3 waterings per growth stage, harvesting, selling at the market, the 30-gold
win and a golden board."""

import jax
import jax.numpy as jnp

import glyphjax
from glyphjax.suites.classics import farm as fm

ENV = glyphjax.make("classics/farm")
UP, DOWN, LEFT, RIGHT, PLANT, WATER, HARVEST, WAIT = range(8)
KEY = glyphjax.step_key(0, 0)
STEP = jax.jit(ENV.step)
RESET = jax.jit(ENV.reset)
RENDER = jax.jit(ENV.render)


def _run(s, actions):
    rewards = []
    for a in actions:
        s, tr = STEP(KEY, s, jnp.int32(a))
        rewards.append(float(tr.reward))
    return s, rewards


def _start(player=(3, 1), carried=0, gold=0):
    s = RESET(glyphjax.reset_key(0))
    return s.replace(player=jnp.array(player, jnp.int32), carried=jnp.int32(carried), gold=jnp.int32(gold))


def test_farm__six_waterings_grow_a_seed_to_ripe():
    s, _ = _run(_start(), [PLANT])
    assert int(s.stage[3, 1]) == 1
    s, _ = _run(s, [WATER, WATER])
    assert int(s.stage[3, 1]) == 1 and int(s.water[3, 1]) == 2
    s, _ = _run(s, [WATER])
    assert int(s.stage[3, 1]) == 2 and int(s.water[3, 1]) == 0, "3 waterings = one stage"
    s, _ = _run(s, [WATER] * 3)
    assert int(s.stage[3, 1]) == 3
    s2, _ = _run(s, [WATER])
    assert int(s2.stage[3, 1]) == 3 and int(s2.water[3, 1]) == 0, "a ripe crop takes no water"
    s, _ = _run(s, [HARVEST])
    assert int(s.stage[3, 1]) == 0 and int(s.carried) == 1


def test_farm__actions_off_the_field_do_nothing():
    s0 = _start(player=(1, 1))
    s, r = _run(s0, [PLANT, WATER, HARVEST])
    assert int(s.stage.sum()) == 0 and int(s.carried) == 0 and sum(r) == 0.0
    s, _ = _run(_start(), [HARVEST])
    assert int(s.carried) == 0, "harvesting an unripe plot does nothing"


def test_farm__selling_pays_one_thirtieth_per_gold_and_30_gold_wins():
    s, r = _run(_start(player=(1, 5), carried=4), [RIGHT])
    assert int(s.gold) == 4 and int(s.carried) == 0 and abs(r[0] - 4 / 30) < 1e-6
    s = _start(player=(1, 5), carried=5, gold=27)
    s2, tr = STEP(KEY, s, jnp.int32(RIGHT))
    assert bool(tr.terminated) and int(tr.event) == fm.EV_WIN
    assert abs(float(tr.reward) - 3 / 30) < 1e-6, "gold above 30 pays nothing"


def test_farm__golden_board():
    s, _ = _run(_start(), [PLANT, RIGHT, PLANT] + [WATER] * 3 + [DOWN, PLANT, RIGHT])
    expected = "\n".join([
        "████████",
        "█·····$█",
        "█······█",
        "█◦♧▫▫··█",
        "█▫◦@▫··█",
        "█▫▫▫▫··█",
        "█▫▫▫▫··█",
        "████████",
    ])
    got = glyphjax.render_text(ENV.card, RENDER(s))
    assert got.grid == expected, f"classics/farm step 10:\n{got.grid}"
