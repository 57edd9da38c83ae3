"""The games of arcade/board.py's author (Seaquest, Q*bert, Surround ...): the mechanics of
board.py and, per game, its scoring, win and death rules on positions set up by hand, with golden
frames written from the rules in each game's module docstring."""

import jax.numpy as jnp
import pytest

from glyphjax.core import entities
from glyphjax.suites.arcade import board
from tests.suites.arcade.test_games import grid, play, pool, start


def with_cells(row: str, marks: dict) -> str:
    return "".join(marks.get(i, ch) for i, ch in enumerate(row))


# --- seaquest ---------------------------------------------------------------------------------------
SQ = "miniatari/seaquest"
SEA = " " * 14


def sea(marks: dict) -> list[str]:
    """The 12x14 sea with the surface on row 0 and {(row, col): glyph} drawn."""
    rows = ["≋" * 14] + [SEA] * 11
    for (r, c), g in marks.items():
        rows[r] = with_cells(rows[r], {c: g})
    return rows


def test_seaquest__touching_a_diver_rescues_it():
    s = start(SQ, t=0, player=[3, 5], heading=[0, 1], foes=pool([(3, 7), (8, 1)], vel=(0, -1), kinds=[1, 0], n=6))
    s, reward, done, msg = play(SQ, s, "RIGHT", rate=0.0)  # the diver swims to (3, 6), you move onto it
    assert reward == pytest.approx(1 / 4) and not done and msg == "You rescued a diver."
    assert grid(SQ, s) == sea({(3, 6): "⇒", (8, 0): "◀"}) and int(s.phase) == 35


def test_seaquest__a_torpedo_destroys_the_first_shark_it_meets_and_is_spent():
    s = start(SQ, t=1, player=[5, 3], heading=[0, 1], foes=pool([(5, 5), (5, 6)], vel=(0, -1), n=6))
    s, reward, done, _ = play(SQ, s, "FIRE", rate=0.0)  # t=1: the sharks rest this turn
    assert reward == 0 and not done  # the torpedo ran (5, 3) -> (5, 5): the first shark is gone
    assert grid(SQ, s) == sea({(5, 3): "⇒", (5, 6): "◀"})
    s, *_ = play(SQ, s, "FIRE", rate=0.0)  # t=2: the shark swims to (5, 5); the torpedo meets it
    assert grid(SQ, s) == sea({(5, 3): "⇒"}) and int(entities.count(s.foes)) == 0


def test_seaquest__no_torpedo_from_the_surface_and_it_runs_two_columns_the_way_you_face():
    s, *_ = play(SQ, start(SQ, t=1, player=[0, 6]), "FIRE", rate=0.0)
    assert not bool(s.shots.alive.any())
    s, *_ = play(SQ, start(SQ, t=1, player=[2, 6], heading=[0, -1]), "FIRE", rate=0.0)
    assert grid(SQ, s) == sea({(2, 6): "⇐", (2, 4): "—"})


def test_seaquest__a_shark_swimming_onto_you_kills_you():
    s = start(SQ, t=0, player=[4, 5], foes=pool([(4, 6)], vel=(0, -1), n=6))
    _, reward, done, msg = play(SQ, s, "NOOP", rate=0.0)
    assert done and reward == -1.0 and msg == "A shark got you or your air ran out. Game over."


def test_seaquest__oxygen_runs_out_under_water_and_refills_on_the_surface():
    s = start(SQ, t=1, player=[3, 3], phase=1)
    _, reward, done, msg = play(SQ, s, "NOOP", rate=0.0)
    assert done and reward == -1.0
    s, reward, done, _ = play(SQ, start(SQ, t=1, player=[1, 3], phase=2), "UP", rate=0.0)
    assert not done and reward == 0 and int(s.phase) == 36 and s.player.tolist() == [0, 3]


def test_seaquest__the_fourth_diver_wins():
    s = start(SQ, t=1, player=[6, 6], foes=pool([(6, 7)], vel=(0, -1), kinds=[1], n=6), score=3)
    _, reward, done, msg = play(SQ, s, "RIGHT", rate=0.0)
    assert done and reward == pytest.approx(1 / 4) and msg == "You reached the target. You win!"


