"""Defender, Up'n Down and Yars' Revenge (both settings; tests at the MiniAtari setting): each
game's scoring, win and loss rules on positions set up by hand, with golden frames written from the
rules (see each game module's docstring)."""

import jax.numpy as jnp
import pytest

import glyphjax
from glyphjax.suites.arcade import defender, upndown, yarsrevenge
from tests.suites.arcade.test_games import grid, play, pool, start


def test_the_three_games_have_both_settings():
    ids = set(glyphjax.task_ids())
    for g in ("defender", "upndown", "yarsrevenge"):
        assert f"miniatari/{g}" in ids and f"atari/{g}" in ids
    assert glyphjax.make("atari/defender").card.max_steps == 10000
    assert glyphjax.make("miniatari/yarsrevenge").card.track != glyphjax.make("atari/yarsrevenge").card.track


# --- defender ---------------------------------------------------------------------------------------
DF = "miniatari/defender"  # 10x14: you in rows 0-7, humanoids on row 8, ground row 9; laser 4 cells


def _humans(cells, kinds):
    return pool(cells, kinds=kinds, n=3)


def _landers(cells, kinds, timers=None):
    p = pool(cells, kinds=kinds, n=3)
    return p if timers is None else p.replace(timer=p.timer.at[:len(timers)].set(jnp.array(timers, jnp.int32)))


def test_defender__shooting_a_carrier_frees_its_humanoid_a_rescue_golden_frame():
    s = start(DF, player=[6, 3], heading=[0, 1],
              foes=_landers([(6, 6)], [defender.CARRY], timers=[0]),
              bombs=_humans([(7, 6), (8, 1), (8, 11)], [defender.HELD, defender.ON_GROUND, defender.ON_GROUND]))
    blank = " " * 14
    assert grid(DF, s)[5:] == [blank, "   ⇒  ⬟       ", "      ♟       ", " ♟         ♟  ", "═" * 14]
    after, reward, done, msg = play(DF, s, "FIRE", rate=0.0)
    assert reward == pytest.approx(1 / 3) and not done and msg == "A humanoid landed safely: rescued."
    assert not bool(after.foes.alive.any()) and int(after.bombs.kind[0]) == defender.ON_GROUND
    assert grid(DF, after)[5:] == [blank, "   ⇒          ", blank, " ♟    ♟    ♟  ", "═" * 14]


def test_defender__a_freed_humanoid_falls_a_row_a_turn_before_it_counts():
    s = start(DF, player=[3, 8], heading=[0, -1], foes=_landers([(3, 6)], [defender.CARRY], timers=[0]),
              bombs=_humans([(4, 6), (8, 1), (8, 11)], [defender.HELD, defender.ON_GROUND, defender.ON_GROUND]))
    rewards, rows = [], []
    for action in ("FIRE", "NOOP", "NOOP", "NOOP"):
        s, reward, done, _ = play(DF, s, action, rate=0.0)
        rewards.append(reward)
        rows.append(int(s.bombs.pos[0, 0]))
    assert rows == [5, 6, 7, 8] and rewards == pytest.approx([0, 0, 0, 1 / 3]) and not done


def test_defender__the_laser_reaches_four_cells_round_the_planet_and_stops_at_the_first_lander():
    humans = _humans([(8, 1), (8, 6), (8, 11)], [0, 0, 0])
    s = start(DF, player=[2, 1], heading=[0, -1], foes=_landers([(2, 12)], [defender.HUNT]), bombs=humans)
    after, reward, done, msg = play(DF, s, "FIRE", rate=0.0)  # 3 cells to the left, round the edge
    assert not bool(after.foes.alive[0]) and reward == 0 and msg == "You destroyed a lander."
    behind, *_ = play(DF, s.replace(heading=jnp.array([0, 1], jnp.int32)), "FIRE", rate=0.0)
    assert bool(behind.foes.alive[0])
    far = start(DF, player=[2, 1], heading=[0, 1], foes=_landers([(2, 6)], [defender.HUNT]), bombs=humans)
    assert bool(play(DF, far, "FIRE", rate=0.0)[0].foes.alive[0])  # 5 cells: out of reach
    two = start(DF, player=[2, 1], heading=[0, 1], foes=_landers([(2, 4), (2, 3)], [0, 0]), bombs=humans)
    assert play(DF, two, "FIRE", rate=0.0)[0].foes.alive.tolist() == [True, False, False]


