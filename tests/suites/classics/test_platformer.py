"""Platformer: walking and blocking, the 3-cell jump arc, pits, enemies (stomp vs. touch),
progress reward, the flag, death netting the return to -1, and a golden scrolled view."""

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics import platformer as pf

ENV = glyphjax.make("classics/platformer")
LEFT, RIGHT, JUMP, NOOP = range(4)
KEY = glyphjax.step_key(0, 0)
STEP = jax.jit(ENV.step)
RESET = jax.jit(ENV.reset)
RENDER = jax.jit(ENV.render)


def _state(pos, blocks=(), pits=(), enemies=(), best=None, earned=0.0, t=0):
    s = RESET(glyphjax.reset_key(0))
    solid = np.zeros((pf.H, pf.LEVEL_W), bool)
    solid[pf.GROUND_TOP:, :] = True
    for c in pits:
        solid[:, c] = False
    for r, c in blocks:
        solid[r, c] = True
    e = np.zeros((pf.N_ENEMIES, 2), np.int32)
    alive = np.zeros(pf.N_ENEMIES, bool)
    for i, (r, c) in enumerate(enemies):
        e[i] = (r, c)
        alive[i] = True
    return s.replace(solid=jnp.asarray(solid), pos=jnp.array(pos, jnp.int32), rise=jnp.int32(0),
                     enemies=jnp.asarray(e), enemy_alive=jnp.asarray(alive),
                     enemy_dir=-jnp.ones(pf.N_ENEMIES, jnp.int32),
                     best_x=jnp.int32(pos[1] if best is None else best), earned=jnp.float32(earned),
                     t=jnp.int32(t))


def _run(s, actions):
    trs = []
    for a in actions:
        s, tr = STEP(KEY, s, jnp.int32(a))
        trs.append(tr)
    return s, trs


def test_platformer__blocks_stop_walking_and_progress_pays_once():
    s, trs = _run(_state([9, 5], blocks=[(9, 7)]), [RIGHT, RIGHT, LEFT, RIGHT])
    assert s.pos.tolist() == [9, 6]
    r = [float(t.reward) for t in trs]
    assert abs(r[0] - 0.5 / (pf.FLAG_X - pf.START_X)) < 1e-7 and r[1:] == [0.0, 0.0, 0.0]


def test_platformer__jump_rises_three_then_falls():
    s, _ = _run(_state([9, 5]), [JUMP])
    rows = [int(s.pos[0])]
    for _ in range(6):
        s, _ = _run(s, [NOOP])
        rows.append(int(s.pos[0]))
    assert rows == [8, 7, 6, 7, 8, 9, 9]
    s, _ = _run(_state([9, 5], blocks=[(7, 5)]), [JUMP, NOOP])
    assert int(s.pos[0]) == 8, "a ceiling cuts the jump short"


def test_platformer__pit_kills_with_return_minus_one():
    s = _state([9, 5], pits=[6], earned=0.2)
    s, trs = _run(s, [RIGHT, NOOP])
    s, trs2 = _run(s, [NOOP])
    trs += trs2
    dead = [t for t in trs if bool(t.terminated)]
    assert len(dead) == 1 and int(dead[0].event) == pf.EV_PIT
    total = 0.2 + sum(float(t.reward) for t in trs)
    assert abs(total + 1.0) < 1e-6, f"return after death {total}"


def test_platformer__stomping_squashes_touching_kills():
    # falling onto an enemy from above (it walks from column 11 to 10 on the first turn)
    s = _state([7, 10], enemies=[(9, 11)], t=1)
    s, trs = _run(s, [NOOP, NOOP])
    assert not bool(s.enemy_alive[0]) and int(trs[-1].event) == pf.EV_STOMP
    assert not any(bool(t.terminated) for t in trs)
    # walking into an enemy
    _, trs = _run(_state([9, 10], enemies=[(9, 11)], t=0), [RIGHT])
    assert bool(trs[0].terminated) and int(trs[0].event) == pf.EV_ENEMY


def test_platformer__flag_pays_half_and_ends():
    _, trs = _run(_state([9, pf.FLAG_X - 1], best=pf.FLAG_X - 1), [RIGHT])
    expected = 0.5 + 0.5 / (pf.FLAG_X - pf.START_X)
    assert bool(trs[0].terminated) and abs(float(trs[0].reward) - expected) < 1e-6


def test_platformer__golden_scrolled_view():
    s = _state([9, 29], blocks=[(9, 33), (8, 33)], pits=[36, 37], enemies=[(9, 40)], t=0)
    s, _ = _run(s, [RIGHT])  # the view starts 6 columns left of the player: column 24
    sky = " " * 20
    expected = "\n".join([sky] * 8 + [
        " " * 9 + "▒" + " " * 10,
        " " * 6 + "@" + "  ▒" + " " * 6 + "ʘ" + " " * 3,
        "▒" * 12 + "  " + "▒" * 6,
        "▒" * 12 + "  " + "▒" * 6])
    obs = glyphjax.render_text(ENV.card, RENDER(s))
    assert obs.grid == expected, f"classics/platformer step 1:\n{obs.grid}"
    assert "View columns: 24-43" in obs.hud


def test_platformer__generated_levels_have_clearable_obstacles():
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(300, dtype=jnp.uint32))
    st = jax.device_get(jax.jit(jax.vmap(ENV.reset))(keys))
    for seed in range(300):
        solid = st.solid[seed]
        ground = solid[pf.H - 1]
        gaps = np.diff(np.flatnonzero(ground)) - 1
        assert gaps.max() <= 3, f"classics/platformer seed {seed}: pit wider than 3"
        assert ground[:pf.SEG0].all() and ground[pf.SEG0 + pf.N_SEG * pf.SEG_W:].all()
        walls = solid[pf.GROUND_TOP - 3:pf.GROUND_TOP].sum(0)
        assert walls.max() <= 2, f"classics/platformer seed {seed}: block higher than 2"
        for (r, c), alive in zip(st.enemies[seed], st.enemy_alive[seed]):
            if alive:
                assert not solid[r, c] and solid[r + 1, c], f"seed {seed}: enemy not on the ground"