# --- board: pyramid ---------------------------------------------------------------------------------
def test_pyramid__rows_are_packed_two_columns_apart_under_the_apex():
    field = board.pyramid(4, 7, 3, top=1)
    assert ["".join(".#"[v] for v in row) for row in field.tolist()] == [
        ".......",
        "...#...",
        "..#.#..",
        ".#.#.#.",
    ]
    with pytest.raises(ValueError, match="does not fit"):
        board.pyramid(4, 7, 4, top=1)


def test_hop__diagonal_neighbours_are_cubes_and_a_hop_past_the_edge_falls():
    field = jnp.asarray(board.pyramid(4, 7, 3, top=1))
    dest, on = board.hop(field, jnp.array([2, 2]), jnp.array(board.HOPS[3]))  # down-right
    assert dest.tolist() == [3, 3] and bool(on)
    for delta in (board.HOPS[0], board.HOPS[2]):  # up-left from the left edge; down-left off the side
        _, on = board.hop(field, jnp.array([2, 2]), jnp.array(delta))
        assert delta == board.HOPS[2] or not bool(on)
    _, on = board.hop(field, jnp.array([3, 1]), jnp.array(board.HOPS[2]))  # below the bottom row
    assert not bool(on)


def test_paint_cube__paints_an_unpainted_cube_once():
    field = jnp.asarray(board.pyramid(4, 7, 3, top=1))
    field, fresh = board.paint_cube(field, jnp.array([2, 4]))
    assert bool(fresh) and int(field[2, 4]) == board.PAINTED
    again, fresh = board.paint_cube(field, jnp.array([2, 4]))
    assert not bool(fresh) and (again == field).all()


def test_roll__balls_drop_a_row_left_or_right_and_fall_off_the_bottom():
    field = jnp.asarray(board.pyramid(4, 7, 3, top=1))
    balls = pool([(1, 3), (2, 4), (3, 5)])
    out = board.roll(balls, field, jnp.array([0.2, 0.7, 0.2]), jnp.bool_(True))
    assert out.pos[:2].tolist() == [[2, 2], [3, 5]] and out.alive.tolist() == [True, True, False]
    rest = board.roll(balls, field, jnp.array([0.2, 0.7, 0.2]), jnp.bool_(False))
    assert rest.pos.tolist() == balls.pos.tolist() and rest.alive.all()


# --- qbert ------------------------------------------------------------------------------------------
QB = "miniatari/qbert"


def cubes(painted=(), marks=None) -> list[str]:
    """The mini 12x12 field: a 4-row pyramid with its apex at (4, 6), `painted` cubes and marks."""
    rows = [" " * 12 for _ in range(12)]
    for r in range(4):
        rows[4 + r] = with_cells(rows[4 + r], {6 - r + 2 * k: "▫" for k in range(r + 1)})
    for (r, c) in painted:
        rows[r] = with_cells(rows[r], {c: "◼"})
    for (r, c), g in (marks or {}).items():
        rows[r] = with_cells(rows[r], {c: g})
    return rows


def test_qbert__a_hop_paints_the_cube_you_land_on_once():
    s = start(QB, t=1)
    s, reward, done, msg = play(QB, s, "DOWN_RIGHT", rate=0.0)
    assert reward == pytest.approx(1 / 10) and not done and msg == "You painted a cube."
    assert grid(QB, s) == cubes(marks={(5, 7): "@"})
    s, *_ = play(QB, s, "UP_LEFT", rate=0.0)
    s, reward, _, _ = play(QB, s, "DOWN_RIGHT", rate=0.0)  # back onto the painted cube
    assert reward == 0 and grid(QB, s) == cubes(painted=[(4, 6)], marks={(5, 7): "@"})


@pytest.mark.parametrize("action", ["UP_LEFT", "UP_RIGHT"])
def test_qbert__hopping_off_the_pyramid_kills_you(action):
    _, reward, done, msg = play(QB, start(QB, t=1), action, rate=0.0)
    assert done and reward == -1.0 and msg == "You fell off the pyramid or a ball got you. Game over."


