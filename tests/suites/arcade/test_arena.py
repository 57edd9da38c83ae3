"""The duel mechanics (arena.py) and the sports games built on them: each game's scoring, win
and loss rules on positions set up by hand, with golden frames written from the rules."""

import jax.numpy as jnp
import pytest

from glyphjax.suites.arcade import arena
from glyphjax.suites.arcade.kangaroo import KANGAROO, _layout
from tests.suites.arcade.test_games import grid, play, pool, start

A = lambda *xs: jnp.array(xs, jnp.int32)  # noqa: E731


# --- arena mechanics ----------------------------------------------------------------------------------
@pytest.mark.parametrize("pos, target, step", [((4, 4), (1, 5), (-1, 0)), ((4, 4), (5, 9), (0, 1)),
                                               ((4, 4), (6, 2), (1, 0)), ((4, 4), (4, 4), (0, 0))])
def test_toward__steps_along_the_larger_gap_rows_on_a_tie(pos, target, step):
    assert arena.toward(A(*pos), A(*target)).tolist() == list(step)


def test_track__moves_only_when_the_skill_draw_is_under_the_rate():
    lo, hi = A(1, 1), A(6, 10)
    assert arena.track(A(3, 3), A(3, 8), 0.59, 0.6, lo, hi, A(0, 0)).tolist() == [3, 4]
    assert arena.track(A(3, 3), A(3, 8), 0.61, 0.6, lo, hi, A(0, 0)).tolist() == [3, 3]


def test_track__never_steps_onto_the_other_body_or_out_of_the_box():
    lo, hi = A(1, 1), A(6, 10)
    assert arena.track(A(3, 3), A(3, 4), 0.0, 1.0, lo, hi, A(3, 4)).tolist() == [3, 3]
    assert arena.walk(A(1, 10), A(-1, 0), lo, hi, A(5, 5)).tolist() == [1, 10]
    assert arena.walk(A(1, 10), A(0, 1), lo, hi, A(5, 5)).tolist() == [1, 10]


@pytest.mark.parametrize("b, reach, hit", [((4, 6), 2, True), ((5, 5), 2, True), ((5, 6), 2, False),
                                           ((4, 6), 1, False), ((4, 5), 1, True)])
def test_in_reach__is_manhattan_distance(b, reach, hit):
    assert bool(arena.in_reach(A(4, 4), A(*b), reach)) is hit


@pytest.mark.parametrize("b, hit", [((5, 5), True), ((3, 4), True), ((4, 4), True), ((4, 6), False), ((6, 5), False)])
def test_beside__is_the_cell_or_its_eight_neighbours(b, hit):
    assert bool(arena.beside(A(4, 4), A(*b))) is hit


def test_fly__a_ball_bounces_off_the_side_walls_by_the_wall_rule():
    # walls at columns 0 and 5: 3 -> 4 -> 5 -> 5 (flips, moves only along rows) -> 4
    pos, vel, path = A(2, 3), A(1, 1), []
    for _ in range(4):
        pos, vel = arena.fly(pos, vel, (-1, 0), (10, 5))
        path.append(pos.tolist())
    assert path == [[3, 4], [4, 5], [5, 5], [6, 4]] and vel.tolist() == [1, -1]


def test_fly__an_open_side_lets_the_ball_leave():
    pos, vel = arena.fly(A(0, 3), A(-1, 0), (-1, 0), (10, 5))
    assert pos.tolist() == [-1, 3] and vel.tolist() == [-1, 0]


def test_move_action__maps_unit_steps_to_the_duel_vocabulary():
    assert [int(arena.move_action(A(*d))) for d in arena.DUEL_MOVES] == [0, 1, 2, 3, 4]


# --- boxing -------------------------------------------------------------------------------------------
BX = "miniatari/boxing"
SURE = 2.0  # rate 2: the opponent steps (u < 2) and punches (u < 1) whenever it can


def _ring(cells):
    rows = ["#" * 12] + ["#" + " " * 10 + "#" for _ in range(6)] + ["#" * 12]
    for (r, c), g in cells.items():
        rows[r] = rows[r][:c] + g + rows[r][c + 1:]
    return rows


