"""Scrolling shooters and flyers: the mechanics of arcade/scroll.py (field shifts, river banks,
riding, patrols, waves, ships, fuel) and, per game, its scoring, win and death rules on positions
set up by hand, with golden frames written from the rules in each game's module docstring."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core import entities
from glyphjax.suites.arcade import scroll
from tests.suites.arcade.test_games import grid, play, start


def pool(cells, vel=(0, 0), kinds=None, n=None):
    """A pool of n slots holding entities at `cells` with one velocity or one per entity."""
    cells = list(cells)
    k = len(cells)
    kinds = [0] * k if kinds is None else kinds
    vel = np.broadcast_to(np.array(vel, np.int32), (k, 2))
    return entities.spawn_many(entities.empty(n or k), jnp.array(cells, jnp.int32).reshape(-1, 2),
                               jnp.array(vel), jnp.array(kinds, jnp.int32), jnp.ones(k, bool))


def rows(*lines):
    return jnp.array([[int(ch) for ch in line] for line in lines], jnp.int8)


# --- mechanics ----------------------------------------------------------------------------------------
def test_shift_in__rows_move_down_and_columns_move_left_with_the_line_entering_at_the_edge():
    field = rows("100", "010", "001")
    down = scroll.shift_in(field, jnp.array([1, 1, 0]), 0, jnp.bool_(True))
    assert down.tolist() == [[1, 1, 0], [1, 0, 0], [0, 1, 0]]
    left = scroll.shift_in(field, jnp.array([1, 1, 1]), 1, jnp.bool_(True))
    assert left.tolist() == [[0, 0, 1], [1, 0, 1], [0, 1, 1]]
    assert scroll.shift_in(field, jnp.array([1, 1, 1]), 0, jnp.bool_(False)).tolist() == field.tolist()


def test_river_line__each_bank_steps_by_its_uniform():
    prev = rows("11000011")[0]  # water on [2, 6)
    assert scroll.river_line(prev, jnp.array([0.1, 0.9]), 1, 0, 3).tolist() == [1, 0, 0, 0, 0, 0, 0, 1]
    assert scroll.river_line(prev, jnp.array([0.5, 0.5]), 1, 0, 3).tolist() == prev.tolist()
    # both banks step inwards but the water must stay 3 wide: the right bank is pushed back out
    assert scroll.river_line(prev, jnp.array([0.9, 0.1]), 1, 0, 3).tolist() == [1, 1, 1, 0, 0, 0, 1, 1]


def _banks_py(line):
    water = [i for i, v in enumerate(line) if v == 0]
    return water[0], water[-1] + 1


def test_river__lines_follow_the_walk_rule_and_the_same_uniforms_give_the_same_river():
    u = jax.random.uniform(jax.random.PRNGKey(3), (400, 2))
    a = np.asarray(scroll.river(u, 12, 1, 0, 4, (2, 10)))
    assert (a == np.asarray(scroll.river(u, 12, 1, 0, 4, (2, 10)))).all()
    assert a.shape == (401, 12) and a[-1].tolist() == [1, 1] + [0] * 8 + [1, 1]
    for below, line in zip(a[1:][::-1], a[:-1][::-1]):
        (lo0, hi0), (lo, hi) = _banks_py(below), _banks_py(line)
        assert all(v == 0 for v in line[lo:hi]), line  # one stretch of water
        assert abs(lo - lo0) <= 1 and abs(hi - hi0) <= 1 and hi - lo >= 4 and lo >= 1 and hi <= 11
    lows = {_banks_py(line)[0] for line in a}
    assert len(lows) >= 3  # the banks do wander
    other = np.asarray(scroll.river(jax.random.uniform(jax.random.PRNGKey(4), (400, 2)), 12, 1, 0, 4, (2, 10)))
    assert (other != a).any()


def test_ride__entities_move_down_with_the_field_keep_their_velocity_and_die_past_the_edge():
    p = pool([(0, 1), (3, 2)], vel=[(0, 1), (0, -1)])
    moved = scroll.ride(p, jnp.bool_(True), 4, 5, axis=0)
    assert moved.pos[0].tolist() == [1, 1] and moved.alive.tolist() == [True, False]
    assert moved.vel.tolist() == [[0, 1], [0, -1]]
    side = scroll.ride(pool([(2, 0), (2, 3)]), jnp.bool_(True), 4, 5, axis=1)
    assert side.alive.tolist() == [False, True] and side.pos[1].tolist() == [2, 2]
    assert scroll.ride(p, jnp.bool_(False), 4, 5, axis=0).pos.tolist() == p.pos.tolist()


def test_patrol__a_craft_turns_round_at_a_bank_or_the_edge_instead_of_moving():
    blocked = rows("10001") == 1
    p = pool([(0, 1), (0, 2), (0, 3)], vel=[(0, -1), (0, 1), (0, 1)])
    out = scroll.patrol(p, blocked, jnp.bool_(True))
    assert out.pos[:, 1].tolist() == [1, 3, 3] and out.vel[:, 1].tolist() == [1, 1, -1]
    edge = scroll.patrol(pool([(0, 0)], vel=(0, -1)), jnp.zeros((1, 3), bool), jnp.bool_(True))
    assert edge.pos.tolist() == [[0, 0]] and edge.vel.tolist() == [[0, 1]]


def test_fly__a_ship_stops_at_the_border_or_wraps_round():
    lo, hi = jnp.array([0, 0]), jnp.array([9, 13])
    assert scroll.fly(jnp.array([0, 13]), jnp.array([-1, 1]), lo, hi, wrap=False).tolist() == [0, 13]
    assert scroll.fly(jnp.array([0, 13]), jnp.array([-1, 1]), lo, hi, wrap=True).tolist() == [9, 0]
    assert scroll.fly(jnp.array([4, 0]), jnp.array([0, -2]), jnp.array([1, 0]), hi, wrap=True).tolist() == [4, 12]


def test_enter__a_wave_spawns_only_on_allowed_cells_of_the_edge():
    edge = jnp.stack([jnp.zeros(6, jnp.int32), jnp.arange(6)], axis=1)
    ok = jnp.array([False, False, True, False, True, False])
    us = jnp.linspace(0, 0.999, 20)
    p = jax.vmap(lambda u: scroll.enter(entities.empty(2), jnp.bool_(True), u, edge, ok, (1, 0), 3))(us)
    assert (p.alive.sum(-1) == 1).all()
    assert (p.kind[:, 0] == 3).all() and (p.vel[:, 0] == jnp.array([1, 0])).all()
    assert set(np.asarray(p.pos[:, 0, 1]).tolist()) == {2, 4}
    none = scroll.enter(entities.empty(2), jnp.bool_(True), jnp.float32(0.3), edge, jnp.zeros(6, bool), (1, 0), 0)
    assert int(entities.count(none)) == 0
    off = scroll.enter(entities.empty(2), jnp.bool_(False), jnp.float32(0.3), edge, ok, (1, 0), 0)
    assert int(entities.count(off)) == 0


def test_burn_and_refuel__the_tank_stays_in_zero_to_cap_and_reports_running_dry_once():
    assert [int(x) for x in scroll.burn(jnp.int32(2))] == [1, 0]
    assert [int(x) for x in scroll.burn(jnp.int32(1))] == [0, 1]
    assert [int(x) for x in scroll.burn(jnp.int32(0))] == [0, 0]
    assert [int(x) for x in scroll.burn(jnp.int32(5), 0)] == [5, 0]
    assert int(scroll.refuel(jnp.int32(30), 30, 40)) == 40 and int(scroll.refuel(jnp.int32(3), 30, 40)) == 33


# --- games ------------------------------------------------------------------------------------------------
RR = "miniatari/riverraid"
RIVER = "▞▞        ▞▞"  # banks on columns 0-1 and 10-11


def straight(bank_rows=()):
    """A 16x12 river with water on columns 2-9 (plus bank cells at the given (row, col)s)."""
    field = np.zeros((16, 12), np.int8)
    field[:, :2] = field[:, 10:] = 1
    for r, c in bank_rows:
        field[r, c] = 1
    return jnp.asarray(field)


def with_cells(row: str, marks: dict) -> str:
    return "".join(marks.get(i, ch) for i, ch in enumerate(row))


def test_riverraid__a_shot_destroys_an_enemy_and_scores():
    s = start(RR, t=1, field=straight(), player=[14, 5], foes=pool([(12, 5), (3, 8)], n=12))
    s, reward, done, msg = play(RR, s, "FIRE")
    assert reward == pytest.approx(1 / 8) and not done and msg == "You destroyed an enemy craft."
    want = [RIVER] * 16
    want[3] = with_cells(RIVER, {8: "Ħ"})
    want[14] = with_cells(RIVER, {5: "A"})
    assert grid(RR, s) == want and int(s.phase) == 40


def test_riverraid__a_shot_meeting_a_depot_destroys_it_without_points():
    s = start(RR, t=1, field=straight(), player=[14, 5], foes=pool([(12, 5)], kinds=[1], n=12))
    s, reward, done, _ = play(RR, s, "FIRE")
    assert reward == 0 and not done and int(entities.count(s.foes)) == 0 and not bool(s.shots.alive.any())


def test_riverraid__the_river_scrolls_down_carrying_craft_and_burning_a_unit():
    s = start(RR, t=0, field=straight([(3, 2)]), player=[14, 5], foes=pool([(5, 3)], vel=[(0, 1)], n=12),
              phase=20)
    s, reward, done, _ = play(RR, s, "NOOP")
    want = [RIVER] * 16
    want[4] = with_cells(RIVER, {2: "▞"})  # the bank cell of row 3, one row down
    want[6] = with_cells(RIVER, {4: "Ħ"})  # patrolled one column right, then carried one row down
    want[14] = with_cells(RIVER, {5: "A"})
    assert grid(RR, s)[1:] == want[1:] and not done and reward == 0 and int(s.phase) == 19


def test_riverraid__flying_over_a_depot_fills_the_tank():
    s = start(RR, t=0, field=straight(), player=[14, 5], foes=pool([(13, 6)], kinds=[1], n=12), phase=7)
    s, reward, done, msg = play(RR, s, "RIGHT")  # the depot scrolls onto the jet's new cell
    assert msg == "You refuelled." and int(s.phase) == 40 and not done and reward == 0
    assert grid(RR, s)[14] == with_cells(RIVER, {6: "A"})


@pytest.mark.parametrize("what", ["bank", "enemy", "fuel"])
def test_riverraid__a_bank_an_enemy_or_an_empty_tank_kills_the_jet(what):
    fields = dict(t=1, field=straight(), player=[14, 2], phase=10)
    action = "NOOP"
    if what == "bank":
        action = "LEFT"
    elif what == "enemy":
        fields.update(t=0, foes=pool([(13, 2)], n=12))
    else:
        fields.update(t=0, phase=1)
    s, reward, done, msg = play(RR, start(RR, **fields), action)
    assert done and reward == -1.0 and msg == "Your jet crashed or ran dry. Game over."


def test_riverraid__the_eighth_enemy_wins():
    s = start(RR, t=1, field=straight(), player=[14, 5], foes=pool([(13, 5)], n=12), score=7)
    s, reward, done, msg = play(RR, s, "FIRE")
    assert done and reward == pytest.approx(1 / 8) and msg == "You reached the target. You win!"


def test_riverraid__the_same_seed_gives_the_same_river_and_another_seed_a_different_one():
    env = glyphjax.make(RR)
    a, b, c = (env.reset(glyphjax.reset_key(k)).field for k in (5, 5, 6))
    assert (a == b).all() and (a != c).any()
    assert int(a[14, 6]) == 0  # the jet starts on water


BR = "miniatari/beamrider"
BEAMS = " ┊  ┊  ┊  ┊  ┊"  # beams on columns 1, 4, 7, 10, 13


def test_beamrider__left_and_right_hop_a_whole_beam_and_stop_at_the_last():
    s = start(BR, t=1, player=[11, 4])
    s, *_ = play(BR, s, "LEFT")
    assert s.player.tolist() == [11, 1]
    s, *_ = play(BR, s, "LEFT")
    assert s.player.tolist() == [11, 1]
    s, *_ = play(BR, s, "RIGHT")
    assert s.player.tolist() == [11, 4] and grid(BR, s)[11] == " ┊  Ʌ  ┊  ┊  ┊"


def test_beamrider__a_torpedo_destroys_the_saucer_above_and_scores():
    s = start(BR, t=1, player=[11, 7], foes=pool([(9, 7), (2, 13)], n=6))
    s, reward, done, msg = play(BR, s, "FIRE")
    assert reward == pytest.approx(1 / 5) and not done and msg == "You destroyed a saucer."
    want = [BEAMS] * 12
    want[2] = BEAMS[:13] + "◊"
    want[11] = BEAMS[:7] + "Ʌ" + BEAMS[8:]
    assert grid(BR, s) == want


def test_beamrider__a_saucer_descending_onto_the_ship_kills_it_and_one_elsewhere_passes():
    s = start(BR, t=2, player=[11, 7], foes=pool([(10, 7)], n=6))
    _, reward, done, msg = play(BR, s, "NOOP")
    assert done and reward == -1.0 and msg == "A saucer hit your ship. Game over."
    s = start(BR, t=2, player=[11, 7], foes=pool([(11, 1)], n=6))
    s, reward, done, _ = play(BR, s, "NOOP")
    assert not done and reward == 0 and int(entities.count(s.foes)) <= 1  # gone (a new one may enter)
    assert not bool(((s.foes.pos == jnp.array([12, 1])).all(-1) & s.foes.alive).any())


def test_beamrider__the_fifth_saucer_wins():
    s = start(BR, t=1, player=[11, 7], foes=pool([(10, 7)], n=6), score=4)
    _, reward, done, msg = play(BR, s, "FIRE")
    assert done and reward == pytest.approx(1 / 5) and msg == "You reached the target. You win!"


def test_patrol__with_descend_a_blocked_craft_drops_a_row_and_turns_round():
    blocked = rows("0001", "0000") == 1
    p = pool([(0, 2), (0, 0)], vel=[(0, 1), (0, -1)])
    out = scroll.patrol(p, blocked, jnp.bool_(True), descend=True)
    assert out.pos.tolist() == [[1, 2], [1, 0]] and out.vel[:, 1].tolist() == [-1, 1]


def test_strike__a_shot_ends_on_the_first_solid_cell_of_its_path_even_off_the_field():
    solid = rows("1000", "0100", "0100", "0000") == 1
    shots0 = pool([(3, 1), (1, 0), (3, 3)], vel=(-2, 0))
    shots1, stopped = scroll.strike(shots0, entities.advance(shots0, 4, 4), solid)
    assert stopped.tolist() == [True, True, False]
    assert shots1.pos[:2].tolist() == [[2, 1], [0, 0]] and shots1.alive.tolist() == [True, True, True]


CP = "miniatari/centipede"
EMPTY16 = " " * 16


def cp_field(cells):
    field = np.zeros((10, 16), np.int8)
    for r, c in cells:
        field[r, c] = 1
    return jnp.asarray(field)


def test_centipede__a_shot_segment_scores_and_leaves_a_mushroom():
    s = start(CP, t=1, field=cp_field([]), player=[9, 5],
              foes=pool([(7, 5), (7, 4), (2, 9)], vel=(0, 1), n=8))
    s, reward, done, msg = play(CP, s, "FIRE")  # t = 1: the centipede does not move this turn
    assert reward == pytest.approx(1 / 8) and not done and msg == "You destroyed a centipede segment."
    want = [EMPTY16] * 10
    want[2] = " " * 9 + "◍" + " " * 6
    want[7] = " " * 4 + "◍♣" + " " * 10
    want[9] = " " * 5 + "▲" + " " * 10
    assert grid(CP, s) == want


def test_centipede__a_shot_meeting_a_mushroom_clears_it_without_points():
    s = start(CP, t=1, field=cp_field([(8, 5), (4, 5)]), player=[9, 5], foes=pool([(0, 12)], vel=(0, 1), n=8))
    s, reward, done, _ = play(CP, s, "FIRE")
    assert reward == 0 and not done and not bool(s.shots.alive.any())
    assert np.argwhere(np.asarray(s.field)).tolist() == [[4, 5]]


def test_centipede__segments_drop_and_turn_at_mushrooms_and_sides():
    s = start(CP, t=0, field=cp_field([(3, 8)]), player=[9, 0],
              foes=pool([(3, 7), (3, 6), (5, 15)], vel=[(0, 1), (0, 1), (0, 1)], n=8))
    s, reward, done, _ = play(CP, s, "NOOP")
    want = [EMPTY16] * 10
    want[3] = " " * 7 + "◍♣" + " " * 7
    want[4] = " " * 7 + "◍" + " " * 8
    want[6] = " " * 15 + "◍"
    want[9] = "▲" + " " * 15
    assert grid(CP, s) == want and s.foes.vel[:3, 1].tolist() == [-1, 1, -1]


def test_centipede__a_segment_reaching_the_bottom_row_kills_you():
    s = start(CP, t=0, field=cp_field([]), player=[9, 2], foes=pool([(8, 15)], vel=(0, 1), n=8))
    _, reward, done, msg = play(CP, s, "NOOP")
    assert done and reward == -1.0 and msg == "The centipede reached the bottom row. Game over."


def test_centipede__a_new_centipede_enters_when_the_last_segment_dies():
    s = start(CP, t=1, field=cp_field([]), player=[9, 5], foes=pool([(7, 5)], vel=(0, 1), n=8), score=2)
    s, reward, done, _ = play(CP, s, "FIRE")
    assert not done and int(entities.count(s.foes)) == 8
    assert grid(CP, s)[0] == "◍" * 8 + " " * 8 and grid(CP, s)[7] == " " * 5 + "♣" + " " * 10


PX = "miniatari/phoenix"
EMPTY14 = " " * 14


def test_phoenix__a_shot_bird_scores_and_the_others_fly_on():
    s = start(PX, t=0, player=[9, 6], foes=pool([(7, 6), (2, 3)], vel=[(1, 0), (0, -1)], kinds=[1, 0], n=6))
    s, reward, done, msg = play(PX, s, "FIRE", rate=0.0)
    assert reward == pytest.approx(1 / 6) and not done and msg == "You destroyed a bird."
    want = [EMPTY14] * 10
    want[2] = " " * 2 + "Ѵ" + " " * 11  # flew one column along its heading; the diver was shot
    want[9] = " " * 6 + "▲" + " " * 7
    assert grid(PX, s) == want


def test_phoenix__a_diving_bird_meeting_the_cannon_kills_it():
    s = start(PX, t=0, player=[9, 6], foes=pool([(8, 5), (2, 3)], vel=(0, 1), kinds=[1, 0], n=6))
    _, reward, done, msg = play(PX, s, "NOOP", rate=0.0)
    assert done and reward == -1.0 and msg == "Your cannon was destroyed (a bomb, or a diving bird). Game over."


def test_phoenix__a_diving_bird_that_misses_returns_to_the_top_row():
    s = start(PX, t=0, player=[9, 6], foes=pool([(8, 1), (2, 3)], vel=(0, 1), kinds=[1, 0], n=6))
    s, reward, done, _ = play(PX, s, "NOOP", rate=0.0)
    assert not done and reward == 0
    assert s.foes.pos[0].tolist() == [1, 2] and int(s.foes.kind[0]) == 0


def test_phoenix__a_new_wave_enters_after_the_last_bird():
    s = start(PX, t=1, player=[9, 6], foes=pool([(8, 6)], vel=(1, 0), kinds=[1], n=6))
    s, reward, done, _ = play(PX, s, "FIRE", rate=0.0)
    assert reward == pytest.approx(1 / 6) and not done and int(entities.count(s.foes)) == 6
    assert sorted(np.asarray(s.foes.pos[:, 0]).tolist()) == [1, 1, 2, 2, 3, 3]


AT = "miniatari/atlantis"
CITY = "▲▄▄▄▄▄▄▄▲▄▄▄▄▄▄▲"  # cannons at columns 0, 8 and 15


def test_atlantis__the_left_cannon_shoots_up_and_to_the_right():
    s = start(AT, t=0, foes=pool([(5, 2), (1, 10)], vel=[(0, 0), (0, 1)], n=6))
    s, reward, done, msg = play(AT, s, "LEFT", rate=0.0)
    assert reward == pytest.approx(1 / 15) and not done and msg == "You destroyed an enemy ship."
    want = [EMPTY16] * 7 + [CITY]
    want[1] = " " * 11 + "◆" + " " * 4
    assert grid(AT, s) == want


def test_atlantis__one_shot_per_cannon_in_flight():
    s = start(AT, t=0, foes=pool([(1, 3)], vel=(0, 0), n=6))
    s, *_ = play(AT, s, "CENTER", rate=0.0)
    s, *_ = play(AT, s, "CENTER", rate=0.0)
    assert int(s.shots.alive.sum()) == 1 and s.shots.pos[0].tolist() == [3, 8]
    s, *_ = play(AT, s, "RIGHT", rate=0.0)
    assert sorted(map(tuple, np.asarray(s.shots.pos)[np.asarray(s.shots.alive)].tolist())) == [(1, 8), (5, 13)]


def test_atlantis__a_ship_leaving_the_field_comes_back_one_row_lower_and_at_row_5_bombs_the_city():
    s = start(AT, t=0, foes=pool([(2, 15)], vel=(0, 1), n=6))
    s, reward, done, _ = play(AT, s, "NOOP", rate=0.0)
    assert s.foes.pos[0].tolist() == [3, 0] and not done
    s = start(AT, t=0, foes=pool([(4, 0)], vel=(0, -1), n=6))
    _, reward, done, msg = play(AT, s, "NOOP", rate=0.0)
    assert done and reward == -1.0 and msg == "A ship bombed the city. Game over."