def test_defender__a_lander_hunts_the_nearest_humanoid_grabs_it_and_climbs():
    humans = _humans([(8, 7), (8, 1), (8, 12)], [0, 0, 0])
    s = start(DF, player=[0, 0], foes=_landers([(5, 5)], [defender.HUNT]), bombs=humans)
    s, *_ = play(DF, s, "NOOP", rate=0.0)  # a move turn (t = 0): down a row, a column towards column 7
    assert s.foes.pos[0].tolist() == [6, 6] and int(s.foes.kind[0]) == defender.HUNT
    s, *_ = play(DF, s.replace(t=jnp.int32(3)), "NOOP", rate=0.0)  # onto (7, 7), just above: grab
    assert s.foes.pos[0].tolist() == [7, 7] and int(s.foes.kind[0]) == defender.CARRY and int(s.foes.timer[0]) == 0
    assert int(s.bombs.kind[0]) == defender.HELD and s.bombs.pos[0].tolist() == [8, 7]
    s, *_ = play(DF, s.replace(t=jnp.int32(5)), "NOOP", rate=0.0)  # not a move turn
    assert s.foes.pos[0].tolist() == [7, 7]
    s, *_ = play(DF, s.replace(t=jnp.int32(6)), "NOOP", rate=0.0)
    assert s.foes.pos[0].tolist() == [6, 7] and s.bombs.pos[0].tolist() == [7, 7]


def test_defender__a_lander_leaving_the_top_takes_its_humanoid_and_the_last_one_lost_ends_it():
    s = start(DF, player=[5, 0], foes=_landers([(0, 5)], [defender.CARRY], timers=[0]),
              bombs=_humans([(1, 5), (8, 1), (8, 11)], [defender.HELD, 0, 0]))
    after, reward, done, msg = play(DF, s, "NOOP", rate=0.0)
    assert not bool(after.foes.alive[0]) and after.bombs.alive.tolist() == [False, True, True]
    assert reward == 0 and not done and msg == "A lander carried a humanoid away."
    last = s.replace(bombs=s.bombs.replace(alive=jnp.array([True, False, False])))
    _, reward, done, msg = play(DF, last, "NOOP", rate=0.0)
    assert done and reward == 0 and msg == "A lander hit you, or the last humanoid was lost. Game over."


def test_defender__a_lander_meeting_you_ends_it_and_the_third_rescue_wins():
    humans = _humans([(8, 5), (8, 1), (8, 11)], [0, 0, 0])
    s = start(DF, player=[5, 5], foes=_landers([(4, 5)], [defender.HUNT]), bombs=humans)
    _, reward, done, msg = play(DF, s, "NOOP", rate=0.0)  # it drops onto your cell
    assert done and reward == 0 and msg == "A lander hit you, or the last humanoid was lost. Game over."
    s = start(DF, player=[7, 3], heading=[0, 1], score=2, foes=_landers([(7, 5)], [defender.CARRY], timers=[0]),
              bombs=_humans([(8, 5), (8, 1), (8, 11)], [defender.HELD, 0, 0]))
    _, reward, done, msg = play(DF, s, "FIRE", rate=0.0)
    assert done and reward == pytest.approx(1 / 3) and msg == "You reached the target. You win!"


# --- up'n down --------------------------------------------------------------------------------------
UD = "miniatari/upndown"  # 10x14; the road scrolls on turns where t % 2 == 0; in the air for 3 turns


def _road(flags=(), banks=()):
    field = jnp.zeros((10, 14), jnp.int8).at[:, :3].set(upndown.BANK).at[:, 11:].set(upndown.BANK)
    for r, c in flags:
        field = field.at[r, c].set(upndown.FLAG_CELL)
    for r, c in banks:
        field = field.at[r, c].set(upndown.BANK)
    return field


def _cars(cells):
    return pool(cells, vel=(1, 0), n=3)