def test_qbert__a_ball_dropping_onto_your_cube_kills_you():
    # on a bounce turn the ball at (5, 5) drops to (6, 4) or (6, 6): exactly one of the two dies
    ends = [play(QB, start(QB, t=0, player=[6, c], foes=pool([(5, 5)], n=3)), "NOOP", rate=0.0) for c in (4, 6)]
    assert sorted(done for _, _, done, _ in ends) == [False, True]
    assert sorted(reward for _, reward, _, _ in ends) == [-1.0, pytest.approx(1 / 10)]


def test_qbert__hopping_onto_a_resting_ball_kills_you():
    s = start(QB, t=1, player=[5, 5], foes=pool([(6, 6)], n=3))  # t=1: balls rest this turn
    _, reward, done, msg = play(QB, s, "DOWN_RIGHT", rate=0.0)
    assert done and reward == -1.0 and msg == "You fell off the pyramid or a ball got you. Game over."
    s, reward, done, _ = play(QB, s, "DOWN_LEFT", rate=0.0)
    assert not done and grid(QB, s) == cubes(marks={(6, 4): "@", (6, 6): "●"})


def test_qbert__the_last_cube_wins():
    s = start(QB, t=1, score=9)
    _, reward, done, msg = play(QB, s, "NOOP", rate=0.0)  # the apex, where you start, is the last
    assert done and reward == pytest.approx(1 / 10) and msg == "You reached the target. You win!"


# --- board: trails ----------------------------------------------------------------------------------
def test_steer__turns_keep_the_heading_on_no_turn_and_ignore_a_reversal():
    up, down, left, right = range(4)
    assert int(board.steer(jnp.int32(right), jnp.int32(up))) == up
    assert int(board.steer(jnp.int32(right), jnp.int32(left))) == right
    assert int(board.steer(jnp.int32(down), jnp.int32(-1))) == down


def test_cycle_step__cycles_leave_trails_and_crash_on_walls_trails_and_each_other():
    field = jnp.zeros((5, 5), jnp.int8).at[0, 3].set(9)
    heads = jnp.array([[2, 1], [1, 3]])
    out, nxt, crashed = board.cycle_step(field, heads, jnp.array([3, 0]), jnp.array([1, 2]))
    assert nxt.tolist() == [[2, 2], [0, 3]] and crashed.tolist() == [False, True]
    assert int(out[2, 1]) == 1 and int(out[1, 3]) == 2 and int(out[2, 2]) == 0
    _, nxt, crashed = board.cycle_step(field, jnp.array([[2, 1], [2, 3]]), jnp.array([3, 2]), jnp.array([1, 2]))
    assert nxt.tolist() == [[2, 2], [2, 2]] and crashed.tolist() == [True, True]  # head-on
    _, _, crashed = board.cycle_step(field, jnp.array([[4, 0], [2, 2]]), jnp.array([1, 1]), jnp.array([1, 2]))
    assert crashed.tolist() == [True, False]  # off the field


def test_room__counts_free_cells_ahead_and_marks_blocked_and_reversed_headings():
    field = jnp.zeros((3, 6), jnp.int8).at[:, 2].set(1)  # a wall on column 2
    score = board.room(field, jnp.array([1, 0]), jnp.int32(3), jnp.array([1, 5]), depth=3)
    # up: from (0, 0) three steps reach (0, 1), (1, 1), (2, 1) (not the head's cell (1, 0), so not
    # (2, 0)): 4; down likewise; left is off the field; right: (1, 1) reaches all 5 free cells left
    # of the wall
    assert score.tolist() == [4, 4, -1, 5]
    score = board.room(field, jnp.array([1, 1]), jnp.int32(1), jnp.array([1, 5]), depth=1)
    # up reverses a downward cycle; down (2, 1) + (2, 0); left (1, 0) + (0, 0) + (2, 0); right the wall
    assert score.tolist() == [-1, 2, 3, -1]


# --- surround ---------------------------------------------------------------------------------------
SR = "miniatari/surround"


def arena(marks: dict) -> list[str]:
    """The mini 12x12 arena (walls on the border) with {(row, col): glyph} drawn."""
    rows = ["▓" * 12] + ["▓" + " " * 10 + "▓" for _ in range(10)] + ["▓" * 12]
    for (r, c), g in marks.items():
        rows[r] = with_cells(rows[r], {c: g})
    return rows


