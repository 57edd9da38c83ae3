"""Atari-only arcade games (crazyclimber, pitfall, gravitar): each game's scoring, win and loss rules on
positions set up by hand, and golden frames of the screens.py views (a building that scrolls
with you, a jungle of flip screens), written from the rules in each game's module docstring."""

import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core import entities
from glyphjax.suites.arcade import screens
from glyphjax.suites.arcade.crazyclimber import C_ROOF, C_WALL, C_WIN, STOREYS
from glyphjax.suites.arcade.pitfall import C_FLOOR, C_TAR, SCREENS
from tests.suites.arcade.test_games import grid, play, pool, start


def test_screens__follow_clamps_at_the_map_ends_and_flip_cuts_whole_screens():
    assert [int(screens.follow(jnp.int32(x), 16, 174, 24)) for x in (172, 100, 3)] == [150, 84, 0]
    assert [int(screens.flip(jnp.int32(x), 40)) for x in (0, 39, 40, 85)] == [0, 0, 40, 80]


def test_atari_only_games_have_no_miniatari_id():
    ids = glyphjax.task_ids("*/crazyclimber") + glyphjax.task_ids("*/pitfall")
    assert ids == ["atari/crazyclimber", "atari/pitfall"]


# --- crazyclimber ----------------------------------------------------------------------------------
CC = "atari/crazyclimber"
M = 24 + 5 * STOREYS  # map rows: the view's 24 above five buildings


def tower(windows=()):
    """A building map with walls, the street and the five roofs, and windows (row, col, phase)."""
    f = np.zeros((M, 12), np.int8)
    f[:, 0] = f[:, 11] = f[M - 1] = C_WALL
    for k in range(1, 6):
        f[M - 1 - k * STOREYS, 1:11] = C_ROOF
    for r, c, phase in windows:
        f[r, c] = C_WIN + phase
    return f


def test_crazyclimber__the_view_keeps_you_8_rows_up_and_shows_closed_windows_golden_frame():
    # t = 0, period 8: a window of phase 0 is shut (0 % 8 < 3), one of phase 3 open (3 % 8 >= 3)
    r = M - 1 - STOREYS + 3  # three rows under the first roof
    s = start(CC, player=[r, 5], field=tower([(r - 1, 4, 0), (r - 1, 6, 3)]), bombs=pool([(r - 5, 5)], (1, 0), n=8))
    rows = grid(CC, s)
    top = r - 16
    expect = ["▓" + " " * 10 + "▓"] * 24
    expect[M - 1 - STOREYS - top] = "▓" + "▔" * 10 + "▓"
    expect[11] = "▓    ⚱     ▓"
    expect[15] = "▓   ▥      ▓"
    expect[16] = "▓    @     ▓"
    assert rows == expect


def test_crazyclimber__closed_windows_block_and_one_closing_on_you_knocks_you_down():
    r = M - 10
    s = start(CC, player=[r, 5], field=tower([(r - 1, 5, 0)]))
    s1, *_ = play(CC, s, "UP", rate=0.0)  # shut at t = 0: blocked
    assert s1.player.tolist() == [r, 5]
    s2, *_ = play(CC, s.replace(t=jnp.int32(5)), "UP", rate=0.0)  # (5 + 0) % 8 = 5: open, you climb in
    assert s2.player.tolist() == [r - 1, 5]
    s3, *_ = play(CC, s.replace(t=jnp.int32(8), player=jnp.array([r - 1, 5])), "NOOP", rate=0.0)  # it shuts on you
    assert s3.player.tolist() == [r, 5]


def test_crazyclimber__a_roof_scores_and_the_fifth_wins():
    r1 = M - 1 - STOREYS
    s, reward, done, message = play(CC, start(CC, player=[r1 + 1, 5], field=tower()), "UP", rate=0.0)
    assert reward == pytest.approx(1 / 5) and not done and message == "You topped a building."
    r5 = M - 1 - 5 * STOREYS
    s = start(CC, player=[r5 + 1, 5], field=tower(), score=4, earned=0.8)
    s, reward, done, message = play(CC, s, "UP", rate=0.0)
    assert done and message == "You reached the target. You win!" and float(s.earned) == pytest.approx(1.0)