def test_upndown__golden_frame_and_a_flag_collected_on_a_scroll_turn():
    s = start(UD, t=0, field=_road(flags=[(6, 6)]), player=[8, 6], foes=_cars([(5, 8)]))
    side, mid = "∷∷∷", " " * 8
    assert grid(UD, s)[4:9] == [side + mid + side, side + "     ⊞  " + side, side + "   ★    " + side,
                                side + mid + side, side + "   ♦    " + side]
    after, reward, done, msg = play(UD, s, "UP", rate=0.0)  # the flag scrolls down onto (7, 6) as you drive up
    assert reward == pytest.approx(1 / 5) and not done and msg == "You collected a flag."
    assert grid(UD, after)[5:9] == [side + mid + side, side + "     ⊞  " + side, side + "   ♦    " + side,
                                    side + mid + side]
    still, reward, *_ = play(UD, s.replace(t=jnp.int32(1)), "UP", rate=0.0)  # no scroll: the flag stays above
    assert reward == 0 and int(still.field[6, 6]) == upndown.FLAG_CELL


def test_upndown__a_car_meeting_you_on_the_ground_crashes_you():
    for car in [(6, 6), (7, 6)]:  # ends on your cell; swaps cells with you
        s = start(UD, t=1, field=_road(), player=[8, 6], foes=_cars([car]))
        _, reward, done, msg = play(UD, s, "UP", rate=0.0)
        assert done and reward == pytest.approx(-1.0) and msg == "You crashed. Game over."


def test_upndown__jump_lasts_three_turns_and_cars_pass_under_you():
    s = start(UD, t=1, field=_road(), player=[8, 6], foes=_cars([(6, 6)]))
    s, reward, done, _ = play(UD, s, "JUMP", rate=0.0)
    assert int(s.cooldown) == 3 and glyphjax.make(UD).render(s).hud[-1] == 3
    airs = []
    for _ in range(3):
        s, reward, done, _ = play(UD, s, "NOOP", rate=0.0)
        airs.append(int(s.cooldown))
        assert reward == 0 and not done  # the car passes under you at (8, 6)
    assert airs == [2, 1, 0] and not bool(s.foes.alive[0])  # under you on the first NOOP, then off the field


