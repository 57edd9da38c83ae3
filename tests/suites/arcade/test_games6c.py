"""Atari-only arcade games (jamesbond, solaris, krull): each game's scoring, win and loss rules on
positions set up by hand, with golden frames written from the rules (see each game module's
docstring). One compiled step per task, reused by every case."""

import jax.numpy as jnp
import pytest

import glyphjax
from glyphjax.core import entities
from glyphjax.suites.arcade import jamesbond, krull, solaris
from glyphjax.suites.arcade.engine import ArcadeEnv
from glyphjax.core.grid import UNREACHED, bfs_distances
from tests.suites.arcade.test_games import _jitted, grid, play, pool, start

GAMES6C = {"jamesbond": jamesbond.JAMESBOND, "solaris": solaris.SOLARIS, "krull": krull.KRULL}


@pytest.mark.parametrize("name", GAMES6C)
def test_atari_only_games_have_no_miniatari_id(name):
    ids = set(glyphjax.task_ids())
    assert f"atari/{name}" in ids and f"miniatari/{name}" not in ids
    with pytest.raises(ValueError, match="Atari-only"):
        ArcadeEnv(GAMES6C[name], "miniatari")


# --- james bond -------------------------------------------------------------------------------------
JB = "atari/jamesbond"
H, W = 16, 30


def _road(gaps=()):
    field = jnp.zeros((H, W), jnp.int8).at[H - 3].set(jamesbond.C_ROAD)
    for c in gaps:
        field = field.at[H - 3, c].set(0)
    return field


def test_jamesbond__a_crater_scrolling_under_the_car_kills():
    s = start(JB, field=_road([4]), player=[12, 3], t=0)  # t = 0: a scroll turn
    s, reward, done, msg = play(JB, s, "NOOP", rate=0.0)
    assert done and reward == pytest.approx(-1.0) and msg == "Your car was destroyed. Game over."
    assert s.player.tolist() == [13, 3]
    odd = start(JB, field=_road([4]), player=[12, 3], t=1)  # no scroll on odd turns: the car stays up
    odd, reward, done, _ = play(JB, odd, "NOOP", rate=0.0)
    assert not done and reward == 0 and odd.player.tolist() == [12, 3]


def test_jamesbond__the_jump_arc_clears_a_crater_golden_frame():
    s = start(JB, field=_road([5, 6]), player=[12, 3], t=0)
    rows = []
    for _ in range(7):  # UP on the road, then whatever is pressed the arc runs its course
        s, reward, done, _ = play(JB, s, "UP", rate=0.0)
        assert not done and reward == 0
        rows.append(int(s.player[0]))
    assert rows == [11, 10, 9, 9, 10, 11, 12]  # 3 up, 1 level, 3 down
    # 7 turns from t = 0 scroll 4 columns: the craters (5, 6) moved to (1, 2), behind the car
    assert grid(JB, s)[12] == "   ♦" + " " * 26 and grid(JB, s)[13] == "═  " + "═" * 27
    s, _, done, _ = play(JB, s, "NOOP", rate=0.0)
    assert not done and s.player.tolist() == [12, 3]


def test_jamesbond__left_right_stay_in_the_left_half():
    s = start(JB, field=_road(), player=[12, 1], t=1)
    s, *_ = play(JB, s, "LEFT", rate=0.0)
    assert s.player.tolist() == [12, 1]
    s = start(JB, field=_road(), player=[12, 15], t=1)
    s, *_ = play(JB, s, "RIGHT", rate=0.0)
    assert s.player.tolist() == [12, 15]
    s, *_ = play(JB, s, "LEFT", rate=0.0)
    assert s.player.tolist() == [12, 14]


def test_jamesbond__a_flare_meets_a_helicopter_on_its_diagonal_for_no_points():
    heli = pool([(10, 7)], vel=(0, -1), n=6)
    s = start(JB, field=_road(), player=[12, 3], foes=heli, t=1)
    s, reward, done, _ = play(JB, s, "FIRE", rate=0.0)  # flare (11, 4), helicopter (10, 6)
    assert s.shots.pos[0].tolist() == [11, 4] and s.foes.pos[0].tolist() == [10, 6] and bool(s.foes.alive[0])
    assert grid(JB, s)[10][6] == "Ħ" and grid(JB, s)[11][4] == "*"
    s, reward, done, msg = play(JB, s, "NOOP", rate=0.0)  # both reach (10, 5)
    assert not bool(s.foes.alive[0]) and not bool(s.shots.alive.any())
    assert reward == 0 and not done and msg == "You destroyed an enemy."