def test_crazyclimber__a_flowerpot_landing_on_you_or_swapping_with_you_kills():
    r = M - 10
    for action in ("NOOP", "UP"):  # the pot falls onto you / you climb through it
        s = start(CC, player=[r, 5], field=tower(), bombs=pool([(r - 1, 5)], (1, 0), n=8))
        _, reward, done, message = play(CC, s, action, rate=0.0)
        assert done and reward == -1.0 and message == "A flowerpot hit you. Game over.", action
    s = start(CC, player=[r, 5], field=tower(), bombs=pool([(r - 1, 6)], (1, 0), n=8))
    _, reward, done, _ = play(CC, s, "NOOP", rate=0.0)  # the next column: safe
    assert not done and reward == 0.0


# --- pitfall ---------------------------------------------------------------------------------------
PF = "atari/pitfall"


def jungle(tar=()):
    f = np.zeros((12, 40 * SCREENS), np.int8)
    f[9] = C_FLOOR
    for c in tar:
        f[9, c] = C_TAR
    return f


def test_pitfall__a_forward_jump_clears_a_4_cell_tar_pit_on_the_platform_arc():
    s = start(PF, player=[8, 10], heading=[0, 1], field=jungle(range(11, 15)), foes=entities.empty(128))
    rows = []
    for action in ("FIRE", "LEFT", "NOOP", "NOOP", "NOOP", "NOOP", "NOOP"):  # no air control: LEFT is ignored
        s, reward, done, _ = play(PF, s, action)
        rows.append(s.player.tolist())
        assert not done and reward == 0.0
    assert rows == [[7, 11], [6, 12], [5, 13], [5, 14], [6, 15], [7, 16], [8, 17]]


def test_pitfall__walking_into_tar_kills():
    s = start(PF, player=[8, 10], heading=[0, 1], field=jungle([11]), foes=entities.empty(128))
    _, reward, done, message = play(PF, s, "RIGHT")
    assert done and reward == -1.0 and message == "You died in the jungle. Game over."


def test_pitfall__logs_roll_every_second_turn_wrap_round_their_screen_and_kill():
    logs = pool([(8, 40), (8, 20)], (0, -1), n=128)  # screen 1's left edge; screen 0
    s = start(PF, t=0, player=[8, 45], heading=[0, 1], field=jungle(), foes=logs)
    s, *_ = play(PF, s, "NOOP")  # t = 0: a roll turn
    assert s.foes.pos[:2, 1].tolist() == [79, 19]
    s, *_ = play(PF, s, "NOOP")  # t = 1: no roll
    assert s.foes.pos[:2, 1].tolist() == [79, 19]
    s = start(PF, t=0, player=[8, 18], heading=[0, 1], field=jungle(), foes=logs)
    _, reward, done, _ = play(PF, s, "RIGHT")  # you step right while the log rolls left: swapped cells
    assert done and reward == -1.0


def test_pitfall__treasures_score_and_the_32nd_wins_flip_screen_golden_frame():
    gems = pool([(8, 51), (8, 200)], n=32)
    s = start(PF, player=[8, 50], heading=[0, 1], field=jungle([60, 61]), foes=entities.empty(128), bombs=gems)
    s, reward, done, message = play(PF, s, "RIGHT")
    assert reward == pytest.approx(1 / 32) and not done and message == "You picked up a treasure."
    expect = [" " * 40] * 12
    expect[8] = " " * 11 + "@" + " " * 28  # map column 51 is column 11 of screen 1
    expect[9] = "═" * 20 + "▩▩" + "═" * 18
    assert grid(PF, s) == expect
    s = start(PF, player=[8, 199], heading=[0, 1], field=jungle(), foes=entities.empty(128), bombs=gems,
              score=31, earned=31 / 32)
    s, reward, done, message = play(PF, s, "RIGHT")
    assert done and message == "You reached the target. You win!" and float(s.earned) == pytest.approx(1.0)


# --- gravitar --------------------------------------------------------------------------------------
GR = "atari/gravitar"


def planets(flat_from=17):
    """Three planets of flat ground: rows flat_from.. of each 20-row screen are rock."""
    f = np.zeros((60, 20), np.int8)
    for p in range(3):
        f[p * 20 + flat_from:(p + 1) * 20] = 1
    return f