def test_boxing__a_punch_in_reach_lands_golden_frame():
    s = start(BX, player=[4, 5], opponent=[4, 7])
    s, reward, done, message = play(BX, s, "PUNCH", rate=0.0)
    assert reward == pytest.approx(1 / 5) and not done and message == "Your punch landed."
    assert int(s.score) == 1 and int(s.cooldown) == 2
    assert grid(BX, s) == _ring({(4, 5): "@", (4, 7): "&"})


def test_boxing__a_punch_out_of_reach_misses_and_the_cooldown_blocks_the_next():
    s = start(BX, player=[4, 4], opponent=[4, 7])
    s, reward, _, _ = play(BX, s, "PUNCH", rate=0.0)  # distance 3: a miss
    assert reward == 0 and int(s.cooldown) == 2
    s = s.replace(opponent=jnp.array([4, 6], jnp.int32))
    s, reward, _, _ = play(BX, s, "PUNCH", rate=0.0)  # in reach, but the next punch is 2 turns on
    assert reward == 0 and int(s.score) == 0
    s, reward, _, _ = play(BX, s, "PUNCH", rate=0.0)
    assert reward == pytest.approx(1 / 5)


def test_boxing__the_opponent_closes_in_and_punches_back():
    s = start(BX, player=[4, 3], opponent=[4, 6])
    s, reward, done, message = play(BX, s, "NOOP", rate=SURE)
    assert s.opponent.tolist() == [4, 5] and reward == pytest.approx(-1 / 5)
    assert message == "The opponent punched you." and int(s.phase) == 2 and not done
    assert grid(BX, s) == _ring({(4, 3): "@", (4, 5): "&"})
    s, reward, _, _ = play(BX, s, "NOOP", rate=SURE)  # adjacent now, its cooldown still runs
    assert s.opponent.tolist() == [4, 4] and reward == 0


def test_boxing__the_fifth_punch_wins_and_the_opponents_fifth_loses():
    s = start(BX, player=[4, 5], opponent=[4, 6], score=4)
    _, reward, done, message = play(BX, s, "PUNCH", rate=0.0)
    assert done and reward == pytest.approx(1 / 5) and message == "You reached the target. You win!"
    s = start(BX, player=[4, 5], opponent=[4, 6], opp_score=4)
    _, reward, done, message = play(BX, s, "NOOP", rate=SURE)
    assert done and reward == pytest.approx(-1 / 5) and message == "The opponent reached the target. You lose."


# --- tennis -------------------------------------------------------------------------------------------
TN = "miniatari/tennis"  # 10x18, the net on row 5, the opponent's baseline row 1


def _court(cells):
    rows = [" " * 18] * 5 + ["-" * 18] + [" " * 18] * 4
    for (r, c), g in cells.items():
        rows[r] = rows[r][:c] + g + rows[r][c + 1:]
    return rows


def test_tennis__a_ball_beside_you_is_struck_back_to_that_side_golden_frame():
    s = start(TN, ball=[7, 9], ball_vel=[1, 1], player=[8, 11], opponent=[1, 9])
    s, reward, done, _ = play(TN, s, "NOOP", rate=0.0)
    assert reward == 0 and not done and s.ball.tolist() == [8, 10] and s.ball_vel.tolist() == [-1, -1]
    assert grid(TN, s) == _court({(1, 9): "&", (8, 10): "●", (8, 11): "@"})


def test_tennis__the_opponent_returns_a_ball_in_line_straight():
    s = start(TN, ball=[3, 9], ball_vel=[-1, 0], player=[8, 2], opponent=[1, 9])
    s, reward, _, _ = play(TN, s, "NOOP", rate=0.0)
    assert reward == 0 and s.ball.tolist() == [2, 9] and s.ball_vel.tolist() == [1, 0]