def test_upndown__landing_on_a_car_wrecks_it():
    s = start(UD, t=1, field=_road(), player=[8, 6], cooldown=1, foes=_cars([(7, 6)]))
    after, reward, done, msg = play(UD, s, "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 5) and not done and msg == "You landed on a car and wrecked it."
    assert not bool(after.foes.alive[0]) and int(after.cooldown) == 0


def test_upndown__the_verge_crashes_you_but_not_in_the_air_and_cars_leave_the_road():
    s = start(UD, t=1, field=_road(), player=[8, 3])
    _, reward, done, msg = play(UD, s, "LEFT", rate=0.0)
    assert done and reward == pytest.approx(-1.0) and msg == "You crashed. Game over."
    _, reward, done, _ = play(UD, s.replace(cooldown=jnp.int32(2)), "LEFT", rate=0.0)
    assert not done and reward == 0
    s = start(UD, t=1, field=_road(banks=[(6, 4)]), player=[8, 8], foes=_cars([(5, 4)]))
    assert not bool(play(UD, s, "NOOP", rate=0.0)[0].foes.alive[0])


def test_upndown__the_fifth_unit_wins():
    s = start(UD, t=1, score=4, field=_road(flags=[(7, 6)]), player=[8, 6])
    _, reward, done, msg = play(UD, s, "UP", rate=0.0)
    assert done and reward == pytest.approx(1 / 5) and msg == "You reached the target. You win!"


# --- yars' revenge ------------------------------------------------------------------------------------
YR = "miniatari/yarsrevenge"  # 10x14: zone columns 5-6, shield 8-9 (rows 2-7), Qotile column 11; energy 3


def test_yarsrevenge__reset_golden_frame():
    s = start(YR)
    open_row, shield_row = "     ┈┈       ", "     ┈┈ ⬢⬢    "
    assert grid(YR, s) == [open_row] * 2 + [shield_row] * 3 + [" ⇒   ┈┈ ⬢⬢ ♜  "] + [shield_row] * 2 + [open_row] * 2


def test_yarsrevenge__eating_a_shield_cell_gives_energy_up_to_three():
    s = start(YR, t=1, player=[3, 7])
    s, reward, done, msg = play(YR, s, "RIGHT", rate=0.0)
    assert int(s.field[3, 8]) == 0 and int(s.cooldown) == 1 and reward == 0 and msg == "You ate a shield cell."
    s, *_ = play(YR, s.replace(cooldown=jnp.int32(3)), "RIGHT", rate=0.0)
    assert int(s.cooldown) == 3 and int(s.field[3, 9]) == 0


def test_yarsrevenge__shots_stop_at_the_shield_destroying_one_cell():
    s = start(YR, t=1, player=[4, 7])
    after, reward, *_ = play(YR, s, "FIRE", rate=0.0)  # an energy missile (energy 0)
    assert int(after.field[4, 8]) == 0 and int(after.field[4, 9]) == yarsrevenge.SHIELD
    assert not bool(after.shots.alive.any()) and reward == 0
    full, *_ = play(YR, s.replace(cooldown=jnp.int32(3)), "FIRE", rate=0.0)  # the cannon: energy used up
    assert int(full.field[4, 8]) == 0 and int(full.cooldown) == 0
    zone, *_ = play(YR, s.replace(player=jnp.array([4, 5], jnp.int32)), "FIRE", rate=0.0)
    assert not bool(zone.shots.alive.any()) and int(zone.field[4, 8]) == yarsrevenge.SHIELD


def test_yarsrevenge__the_cannon_through_a_gap_destroys_the_qotile_and_a_new_round_starts():
    gap = yarsrevenge._arena((10, 14)).at[5, 8:10].set(0)
    s = start(YR, t=1, player=[5, 7], cooldown=3, field=gap)
    s, reward, done, _ = play(YR, s, "FIRE", rate=0.0)
    assert reward == 0 and s.shots.pos[0].tolist() == [5, 9] and int(s.shots.kind[0]) == 1
    assert grid(YR, s)[5] == "     ┈┈⇒ ━ ♜  "
    s, reward, done, msg = play(YR, s, "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 2) and not done and msg == "The cannon destroyed the Qotile: a new round."
    assert bool((s.field == yarsrevenge._arena((10, 14))).all()) and not bool(s.shots.alive.any())
    won, reward, done, msg = play(YR, s.replace(field=gap, shots=s.shots.replace(
        pos=jnp.array([[5, 9]], jnp.int32), vel=jnp.array([[0, 2]], jnp.int32), kind=jnp.array([1], jnp.int32),
        alive=jnp.array([True]))), "NOOP", rate=0.0)
    assert done and reward == pytest.approx(1 / 2) and msg == "You reached the target. You win!"


def test_yarsrevenge__the_qotile_bounces_every_third_turn():
    s = start(YR, t=0, opponent=[7, 11], phase=1)
    s, *_ = play(YR, s, "NOOP", rate=0.0)
    assert s.opponent.tolist() == [6, 11] and int(s.phase) == -1
    s, *_ = play(YR, s, "NOOP", rate=0.0)  # t = 1: stays
    assert s.opponent.tolist() == [6, 11]


def test_yarsrevenge__the_destroyer_homes_on_you_kills_and_vanishes_in_the_zone():
    d = lambda cell: pool([cell], n=1)  # noqa: E731
    s, *_ = play(YR, start(YR, t=0, player=[5, 7], bombs=d((2, 9))), "NOOP", rate=0.0)
    assert s.bombs.pos[0].tolist() == [3, 8] and bool(s.bombs.alive[0])
    s, *_ = play(YR, s, "NOOP", rate=0.0)  # t = 1: it moves every second turn
    assert s.bombs.pos[0].tolist() == [3, 8]
    _, reward, done, msg = play(YR, start(YR, t=0, player=[5, 8], bombs=d((4, 7))), "NOOP", rate=0.0)
    assert done and reward == pytest.approx(-1.0) and msg == "The Destroyer missile got you. Game over."
    safe, reward, done, _ = play(YR, start(YR, t=0, player=[5, 6], bombs=d((4, 7))), "NOOP", rate=0.0)
    assert not done and reward == 0 and not bool(safe.bombs.alive[0])
    late, reward, done, _ = play(YR, start(YR, t=0, player=[5, 8], score=1, bombs=d((4, 7))), "NOOP", rate=0.0)
    assert done and reward == pytest.approx(-1.0)