def test_gravitar__a_shot_fired_down_destroys_the_bunker_below_golden_frame():
    bunkers = pool([(16, 5), (16, 15)], n=12)
    s = start(GR, t=1, player=[10, 5], heading=[1, 0], ball_vel=[0, 0], field=planets(), foes=bunkers)
    s, reward, _, _ = play(GR, s, "FIRE", rate=0.0)  # t = 1: the shot flies 2 rows
    expect = [" " * 20] * 17 + ["▨" * 20] * 3
    expect[10] = " " * 5 + "⇓" + " " * 14
    expect[12] = " " * 5 + "*" + " " * 14
    expect[16] = " " * 5 + "Ŧ" + " " * 9 + "Ŧ" + " " * 4
    assert reward == 0.0 and grid(GR, s) == expect
    s, reward, _, _ = play(GR, s, "NOOP", rate=0.0)  # t = 2: row 14
    s, reward, done, _ = play(GR, s, "NOOP", rate=0.0)  # t = 3: onto the bunker
    assert reward == pytest.approx(1 / 12) and not done and s.foes.alive[:2].tolist() == [False, True]


def test_gravitar__gravity_builds_speed_thrust_and_turns_counter_it_sideways_speed_lasts_a_turn():
    s = start(GR, t=0, player=[5, 19], heading=[-1, 0], ball_vel=[0, 0], field=planets(), foes=pool([(16, 5)], n=12))
    s, *_ = play(GR, s, "NOOP", rate=0.0)  # t = 0: a gravity turn
    assert s.player.tolist() == [6, 19] and s.ball_vel.tolist() == [1, 0]
    s, *_ = play(GR, s, "NOOP", rate=0.0)  # the speed is kept
    assert s.player.tolist() == [7, 19]
    s, *_ = play(GR, s, "THRUST", rate=0.0)  # facing up: the fall stops
    assert s.player.tolist() == [7, 19] and s.ball_vel.tolist() == [0, 0]
    s, *_ = play(GR, s, "RIGHT", rate=0.0)  # t = 3: turned clockwise to the right; gravity again
    assert s.heading.tolist() == [0, 1] and s.player.tolist() == [8, 19]
    s, *_ = play(GR, s, "THRUST", rate=0.0)  # one column right, round the side
    assert s.player.tolist() == [9, 0]
    s, *_ = play(GR, s, "LEFT", rate=0.0)  # anticlockwise from right: up; no sideways speed left
    assert s.heading.tolist() == [-1, 0] and s.player.tolist() == [10, 0]


def test_gravitar__rock_or_a_shell_destroys_the_ship_without_penalty():
    s = start(GR, t=1, player=[16, 10], heading=[-1, 0], ball_vel=[1, 0], field=planets(), foes=pool([(16, 5)], n=12))
    _, reward, done, message = play(GR, s, "NOOP", rate=0.0)
    assert done and reward == 0.0 and message == "Your ship was destroyed. Game over."
    s = start(GR, t=1, player=[8, 10], heading=[-1, 0], ball_vel=[0, 0], field=planets(), foes=pool([(16, 5)], n=12),
              bombs=pool([(9, 9)], (-1, 1), n=4))
    _, reward, done, _ = play(GR, s, "NOOP", rate=0.0)
    assert done and reward == 0.0


def test_gravitar__a_cleared_planet_shows_the_next_and_the_12th_bunker_wins():
    f = planets()
    f[20 + 15:40] = 1  # planet 1: higher ground
    s = start(GR, t=1, player=[10, 5], heading=[1, 0], ball_vel=[0, 0], field=f, score=3, earned=0.25,
              foes=pool([(16, 5), (14, 8)], kinds=[0, 1], n=12), shots=pool([(14, 5)], (2, 0), n=1))
    s, reward, done, message = play(GR, s, "NOOP", rate=0.0)  # row 14 -> 16: the planet's last bunker
    assert reward == pytest.approx(1 / 12) and message == "You cleared the planet." and not done
    expect = [" " * 20] * 15 + ["▨" * 20] * 5
    expect[1] = " " * 10 + "⇓" + " " * 9
    expect[14] = " " * 8 + "Ŧ" + " " * 11
    assert s.player.tolist() == [1, 10] and grid(GR, s) == expect
    s = start(GR, t=1, player=[10, 5], heading=[1, 0], ball_vel=[0, 0], field=planets(), score=11, earned=11 / 12,
              foes=pool([(16, 5)], kinds=[2], n=12), shots=pool([(14, 5)], (2, 0), n=1))
    s, reward, done, message = play(GR, s, "NOOP", rate=0.0)
    assert done and message == "You reached the target. You win!" and float(s.earned) == pytest.approx(1.0)