def walls(trails: dict) -> jnp.ndarray:
    field = jnp.zeros((12, 12), jnp.int8)
    field = field.at[0].set(3).at[-1].set(3).at[:, 0].set(3).at[:, -1].set(3)
    for (r, c), code in trails.items():
        field = field.at[r, c].set(code)
    return field


def test_surround__a_boxed_in_opponent_crashes_and_you_win():
    s = start(SR, field=walls({(1, 2): 2}), player=[6, 6], heading=[0, 1], opponent=[1, 1], phase=0)
    s, reward, done, msg = play(SR, s, "NOOP", rate=1.0)
    assert done and reward == 1.0 and msg == "You reached the target. You win!"
    assert grid(SR, s) == arena({(0, 1): "&", (1, 1): "▧", (1, 2): "▧", (6, 6): "▦", (6, 7): "@"})


def test_surround__running_into_a_wall_loses_and_a_reversal_is_ignored():
    s = start(SR, field=walls({}), player=[6, 10], heading=[0, 1], opponent=[3, 5], phase=2)
    _, reward, done, msg = play(SR, s, "LEFT", rate=1.0)  # LEFT would reverse: you keep going right
    assert done and reward == -1.0 and msg == "The opponent reached the target. You lose."


def test_surround__a_head_on_meeting_is_a_draw_and_a_new_round_starts():
    s = start(SR, field=walls({(4, 6): 2, (6, 6): 2}), player=[5, 4], heading=[0, 1], opponent=[5, 6], phase=2)
    s, reward, done, msg = play(SR, s, "NOOP", rate=1.0)
    assert not done and reward == 0 and msg == "Both cycles crashed: a draw. A new round starts."
    assert grid(SR, s) == arena({(6, 2): "@", (5, 9): "&"})


# --- board: road ------------------------------------------------------------------------------------
def test_drive__traffic_moves_down_by_the_relative_speed_overtaken_or_hitting_you():
    you = jnp.array([5, 3])
    cars = pool([(5, 1), (3, 3), (0, 2)], n=4)  # beside you, two rows above you, far away
    out, hit, passed = board.drive(cars, you, you, jnp.int32(2), 8, 6)
    assert bool(hit) and int(passed) == 1  # the car above sweeps through you; the one beside passes
    assert out.alive.tolist() == [True, False, True, False] and out.pos[jnp.array([0, 2])].tolist() == [[7, 1], [2, 2]]
    out, hit, passed = board.drive(cars, you, you, jnp.int32(0), 8, 6)
    assert not bool(hit) and int(passed) == 0 and out.pos.tolist() == cars.pos.tolist()
    _, hit, _ = board.drive(cars, you, jnp.array([5, 2]), jnp.int32(0), 8, 6)
    assert not bool(hit)
    _, hit, _ = board.drive(pool([(5, 2)]), you, jnp.array([5, 2]), jnp.int32(0), 8, 6)
    assert bool(hit)  # steering onto a car's cell


# --- enduro -----------------------------------------------------------------------------------------
EN = "miniatari/enduro"


def road(marks: dict) -> list[str]:
    rows = ["┃" + " " * 10 + "┃" for _ in range(10)]
    for (r, c), g in marks.items():
        rows[r] = with_cells(rows[r], {c: g})
    return rows