def test_tennis__a_ball_past_the_opponent_is_your_point_and_a_new_serve():
    s = start(TN, ball=[0, 3], ball_vel=[-1, 0], player=[8, 2], opponent=[1, 12])
    s, reward, done, message = play(TN, s, "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 5) and not done and message == "You won the point."
    assert int(s.ball[0]) == 5 and 7 <= int(s.ball[1]) <= 10 and int(s.score) == 1


def test_tennis__the_opponents_fifth_point_loses():
    s = start(TN, ball=[9, 2], ball_vel=[1, 0], player=[8, 12], opp_score=4)
    _, reward, done, message = play(TN, s, "NOOP", rate=0.0)
    assert done and reward == pytest.approx(-1 / 5) and message == "The opponent reached the target. You lose."


def test_tennis__the_opponent_chases_a_coming_ball_and_otherwise_goes_back_to_the_middle():
    s = start(TN, ball=[4, 3], ball_vel=[-1, 1], player=[8, 12], opponent=[1, 9])
    chased, *_ = play(TN, s, "NOOP", rate=2.0)
    going = s.replace(ball_vel=jnp.array([1, 1], jnp.int32), opponent=jnp.array([1, 4], jnp.int32))
    back, *_ = play(TN, going, "NOOP", rate=2.0)
    assert chased.opponent.tolist() == [1, 8] and back.opponent.tolist() == [1, 5]


def test_tennis__you_cannot_cross_the_net():
    s = start(TN, ball=[2, 2], ball_vel=[-1, 0], player=[6, 12], opponent=[1, 2])
    s, *_ = play(TN, s, "UP", rate=0.0)
    assert s.player.tolist() == [6, 12]


# --- ice hockey ---------------------------------------------------------------------------------------
IH = "miniatari/icehockey"  # 10x16 rink, goals on columns 6-9 of rows 0 (theirs) and 9 (yours)


def _rink(cells):
    rows = [" " * 6 + "=" * 4 + " " * 6] + [" " * 16] * 8 + [" " * 6 + "_" * 4 + " " * 6]
    for (r, c), g in cells.items():
        rows[r] = rows[r][:c] + g + rows[r][c + 1:]
    return rows


def _hockey(**fields):
    base = dict(opponent=[2, 2], ball_vel=[0, 0], phase=0, cooldown=0)
    return start(IH, **{**base, **fields})


def test_icehockey__a_free_puck_within_one_cell_is_picked_up_golden_frame():
    s = _hockey(player=[7, 8], ball=[5, 9])
    s, reward, _, _ = play(IH, s, "UP", rate=0.0)
    assert int(s.phase) == 1 and int(s.cooldown) == 2 and reward == 0
    assert grid(IH, s) == _rink({(2, 2): "&", (5, 9): "•", (6, 8): "@"})
    s, *_ = play(IH, s, "LEFT", rate=0.0)  # carried on the cell above you
    assert s.ball.tolist() == [5, 7] and s.player.tolist() == [6, 7]


def test_icehockey__a_shot_in_line_with_the_goal_scores_and_play_restarts():
    s = _hockey(player=[3, 8], ball=[2, 8], phase=1)
    s, reward, _, _ = play(IH, s, "SHOOT", rate=0.0)
    assert int(s.phase) == 0 and s.ball_vel.tolist() == [-1, 0] and reward == 0
    s, reward, _, _ = play(IH, s, "NOOP", rate=0.0)
    assert s.ball.tolist() == [1, 8] and reward == 0
    s, reward, done, message = play(IH, s, "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 3) and not done and message == "You scored a goal."
    assert s.player.tolist() == [7, 8] and s.opponent.tolist() == [3, 8] and int(s.ball[0]) == 5


def test_icehockey__a_shot_from_the_side_goes_diagonally_towards_the_goal():
    s, *_ = play(IH, _hockey(player=[4, 2], ball=[3, 2], phase=1), "SHOOT", rate=0.0)
    assert s.ball_vel.tolist() == [-1, 1]


def test_icehockey__the_puck_bounces_off_the_boards_and_misses_beside_the_goal():
    s, *_ = play(IH, _hockey(player=[8, 12], ball=[3, 0], ball_vel=[1, -1]), "NOOP", rate=0.0)
    assert s.ball.tolist() == [4, 0] and s.ball_vel.tolist() == [1, 1]
    s, reward, _, _ = play(IH, _hockey(player=[8, 12], ball=[1, 4], ball_vel=[-1, 0]), "NOOP", rate=0.0)
    assert s.ball.tolist() == [0, 4] and reward == 0


def test_icehockey__the_opponent_takes_your_puck_at_its_rate():
    s = _hockey(player=[5, 8], ball=[4, 8], phase=1, opponent=[3, 8])
    kept, *_ = play(IH, s, "NOOP", rate=0.0)
    taken, *_ = play(IH, s, "NOOP", rate=2.0)
    assert int(kept.phase) == 1 and int(taken.phase) == 2 and int(taken.cooldown) == 2


def test_icehockey__the_opponent_carrying_the_puck_into_your_goal_wins_its_third():
    s = _hockey(player=[2, 2], opponent=[8, 8], ball=[9, 8], phase=2, opp_score=2)
    _, reward, done, message = play(IH, s, "NOOP", rate=0.0)
    assert done and reward == pytest.approx(-1 / 3) and message == "The opponent reached the target. You lose."


# --- platform physics (climb_step) --------------------------------------------------------------------
def _tower(floor_rows, ladder_cells, h=6, w=5):
    solid = jnp.zeros((h, w), bool).at[jnp.array(floor_rows)].set(True)
    ladder = jnp.zeros((h, w), bool)
    for r, c in ladder_cells:
        ladder = ladder.at[r, c].set(True)
    return solid, ladder


def _climb(solid, ladder, pos, moves):
    """Rows/columns a body visits under climb_step for moves in 'N', 'L', 'R', 'U', 'D'."""
    pos, phase, path = A(*pos), jnp.int32(0), []
    for m in moves:
        pos, phase = arena.climb_step(solid, ladder, pos, phase, jnp.int32({"L": -1, "R": 1}.get(m, 0)),
                                      jnp.bool_(m == "U"), jnp.bool_(m == "D"))
        path.append(tuple(pos.tolist()))
    return path


def test_climb_step__a_jump_follows_the_seven_turn_arc_and_lands():
    solid, ladder = _tower([5], [])
    path = _climb(solid, ladder, (4, 2), "UNNNNNNN")
    assert [r for r, _ in path] == [3, 2, 1, 1, 2, 3, 4, 4]


def test_climb_step__a_floor_overhead_ends_the_rise():
    solid, ladder = _tower([2, 5], [])
    assert [r for r, _ in _climb(solid, ladder, (4, 2), "UNNN")] == [3, 3, 4, 4]


def test_climb_step__a_ladder_climbs_through_the_floor_above_and_back_down():
    solid, ladder = _tower([2, 5], [(2, 2), (3, 2), (4, 2)])
    assert _climb(solid, ladder, (4, 2), "UUUNDD") == [(3, 2), (2, 2), (1, 2), (1, 2), (2, 2), (3, 2)]


def test_climb_step__stepping_off_a_ladder_falls_to_the_floor_below():
    solid, ladder = _tower([2, 5], [(2, 2), (3, 2), (4, 2)])
    assert _climb(solid, ladder, (3, 2), "RNN") == [(3, 3), (4, 3), (4, 3)]
    assert _climb(solid, ladder, (2, 2), "RL") == [(2, 2), (2, 2)]  # inside the floor: no way out sideways


# --- kangaroo -----------------------------------------------------------------------------------------
KG = "miniatari/kangaroo"  # 14x12: floors on rows 13, 10, 7, 4; the joey on row 3, column 10


def _kangaroo(**fields):
    solid, ladder = _layout(KANGAROO.mini, A(4, 8, 3))
    field = jnp.where(ladder, 2, jnp.where(solid, 1, 0)).astype(jnp.int8)
    return start(KG, field=field, phase=0, **fields)


def test_kangaroo__a_new_floor_scores_golden_frame():
    s, reward, done, message = play(KG, _kangaroo(player=[10, 4]), "UP", rate=0.0)
    assert reward == pytest.approx(1 / 3) and not done and message == "You reached a new floor."
    assert grid(KG, s) == [" " * 12] * 3 + [
        " " * 10 + "☺ ", "═══H════════", "   H        ", "   H        ", "════════H═══",
        "        H   ", "    @   H   ", "════H═══════", "    H       ", "    H       ", "════════════"]


def test_kangaroo__a_floor_pays_once_and_the_top_floor_wins():
    _, reward, _, _ = play(KG, _kangaroo(player=[10, 4], score=1), "UP", rate=0.0)
    assert reward == 0
    _, reward, done, message = play(KG, _kangaroo(player=[4, 3], score=2), "UP", rate=0.0)
    assert done and reward == pytest.approx(1 / 3) and message == "You reached the target. You win!"


def test_kangaroo__a_falling_coconut_kills():
    s = _kangaroo(player=[9, 6], score=1, bombs=pool([(8, 6)], vel=(1, 0), n=3))
    _, reward, done, message = play(KG, s, "NOOP", rate=0.0)
    assert done and reward == -1.0 and message == "A coconut hit you. Game over."


# --- frostbite ----------------------------------------------------------------------------------------
FB = "miniatari/frostbite"  # 10x16: the shore on row 0, floe rows 2, 4, 6, 8


def _floes(cells, moving=()):
    """A frostbite position: floe `cells`; rows in `moving` drift left every turn, others rest."""
    field = jnp.zeros((10, 16), jnp.int8)
    for r, c in cells:
        field = field.at[r, c].set(1)
    lanes = jnp.zeros((10, 3), jnp.int32).at[:, 2].set(100)
    for r in moving:
        lanes = lanes.at[r, 1].set(-1).at[r, 2].set(1)
    return dict(field=field, lanes=lanes, t=1 if not moving else 0)


def test_frostbite__landing_on_a_white_row_adds_a_block_and_turns_it_blue_golden_frame():
    s = start(FB, player=[0, 4], **_floes([(2, 3), (2, 4), (2, 5), (4, 8)]))
    s, reward, done, message = play(FB, s, "DOWN")
    assert reward == pytest.approx(1 / 4) and not done and message == "You added a block to your igloo."
    water = "~" * 16
    assert grid(FB, s) == ["." * 16, water, "~~~▣@▣~~~~~~~~~~", water, "~" * 8 + "▢" + "~" * 7] + [water] * 5


def test_frostbite__landing_in_the_water_drowns_without_penalty():
    s = start(FB, player=[0, 8], **_floes([(2, 3), (2, 4), (2, 5)]))
    _, reward, done, message = play(FB, s, "DOWN")
    assert done and reward == 0 and message == "You fell into the icy water. Game over."
    s = start(FB, player=[2, 5], **_floes([(2, 3), (2, 4), (2, 5)]))
    _, _, done, _ = play(FB, s, "RIGHT")
    assert done


def test_frostbite__you_drift_with_your_floe():
    s = start(FB, player=[2, 4], phase=1, **_floes([(2, 3), (2, 4), (2, 5)], moving=[2]))
    s, reward, done, _ = play(FB, s, "NOOP")
    assert s.player.tolist() == [2, 3] and not done and reward == 0
    assert grid(FB, s)[2] == "~~▣@▣" + "~" * 11


def test_frostbite__a_blue_row_pays_nothing_and_the_fourth_block_wins():
    s = start(FB, player=[4, 4], phase=0b0001, **_floes([(2, 4), (4, 4)]))
    s, reward, _, _ = play(FB, s, "UP")
    assert reward == 0 and int(s.phase) == 0b0001
    s = start(FB, player=[6, 4], phase=0b0111, score=3, **_floes([(6, 4), (8, 4)]))
    s, reward, done, message = play(FB, s, "DOWN")
    assert done and reward == pytest.approx(1 / 4) and message == "You reached the target. You win!"
    assert int(s.phase) == 0  # every row blue: all white again


# --- bowling ------------------------------------------------------------------------------------------
BW = "miniatari/bowling"  # 10x12: pins on rows 1-4 (row 1: columns 3, 5, 7, 9; the head pin 4, 6)
RACK = ["   i i i i  ", "    i i i   ", "     i i    ", "      i     "]


def _lane(pins=None, **fields):
    field = jnp.zeros((10, 12), jnp.int8)
    for r, row in enumerate(RACK):
        for c, g in enumerate(row):
            if g == "i" and (pins is None or (1 + r, c) in pins):
                field = field.at[1 + r, c].set(1)
    return start(BW, **{"field": field, "player": [9, 6], "cooldown": 1, **fields})


def test_bowling__the_ball_fells_the_head_pin_and_it_knocks_the_two_behind_golden_frame():
    s, reward, _, message = play(BW, _lane(ball=[5, 6]), "NOOP", rate=2.0)
    assert reward == pytest.approx(1 / 20) and message == "Pins fell."
    s, reward, _, _ = play(BW, s, "NOOP", rate=2.0)
    assert reward == pytest.approx(2 / 20)
    assert grid(BW, s) == [" " * 12] + RACK[:2] + ["     /●/    ", " " * 12] + [" " * 12] * 4 + ["      @     "]
    s, reward, _, _ = play(BW, _lane(ball=[4, 6], field=s.field.at[3].set(0).at[4, 6].set(2)), "NOOP", rate=0.0)
    assert reward == 0  # rate 0: a falling pin knocks nothing


def test_bowling__a_strike_sets_up_a_new_rack_for_the_next_frame():
    s = _lane(pins={(4, 6)}, ball=[5, 6])
    for _ in range(6):  # the ball leaves the lane on the 6th turn (rows 4, 3, 2, 1, 0, gone)
        s, *_ = play(BW, s, "LEFT", rate=0.0)  # LEFT is ignored while the roll lasts
    assert int(s.cooldown) == 0 and int(s.phase) == 2 and s.player.tolist() == [9, 6]
    assert int((s.field == 1).sum()) == 10


def test_bowling__the_end_of_the_last_frame_ends_the_game_without_penalty():
    s = _lane(pins={(1, 3)}, ball=[0, 6], phase=5)
    _, reward, done, message = play(BW, s, "NOOP", rate=0.0)
    assert done and reward == 0 and message == "The last frame is over. Game over."


def test_bowling__the_twentieth_pin_wins():
    _, reward, done, message = play(BW, _lane(ball=[5, 6], score=19), "NOOP", rate=0.0)
    assert done and reward == pytest.approx(1 / 20) and message == "You reached the target. You win!"


# --- fishing derby ------------------------------------------------------------------------------------
FD = "miniatari/fishingderby"  # 10x14: the surface row 0, the shark on row 1, your half columns 0-6


def _lake(fish, kinds=None, **fields):
    base = dict(t=1, opponent=[5, 12], ball=[1, 10], ball_vel=[0, 1],
                foes=pool(fish, kinds=kinds, n=4))  # t = 1: the fish rest (period 2)
    return start(FD, **{**base, **fields})


def test_fishingderby__a_free_hook_on_a_fish_hooks_it_golden_frame():
    s, reward, _, _ = play(FD, _lake([(4, 3)], player=[3, 3]), "DOWN", rate=0.0)
    assert reward == 0 and int(s.foes.kind[0]) == 1
    rows = ["≈" * 14, " " * 11 + "S  ", " " * 14, " " * 14, "   J" + " " * 10, " " * 12 + "L "] + [" " * 14] * 4
    assert grid(FD, s) == rows


def test_fishingderby__with_a_fish_on_only_reel_moves_the_hook():
    s = _lake([(4, 3)], kinds=[1], player=[4, 3])
    s, *_ = play(FD, s, "LEFT", rate=0.0)
    assert s.player.tolist() == [4, 3]
    s, *_ = play(FD, s, "REEL", rate=0.0)
    assert s.player.tolist() == [3, 3] and s.foes.pos[0].tolist() == [3, 3]


def test_fishingderby__a_fish_reeled_to_the_surface_is_caught_and_replaced():
    s, reward, done, message = play(FD, _lake([(1, 3)], kinds=[1], player=[1, 3]), "REEL", rate=0.0)
    assert reward == pytest.approx(1 / 3) and not done and message == "You caught a fish."
    assert int(s.foes.kind[0]) == 0 and int(s.foes.pos[0, 0]) == 2 and s.player.tolist() == [1, 3]


def test_fishingderby__the_shark_eats_a_hooked_fish_on_its_cell():
    s = _lake([(2, 5)], kinds=[1], player=[2, 5], ball=[1, 4])
    s, reward, _, message = play(FD, s, "REEL", rate=0.0)
    assert reward == 0 and message == "The shark ate a hooked fish." and int(s.foes.kind[0]) == 0


def test_fishingderby__the_opponents_third_fish_loses():
    s = _lake([(1, 10)], kinds=[2], player=[5, 2], opponent=[1, 10], ball=[1, 2], opp_score=2)
    _, reward, done, message = play(FD, s, "NOOP", rate=2.0)
    assert done and reward == pytest.approx(-1 / 3) and message == "The opponent reached the target. You lose."