def test_jamesbond__a_depth_charge_meets_a_frogman_carried_by_the_road():
    frog = pool([(14, 6)], vel=(0, -1), kinds=[jamesbond.K_FROG], n=6)
    s = start(JB, field=_road(), player=[12, 3], foes=frog, t=1)  # odd turn: the frogman stays
    s, *_ = play(JB, s, "DOWN", rate=0.0)  # charge (13, 4)
    assert s.shots.pos[0].tolist() == [13, 4] and s.foes.pos[0].tolist() == [14, 6]
    s, reward, done, msg = play(JB, s, "NOOP", rate=0.0)  # t = 2 scrolls: frogman (14, 5), charge (14, 5)
    assert not bool(s.foes.alive[0]) and reward == 0 and msg == "You destroyed an enemy."


def test_jamesbond__bombs_and_harpoons_kill_bombs_burst_on_the_road():
    bomb = pool([(11, 3)], vel=(1, 0), kinds=[jamesbond.K_BOMB], n=4)
    _, reward, done, msg = play(JB, start(JB, field=_road(), player=[12, 3], bombs=bomb, t=1), "NOOP", rate=0.0)
    assert done and reward == pytest.approx(-1.0) and msg == "Your car was destroyed. Game over."
    harpoon = pool([(13, 4)], vel=(-1, 0), kinds=[jamesbond.K_HARPOON], n=4)  # rising through the road
    _, reward, done, _ = play(JB, start(JB, field=_road(), player=[12, 4], bombs=harpoon, t=1), "NOOP", rate=0.0)
    assert done and reward == pytest.approx(-1.0)
    burst = pool([(12, 8)], vel=(1, 0), kinds=[jamesbond.K_BOMB], n=4)
    s, reward, done, _ = play(JB, start(JB, field=_road(), player=[12, 3], bombs=burst, t=1), "NOOP", rate=0.0)
    assert not done and not bool(s.bombs.alive[0]) and bool((s.field[H - 3] == jamesbond.C_ROAD).all())