def test_enduro__a_car_passing_your_row_untouched_is_overtaken():
    s = start(EN, player=[8, 6], phase=2, foes=pool([(8, 5), (2, 9)], n=8))
    s, reward, done, msg = play(EN, s, "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 8) and not done and msg == "You overtook a car."
    assert grid(EN, s) == road({(8, 6): "♦", (9, 5): "◙", (3, 9): "◙"})


def test_enduro__touching_a_car_ends_the_episode_without_penalty():
    s = start(EN, player=[8, 6], phase=3, foes=pool([(6, 6)], n=8))  # two rows a turn: it sweeps you
    _, reward, done, msg = play(EN, s, "NOOP", rate=0.0)
    assert done and reward == 0 and msg == "You crashed into a car. Game over."


def test_enduro__speed_stays_in_one_to_three_and_the_kerb_stops_steering():
    s = start(EN, player=[8, 1], phase=3)
    s, *_ = play(EN, s, "ACCELERATE", rate=0.0)
    assert int(s.phase) == 3
    s, *_ = play(EN, s.replace(phase=jnp.int32(1)), "BRAKE", rate=0.0)
    s, *_ = play(EN, s, "LEFT", rate=0.0)
    assert int(s.phase) == 1 and s.player.tolist() == [8, 1]


def test_enduro__the_eighth_car_wins():
    s = start(EN, player=[8, 6], phase=2, foes=pool([(8, 2)], n=8), score=7)
    _, reward, done, msg = play(EN, s, "NOOP", rate=0.0)
    assert done and reward == pytest.approx(1 / 8) and msg == "You reached the target. You win!"


# --- skiing -----------------------------------------------------------------------------------------
SK = "miniatari/skiing"


def slope(marks: dict) -> list[str]:
    rows = [" " * 14 for _ in range(16)]
    for (r, c), g in marks.items():
        rows[r] = with_cells(rows[r], {c: g})
    return rows


def test_skiing__between_the_flags_clears_the_gate_and_outside_misses_it():
    s = start(SK, t=1, player=[2, 6], phase=2, foes=pool([(3, 4), (9, 2)], n=5))  # flags at 4 and 8
    s2, reward, done, msg = play(SK, s, "RIGHT")  # you end on column 7, inside
    assert reward == pytest.approx(1 / 10) and not done and msg == "You cleared a gate."
    assert grid(SK, s2) == slope({(2, 7): "@", (8, 2): "⚑", (8, 6): "⚑"})
    _, reward, done, _ = play(SK, s.replace(player=jnp.array([2, 8], jnp.int32)), "NOOP")  # on the flag
    assert reward == 0 and not done


def test_skiing__the_course_ends_without_penalty_when_the_last_gate_has_passed():
    s = start(SK, t=1, player=[2, 0], phase=10, foes=pool([(3, 6)], n=5))
    _, reward, done, msg = play(SK, s, "NOOP")
    assert done and reward == 0 and msg == "The course is over."


def test_skiing__the_tenth_gate_wins():
    s = start(SK, t=1, player=[2, 7], phase=10, foes=pool([(3, 6)], n=5), score=9)
    _, reward, done, msg = play(SK, s, "NOOP")
    assert done and reward == pytest.approx(1 / 10) and msg == "You reached the target. You win!"


# --- gopher -----------------------------------------------------------------------------------------
GO = "miniatari/gopher"
GROUND = ["              ", "              ", "   ▼   ▼  ▼   "] + ["▚" * 14] * 4 + [" " * 14]


def farm(marks: dict) -> list[str]:
    rows = list(GROUND)
    for (r, c), g in marks.items():
        rows[r] = with_cells(rows[r], {c: g})
    return rows


def dug(cells, carrots=(3, 7, 10)) -> jnp.ndarray:
    field = jnp.zeros((8, 14), jnp.int8).at[3:7].set(1)
    for c in carrots:
        field = field.at[2, c].set(2)
    for r, c in cells:
        field = field.at[r, c].set(0)
    return field


def test_gopher__the_field_at_reset_and_a_move_into_dirt_only_digs():
    s = start(GO, t=0)
    assert grid(GO, s) == farm({(1, 7): "@", (7, 0): "ɢ"})
    s = start(GO, t=0, opponent=[7, 3], phase=3)
    s, reward, done, _ = play(GO, s, "NOOP")
    assert s.opponent.tolist() == [7, 3] and reward == 0 and not done
    assert grid(GO, s) == farm({(1, 7): "@", (6, 3): " ", (7, 3): "ɢ"})
    s, *_ = play(GO, s, "NOOP")
    assert s.opponent.tolist() == [6, 3]  # the open cell: it climbs


def test_gopher__fill_bonks_the_gopher_on_the_top_row_below_you():
    s = start(GO, t=0, field=dug([(4, 7), (5, 7), (6, 7), (3, 7)]), opponent=[3, 7], phase=7)
    s, reward, done, msg = play(GO, s, "FILL")
    assert reward == pytest.approx(1 / 3) and not done and msg == "You bonked the gopher."
    assert s.opponent[0] == 7 and int(s.opponent[1]) in (0, 13)


def test_gopher__fill_closes_the_topmost_open_cell_above_the_gopher():
    s = start(GO, t=1, field=dug([(4, 7), (5, 7), (6, 7)]), opponent=[6, 7], phase=7)
    s, reward, _, _ = play(GO, s, "FILL")  # t=1 with period 1: the gopher moves too, into (5, 7)
    assert reward == 0 and int(s.field[4, 7]) == 1 and s.opponent.tolist() == [5, 7]


def test_gopher__it_eats_the_carrot_above_the_top_row_and_the_last_one_ends_the_game():
    s = start(GO, t=0, field=dug([(3, 3)]), opponent=[3, 3], phase=3)
    s, reward, done, msg = play(GO, s, "NOOP")
    assert not done and reward == 0 and msg == "The gopher ate a carrot." and int(s.field[2, 3]) == 0
    assert s.opponent.tolist() == [7, 3]
    s = start(GO, t=0, field=dug([(3, 3)], carrots=(3,)), opponent=[3, 3], phase=3)
    _, reward, done, msg = play(GO, s, "NOOP")
    assert done and reward == -1.0 and msg == "The gopher ate your last carrot. Game over."


def test_gopher__the_third_bonk_wins():
    s = start(GO, t=0, field=dug([(3, 7)]), opponent=[3, 7], phase=7, score=2)
    _, reward, done, msg = play(GO, s, "FILL")
    assert done and reward == pytest.approx(1 / 3) and msg == "You reached the target. You win!"


# --- kungfumaster -----------------------------------------------------------------------------------
KF = "miniatari/kungfumaster"


def corridor(marks: dict) -> list[str]:
    rows = [" " * 16 for _ in range(7)] + ["═" * 16]
    for (r, c), g in marks.items():
        rows[r] = with_cells(rows[r], {c: g})
    return rows


def test_kungfumaster__a_punch_knocks_out_the_gripper_two_cells_ahead():
    s = start(KF, t=1, player=[6, 8], heading=[0, 1], foes=pool([(6, 10), (6, 3)], kinds=[0, 1], n=6))
    s, reward, done, msg = play(KF, s, "PUNCH", rate=0.0)  # t=1: the fighters wait this turn
    assert reward == pytest.approx(1 / 8) and not done and msg == "You knocked out a fighter."
    assert grid(KF, s) == corridor({(6, 8): "⇒", (6, 3): "ʏ"})


def test_kungfumaster__only_a_kick_reaches_a_dwarf():
    s = start(KF, t=1, player=[6, 8], heading=[0, -1], foes=pool([(6, 7)], kinds=[1], n=6))
    _, reward, _, _ = play(KF, s, "PUNCH", rate=0.0)
    assert reward == 0
    s, reward, _, _ = play(KF, s, "KICK", rate=0.0)
    assert reward == pytest.approx(1 / 8) and int(entities.count(s.foes)) == 0


def test_kungfumaster__left_turns_you_and_only_steps_when_you_already_face_left():
    s = start(KF, t=1, player=[6, 8], heading=[0, 1])
    s, *_ = play(KF, s, "LEFT", rate=0.0)
    assert s.player.tolist() == [6, 8] and grid(KF, s)[6] == with_cells(" " * 16, {8: "⇐"})
    s, *_ = play(KF, s, "LEFT", rate=0.0)
    assert s.player.tolist() == [6, 7]


def test_kungfumaster__a_fighter_reaching_you_grabs_you():
    s = start(KF, t=0, player=[6, 8], heading=[0, 1], foes=pool([(6, 7)], n=6))  # behind you
    _, reward, done, msg = play(KF, s, "NOOP", rate=0.0)
    assert done and reward == -1.0 and msg == "A fighter grabbed you. Game over."


def test_kungfumaster__the_eighth_knock_out_wins():
    s = start(KF, t=1, player=[6, 8], heading=[0, 1], foes=pool([(6, 9)], n=6), score=7)
    _, reward, done, msg = play(KF, s, "KICK", rate=0.0)
    assert done and reward == pytest.approx(1 / 8) and msg == "You reached the target. You win!"
