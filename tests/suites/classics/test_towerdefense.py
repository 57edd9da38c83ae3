"""Tower Defense: the 56 sites, building costs, waves, tower targeting and damage, kill gold,
wave-clear reward, losing nets the return to -1, and a golden board."""

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics import towerdefense as td

ENV = glyphjax.make("classics/towerdefense")
KEY = glyphjax.step_key(0, 0)
STEP = jax.jit(ENV.step)
RESET = jax.jit(ENV.reset)
RENDER = jax.jit(ENV.render)
NEXT, WAIT = td.NEXT_WAVE, td.WAIT


def _run(s, actions):
    trs = []
    for a in actions:
        s, tr = STEP(KEY, s, jnp.int32(a))
        trs.append(tr)
    return s, trs


def _site(r, c):
    return [tuple(x) for x in td.SITES.tolist()].index((r, c))


def test_towerdefense__56_sites_are_exactly_the_cells_beside_the_path():
    path = {tuple(p) for p in td.PATH.tolist()}
    sites = [tuple(x) for x in td.SITES.tolist()]
    assert len(sites) == 56 == len(set(sites)) and not (set(sites) & path)
    for r, c in sites:
        assert any((r + dr, c + dc) in path for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)))
    assert sites == sorted(sites), "numbered in reading order"
    assert ENV.card.action_descriptions[_site(2, 9)].endswith("row 2, column 9")
    assert len(ENV.card.actions) == 58 and ENV.card.actions[-2:] == ("NEXT_WAVE", "WAIT")


def test_towerdefense__building_costs_three_gold_once_per_site():
    s = RESET(glyphjax.reset_key(0))
    s, _ = _run(s, [0, 0, 1, 2, 3])
    assert int(s.gold) == 1 and np.asarray(s.towers)[:4].tolist() == [True, True, True, False]


def test_towerdefense__waves_enter_one_per_turn_and_only_start_when_idle():
    s = RESET(glyphjax.reset_key(0))
    s, _ = _run(s, [NEXT])
    assert int(s.wave) == 1 and int(s.to_spawn) == 3 and int(np.sum(s.enemy_alive)) == 1
    assert int(s.enemy_hp[0]) == 2 and int(s.enemy_pos[0]) == 0
    s, _ = _run(s, [NEXT])
    assert int(s.wave) == 1, "NEXT_WAVE is ignored while a wave runs"
    assert int(np.sum(s.enemy_alive)) == 2 and int(s.enemy_pos[0]) == 1


def test_towerdefense__tower_hits_the_enemy_furthest_along_in_range():
    towers = jnp.zeros(56, bool).at[_site(2, 4)].set(True)  # in range of path (1, 2..6), (3, 2..6)...
    pos = jnp.array([3, 5, 30, 0, 0, 0, 0, 0, 0, 0, 0, 0], jnp.int32)  # (1,3), (1,5), (9,8)
    alive = jnp.array([True, True, True] + [False] * 9)
    dmg = np.asarray(td.tower_damage(towers, pos, alive))
    assert dmg.tolist()[:3] == [0, 1, 0]
    both = towers.at[_site(8, 8)].set(True)
    dmg = np.asarray(td.tower_damage(both, pos, alive))
    assert dmg.tolist()[:3] == [0, 1, 1]


def test_towerdefense__kill_gold_wave_clear_reward_and_loss():
    s = RESET(glyphjax.reset_key(0))
    s = s.replace(active=jnp.bool_(True), wave=jnp.int32(1), to_spawn=jnp.int32(0),
                  towers=s.towers.at[_site(2, 4)].set(True), gold=jnp.int32(0),
                  enemy_pos=s.enemy_pos.at[0].set(5), enemy_hp=s.enemy_hp.at[0].set(1),
                  enemy_alive=s.enemy_alive.at[0].set(True))
    s2, trs = _run(s, [WAIT])
    assert int(s2.gold) == 1 and int(s2.cleared) == 1 and not bool(s2.active)
    assert abs(float(trs[0].reward) - 0.2) < 1e-7 and int(trs[0].event) == td.EV_CLEARED
    lose = s.replace(towers=jnp.zeros(56, bool), enemy_pos=s.enemy_pos.at[0].set(td.PATH_LEN - 2),
                     earned=jnp.float32(0.4))
    _, trs = _run(lose, [WAIT])
    assert bool(trs[0].terminated) and int(trs[0].event) == td.EV_LOST
    assert abs(float(trs[0].reward) + 1.4) < 1e-6, "loss pays -1 - earned"


def test_towerdefense__golden_board_after_a_build_and_a_wave_start():
    s = RESET(glyphjax.reset_key(0))
    s, _ = _run(s, [0, NEXT])
    expected = "\n".join([
        "♖□□□□□□□□  ",
        "➋╍╍╍╍╍╍╍╍□ ",
        "□□□□□□□□╍□ ",
        "□╍╍╍╍╍╍╍╍□ ",
        "□╍□□□□□□□  ",
        "□╍□        ",
        "□╍□        ",
        "□╍□        ",
        "□╍□□□□□□□□□",
        "□╍╍╍╍╍╍╍╍╍⊞",
        " □□□□□□□□□□",
    ])
    obs = glyphjax.render_text(ENV.card, RENDER(s))
    assert obs.grid == expected, f"classics/towerdefense step 2:\n{obs.grid}"
    assert "Gold: 7" in obs.hud and "Enemies still to enter: 3" in obs.hud