def test_jamesbond__a_stage_is_80_plus_20k_columns_and_the_fourth_wins():
    assert [int(jamesbond.stage_length(jnp.int32(k))) for k in range(4)] == [80, 100, 120, 140]
    s = start(JB, field=_road(), player=[12, 3], phase=79, t=0)
    s, reward, done, msg = play(JB, s, "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 4) and not done and msg == "You completed a mission stage."
    assert int(s.phase) == 0 and int(s.score) == 1
    s = start(JB, field=_road(), player=[12, 3], phase=138, score=3, earned=0.75, t=0)
    s, reward, done, _ = play(JB, s, "NOOP", rate=0.0)
    assert reward == 0 and not done and int(s.phase) == 139
    s, reward, done, _ = play(JB, s, "NOOP", rate=0.0)  # t = 1: no scroll, no distance
    assert not done and int(s.phase) == 139
    s, reward, done, msg = play(JB, s.replace(t=jnp.int32(2)), "NOOP", rate=0.0)
    assert done and reward == pytest.approx(1 / 4) and msg == "You reached the target. You win!"
    assert float(s.earned) == pytest.approx(1.0)


@pytest.mark.parametrize("right, u, crater", [
    ((), 0.9, False),  # all road, no draw: road
    ((), 0.0, True),  # all road for GAP columns and a draw under P_CRATER: a crater starts
    ((W - 1,), 0.9, True),  # a crater one cell wide so far: it continues
    ((W - 2, W - 1), 0.0, False),  # a full crater: road (and none within GAP)
    ((W - 5,), 0.0, False),  # a crater 5 columns back: too close for a new one
])
def test_jamesbond__craters_are_two_wide_and_gap_apart(right, u, crater):
    line = jamesbond._road_line(_road(right), jnp.float32(u))
    assert bool(line[H - 3] == 0) == crater and int(line.sum()) == (0 if crater else 1)


# --- solaris ----------------------------------------------------------------------------------------
SO = "atari/solaris"
HERE, PLANET = solaris.HERE, solaris.C_PLANET


def _sectors(contents, planet=None):
    """A 20x20 field: the sector map `contents` in row 0 (HERE already added where you are) and
    a planet cell in view at `planet`."""
    field = jnp.zeros((20, 20), jnp.int8).at[0, :len(contents)].set(jnp.array(contents, jnp.int8))
    return field if planet is None else field.at[planet[0], planet[1]].set(PLANET)


def test_solaris__reset_draws_four_squadrons_and_two_planets_on_the_map():
    for seed in range(5):
        env = glyphjax.make(SO)
        s = env.reset(glyphjax.reset_key(seed))
        top = [int(x) for x in s.field[0, :solaris.SECTORS]]
        assert top[0] >= HERE and all(x < HERE for x in top[1:])
        kinds = sorted(x % HERE for x in top)
        assert kinds == [4, 4, 4, 4, PLANET, PLANET]
        assert int(s.foes.alive.sum()) == (4 if top[0] % HERE == 4 else 0)
        assert s.player.tolist() == [16, 10] and int(s.phase) == solaris.FUEL


def test_solaris__a_shot_destroys_an_enemy_and_the_map_counts_it():
    s = start(SO, field=_sectors([HERE + 2, PLANET, 4, 4, PLANET, 2]), player=[10, 10], heading=[-1, 0],
              foes=pool([(7, 10), (2, 3)], n=4), t=1)
    s, reward, done, _ = play(SO, s, "FIRE", rate=0.0)  # shot (8, 10); enemies wait (t = 1)
    assert reward == 0 and s.shots.pos[0].tolist() == [8, 10] and bool(s.foes.alive[0])
    assert grid(SO, s)[8][10] == "*" and grid(SO, s)[7][10] == "◆" and grid(SO, s)[10][10] == "⇑"
    s, reward, done, msg = play(SO, s, "NOOP", rate=0.0)  # (8, 10) -> (6, 10) passes (7, 10)
    assert reward == pytest.approx(1 / 16) and not done and msg == "You destroyed an enemy ship."
    assert int(s.field[0, 0]) == HERE + 1 and grid(SO, s)[0][:6] == "@⊕44⊕2"


def test_solaris__enemies_close_in_along_the_larger_gap_every_third_turn_and_ram():
    s = start(SO, field=_sectors([HERE + 2]), player=[10, 12], foes=pool([(5, 10), (9, 3)], n=4), t=0)
    s, *_ = play(SO, s, "NOOP", rate=0.0)
    assert s.foes.pos[:2].tolist() == [[6, 10], [9, 4]]  # rows (gap 5 > 2), columns (gap 9 > 1)
    s, *_ = play(SO, s, "NOOP", rate=0.0)  # t = 1: they wait
    assert s.foes.pos[:2].tolist() == [[6, 10], [9, 4]]
    s = start(SO, field=_sectors([HERE + 1]), player=[10, 10], foes=pool([(9, 10)], n=4), t=3)
    _, reward, done, msg = play(SO, s, "NOOP", rate=0.0)
    assert done and reward == pytest.approx(-1.0) and msg == "Your ship was destroyed. Game over."


def test_solaris__an_enemy_shot_kills():
    shell = pool([(9, 10)], vel=(1, 0), n=4)
    s = start(SO, field=_sectors([HERE + 1]), player=[10, 10], foes=pool([(2, 2)], n=4), bombs=shell, t=1)
    _, reward, done, _ = play(SO, s, "NOOP", rate=0.0)
    assert done and reward == pytest.approx(-1.0)
    s, reward, done, _ = play(SO, s, "LEFT", rate=0.0)  # stepping out of its column
    assert not done and reward == 0


def test_solaris__fuel_burns_a_unit_a_turn_and_a_planet_fills_the_tank():
    s = start(SO, field=_sectors([HERE + PLANET], planet=(10, 11)), player=[10, 9], phase=2, t=1)
    s, reward, done, _ = play(SO, s, "NOOP", rate=0.0)
    assert int(s.phase) == 1 and not done
    _, reward, done, msg = play(SO, s, "NOOP", rate=0.0)
    assert done and reward == pytest.approx(-1.0) and msg == "Your ship was destroyed. Game over."
    s = start(SO, field=_sectors([HERE + PLANET], planet=(10, 11)), player=[10, 10], phase=1, t=1)
    s, reward, done, msg = play(SO, s, "RIGHT", rate=0.0)
    assert not done and int(s.phase) == solaris.FUEL and msg == "You refuelled at a planet."
    assert grid(SO, s)[10][11] == "⇒"


def test_solaris__warp_goes_to_the_next_sector_of_the_ring_golden_map():
    s = start(SO, field=_sectors([HERE + 0, 3, PLANET, 4, 4, PLANET]), player=[5, 5], phase=100,
              foes=entities_none(), t=1)
    s, reward, done, msg = play(SO, s, "WARP", rate=0.0)
    assert not done and reward == 0 and msg == "You warped to the next sector."
    assert int(s.phase) == 100 - solaris.WARP_FUEL and s.player.tolist() == [16, 10]
    assert grid(SO, s)[0] == "+@⊕44⊕" + " " * 14
    rows = s.foes.pos[:, 0][s.foes.alive]
    assert int(s.foes.alive.sum()) == 3 and bool(((rows >= 2) & (rows < 10)).all())
    s, *_ = play(SO, s.replace(foes=entities_none()), "NOOP", rate=0.0)  # squadron gone: the map says cleared
    s, *_ = play(SO, s, "WARP", rate=0.0)  # into a planet sector: its planet in view, no enemies
    assert grid(SO, s)[0][:6] == "++@44⊕" and int((s.field[1:] == PLANET).sum()) == 1 and not bool(s.foes.alive.any())
    s = start(SO, field=_sectors([HERE + 0, 3]), phase=solaris.WARP_FUEL)
    _, reward, done, _ = play(SO, s, "WARP", rate=0.0)  # the warp empties the tank
    assert done and reward == pytest.approx(-1.0)


def test_solaris__the_sixteenth_enemy_wins():
    s = start(SO, field=_sectors([HERE + 1]), player=[10, 10], heading=[0, 1], foes=pool([(10, 12)], n=4),
              score=15, earned=15 / 16, t=1)
    s, reward, done, msg = play(SO, s, "FIRE", rate=0.0)
    assert done and reward == pytest.approx(1 / 16) and msg == "You reached the target. You win!"
    assert float(s.earned) == pytest.approx(1.0)


def entities_none():
    return entities.empty(4)


# --- krull ------------------------------------------------------------------------------------------
KR = "atari/krull"
KH = 16  # screen rows: stage k's screen is map rows 16k .. 16k + 15


def _enemies(cells, timers):
    p = pool(cells, n=krull.SLAYERS + krull.CREATURES + krull.GUARDS)
    return p.replace(timer=p.timer.at[:len(timers)].set(jnp.array(timers, jnp.int32)))


def test_krull__reset_draws_three_walled_screens():
    env = glyphjax.make(KR)
    for seed in range(5):
        s = env.reset(glyphjax.reset_key(seed))
        field = s.field
        assert field.shape == (3 * KH, 20) and s.player.tolist() == [8, 2] and int(s.phase) == 0
        for k in range(3):
            screen = field[k * KH:(k + 1) * KH]
            assert bool((screen[0] == krull.C_WALL).all() & (screen[:, 19] == krull.C_WALL).all())
            alive = s.foes.alive & (s.foes.pos[:, 0] // KH == k)
            assert int(alive.sum()) == (krull.SLAYERS, krull.CREATURES, krull.GUARDS)[k]
        swamp = field[KH:2 * KH]
        door = swamp == krull.C_DOOR
        assert int(door.sum()) == 1 and bool(door[:, 18].any())
        dry = bfs_distances((swamp != krull.C_WALL) & (swamp != krull.C_SWAMP), door)
        assert int(dry[8, 2]) < UNREACHED  # a dry path from the start to the door
        fort = field[2 * KH:]
        assert [int(x) for x in fort[1:15, 10]] == [1] * 6 + [0, 0] + [1] * 6 and int(fort[8, 17]) == krull.C_LYSSA


def test_krull__the_glaive_flies_at_the_nearest_enemy_golden_frame():
    s = start(KR, player=[8, 5], foes=_enemies([(8, 9), (2, 17)], [9, 9]))
    s, reward, done, _ = play(KR, s, "FIRE")  # thrown to (8, 6), flies on to (8, 7)
    assert grid(KR, s)[8] == "▓    @ ┼ Ж" + " " * 9 + "▓" and int(s.cooldown) == krull.COOLDOWN
    s, reward, done, _ = play(KR, s, "FIRE")  # not back yet: no second glaive
    assert int(s.shots.alive.sum()) == 1 and s.shots.pos[0].tolist() == [8, 8]
    s, reward, done, msg = play(KR, s, "NOOP")
    assert not bool(s.foes.alive[0]) and bool(s.foes.alive[1]) and reward == 0 and not done
    assert msg == "Your glaive destroyed an enemy."
    far = start(KR, player=[8, 2], foes=_enemies([(13, 6)], [9]))  # 5 + 4 = 9 > REACH cells away
    far, *_ = play(KR, far, "FIRE")
    assert not bool(far.shots.alive.any()) and int(far.cooldown) == 0
    diag = start(KR, player=[8, 5], foes=_enemies([(5, 7), (8, 3)], [9, 9]))  # nearest: (8, 3), 2 cells
    diag, *_ = play(KR, diag, "FIRE")
    assert diag.shots.pos[0].tolist() == [8, 3] and diag.shots.vel[0].tolist() == [0, -1]
    assert not bool(diag.foes.alive[1])  # thrown onto its cell: destroyed at once


def test_krull__an_enemy_steps_towards_you_when_its_timer_runs_out():
    s = start(KR, player=[8, 2], foes=_enemies([(5, 9), (12, 12)], [1, 3]))
    s, *_ = play(KR, s, "NOOP")
    assert s.foes.pos[0].tolist() in ([6, 9], [5, 8]) and 2 <= int(s.foes.timer[0]) <= 4
    assert s.foes.pos[1].tolist() == [12, 12] and int(s.foes.timer[1]) == 2


def test_krull__walking_into_an_enemy_is_death_and_walls_block():
    s = start(KR, player=[8, 2], foes=_enemies([(8, 3)], [9]))
    _, reward, done, msg = play(KR, s, "RIGHT")
    assert done and reward == pytest.approx(-1.0) and msg == "You were slain. Game over."
    s = start(KR, player=[8, 1], foes=_enemies([(2, 17)], [9]))
    s, _, done, _ = play(KR, s, "LEFT")
    assert not done and s.player.tolist() == [8, 1]


def test_krull__swamp_sinks_about_one_step_in_seven():
    env, step, _ = _jitted(KR)
    field = start(KR).field.at[KH + 8, 3].set(krull.C_SWAMP)
    s = start(KR, field=field, phase=1, player=[KH + 8, 2], foes=_enemies([(KH + 2, 17)], [9]))
    sank = 0
    for k in range(200):
        nxt, tr = step(glyphjax.step_key(k, 0), s, jnp.int32(env.card.action_index("RIGHT")), env.default_params())
        assert nxt.player.tolist() == [KH + 8, 3]
        sank += bool(tr.terminated)
        assert float(tr.reward) == (-1.0 if bool(tr.terminated) else 0.0)
    assert 12 <= sank <= 50  # 200 x 0.15 = 30 expected


def test_krull__the_three_stages_and_lyssa_win():
    s = start(KR, player=[8, 5], foes=_enemies([(8, 7)], [9]))  # the last Slayer
    s, reward, done, msg = play(KR, s, "FIRE")
    assert reward == pytest.approx(1 / 3) and not done and msg == "You completed a stage."
    assert int(s.phase) == 1 and s.player.tolist() == [KH + 8, 2] and int(s.score) == 1
    door = [int(x) for x in jnp.argwhere(s.field == krull.C_DOOR)[0]]
    creature = _enemies([(KH + 2, 10)], [9])
    shut = start(KR, phase=1, player=[door[0], door[1] - 1], foes=creature, score=1)
    shut, reward, done, msg = play(KR, shut, "RIGHT")
    assert reward == 0 and not done and int(shut.phase) == 1
    assert msg == "The door stays shut while the swamp's creatures live."
    guard = _enemies([(2 * KH + 2, 12)], [9])
    s = start(KR, phase=1, player=[door[0], door[1] - 1], foes=guard, score=1, earned=1 / 3)
    s, reward, done, msg = play(KR, s, "RIGHT")
    assert reward == pytest.approx(1 / 3) and not done and int(s.phase) == 2
    assert s.player.tolist() == [2 * KH + 8, 2] and grid(KR, s)[8] == "▓ @" + " " * 14 + "P ▓"
    s = s.replace(player=jnp.array([2 * KH + 8, 16], jnp.int32))
    s, reward, done, msg = play(KR, s, "RIGHT")
    assert done and reward == pytest.approx(1 / 3) and msg == "You reached the target. You win!"
    assert float(s.earned) == pytest.approx(1.0)
