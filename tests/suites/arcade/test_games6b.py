"""Atari-only flip-screen exploration games (hero, montezumarevenge, privateeye): each game's
scoring, win and loss rules on positions set up by hand, and golden frames of their screens,
written from the rules in each game's module docstring."""

import numpy as np
import pytest

import glyphjax
from glyphjax.core import entities
from glyphjax.suites.arcade.hero import C_LAVA, C_ROCK, C_WALL, CAVES, FUSE, POWER, STICKS
from glyphjax.suites.arcade.privateeye import C_DOOR, C_FLOOR, CASES, CLOCK, LENGTH, THUGS
from glyphjax.suites.arcade import montezumarevenge as mr
from tests.suites.arcade.test_games import grid, play, pool, start


def test_atari_only_exploration_games_have_no_miniatari_id():
    ids = glyphjax.task_ids("*/hero") + glyphjax.task_ids("*/montezumarevenge") + glyphjax.task_ids("*/privateeye")
    assert ids == ["atari/hero", "atari/montezumarevenge", "atari/privateeye"]


# --- hero --------------------------------------------------------------------------------------------
HE = "atari/hero"


def mine(cells=()):
    """Five empty 16x20 caves walled with rock, plus (row, col, code) cells."""
    f = np.zeros((16 * CAVES, 20), np.int8)
    f[:, 0] = f[:, 19] = C_ROCK
    f[0::16] = f[15::16] = C_ROCK
    for r, c, code in cells:
        f[r, c] = code
    return f


def cave(**fields):
    base = dict(field=mine(), foes=entities.empty(3 * CAVES), bombs=entities.empty(CAVES),
                shots=entities.empty(1), heading=[0, 1])
    return start(HE, **{**base, **fields})


def test_hero__you_sink_unless_you_steer_and_up_flies():
    s = cave(player=[5, 5])
    s, reward, done, _ = play(HE, s, "NOOP")
    assert s.player.tolist() == [6, 5] and reward == 0 and not done
    s, *_ = play(HE, s, "RIGHT")  # sideways keeps your height and turns you
    assert s.player.tolist() == [6, 6] and s.heading.tolist() == [0, 1]
    s, *_ = play(HE, s, "UP")
    assert s.player.tolist() == [5, 6] and int(s.phase) == POWER - 3


def test_hero__rescuing_a_miner_scores_and_flies_you_to_the_next_cave_golden_frame():
    miners = pool([(14, 8), (30, 3)], n=CAVES)
    s = cave(player=[14, 7], bombs=miners, phase=17, cooldown=2,
             field=mine([(20, 2, C_WALL), (31, 1, C_LAVA)]), foes=pool([(22, 12)], (0, 1), n=3 * CAVES))
    s, reward, done, message = play(HE, s, "RIGHT")
    assert reward == pytest.approx(1 / 5) and not done and message == "You rescued the miner."
    assert s.player.tolist() == [17, 10] and int(s.phase) == POWER and int(s.cooldown) == STICKS
    expect = ["▓" + " " * 18 + "▓" for _ in range(16)]
    expect[0] = expect[15] = "▓" * 20
    expect[1] = "▓" + " " * 9 + "⇒" + " " * 8 + "▓"
    expect[4] = "▓ ▙" + " " * 16 + "▓"
    expect[6] = "▓" + " " * 12 + "ʘ" + " " * 5 + "▓"  # the critter moved on the even turn 0
    expect[14] = "▓  ☻" + " " * 15 + "▓"
    expect[15] = "▓♨" + "▓" * 18
    assert grid(HE, s) == expect


def test_hero__the_fifth_miner_wins():
    s = cave(player=[78, 4], bombs=pool([(78, 5)], n=CAVES), score=4, earned=0.8)
    s, reward, done, message = play(HE, s, "RIGHT")
    assert done and message == "You reached the target. You win!" and float(s.earned) == pytest.approx(1.0)


def test_hero__moving_into_lava_kills():
    s = cave(player=[13, 5], field=mine([(14, 5, C_LAVA)]))
    _, reward, done, message = play(HE, s, "NOOP")
    assert done and reward == -1.0 and message == "You died in the mine. Game over."


def test_hero__dynamite_blows_walls_within_two_cells_after_its_fuse_and_you_too_if_close():
    walls = [(r, 8, C_WALL) for r in range(10, 15)] + [(14, 11, C_WALL)]
    s = cave(player=[14, 7], field=mine(walls))
    s, reward, done, _ = play(HE, s, "DOWN")  # standing on rock: light a stick here
    assert s.player.tolist() == [14, 7] and bool(s.shots.alive[0]) and int(s.cooldown) == STICKS - 1
    for _ in range(3):
        s, *_ = play(HE, s, "LEFT")
    for _ in range(FUSE - 4):
        s, *_ = play(HE, s, "UP")
        assert (np.asarray(s.field) == C_WALL).sum() == 6
    s, reward, done, _ = play(HE, s, "UP")
    f = np.asarray(s.field)
    assert not done and f[12:15, 8].tolist() == [0, 0, 0] and f[10:12, 8].tolist() == [C_WALL, C_WALL]
    assert f[14, 11] == C_WALL and not bool(s.shots.alive[0])
    s = cave(player=[14, 7], field=mine(walls))
    s, *_ = play(HE, s, "DOWN")
    for action in ("LEFT", "LEFT") + ("NOOP",) * (FUSE - 2):
        s, reward, done, _ = play(HE, s, action)  # only two columns away when it blows
    assert done and reward == -1.0


def test_hero__the_laser_kills_the_first_critter_in_reach_and_a_critter_meeting_you_kills():
    crit = pool([(14, 9), (14, 10)], (0, 0), n=3 * CAVES)
    s = cave(player=[14, 6], foes=crit, heading=[0, 1])
    s, reward, done, _ = play(HE, s, "FIRE")
    assert s.foes.alive[:2].tolist() == [False, True] and reward == 0 and not done
    s = cave(player=[14, 6], foes=crit, field=mine([(14, 8, C_WALL)]))
    s, *_ = play(HE, s, "FIRE")  # the wall stops the beam
    assert s.foes.alive[:2].tolist() == [True, True]
    s = cave(t=0, player=[14, 6], foes=pool([(14, 8)], (0, -1), n=3 * CAVES))
    _, reward, done, _ = play(HE, s, "RIGHT")  # you step right onto the cell it steps left to
    assert done and reward == -1.0


def test_hero__running_out_of_power_kills():
    s = cave(player=[14, 6], phase=1)
    _, reward, done, _ = play(HE, s, "NOOP")
    assert done and reward == -1.0


# --- privateeye ----------------------------------------------------------------------------------------
PE = "atari/privateeye"


def street():
    """The road (row 12) and a door at column 8j + 4 of row 10, no buildings."""
    f = np.zeros((16, LENGTH), np.int8)
    f[12] = C_FLOOR
    f[10, 4::8] = C_DOOR
    return f


def case_marks(cols):
    """Case k's mark (row 10, cols[k]) of kind k."""
    return entities.spawn_many(entities.empty(CASES), np.array([[10, c] for c in cols], np.int32),
                               np.zeros((CASES, 2), np.int32), np.arange(CASES, dtype=np.int32), np.ones(CASES, bool))


def city(**fields):
    base = dict(field=street(), foes=entities.empty(THUGS), bombs=case_marks([20, 36, 52, 68, 84]),
                shots=case_marks([100, 116, 132, 148, 164]), heading=[0, 1])
    return start(PE, **{**base, **fields})


def test_privateeye__take_the_clue_then_hand_it_over_to_solve_the_case_golden_frame():
    s = city(player=[11, 20])
    s, reward, done, message = play(PE, s, "EXAMINE")
    assert reward == 0 and not done and message == "You found the clue." and not bool(s.bombs.alive[0])
    s, reward, done, _ = play(PE, s, "EXAMINE")  # the owner's door is elsewhere: nothing happens
    assert reward == 0 and int(s.cooldown) == CLOCK - 2
    s = s.replace(player=np.array([11, 100], np.int32))
    s, reward, done, message = play(PE, s, "EXAMINE")
    assert reward == pytest.approx(1 / 5) and message == "You solved the case." and int(s.cooldown) == CLOCK
    # the view keeps you at its column 15: map columns 85..114; case 2 marks door 116 (off view)
    expect = [" " * 30] * 16
    row10 = [" "] * 30
    for c in range(85, 115):
        if c % 8 == 4:
            row10[c - 85] = "⌂"
    expect[10] = "".join(row10)
    expect[11] = " " * 15 + "⇒" + " " * 14
    expect[12] = "═" * 30
    assert grid(PE, s) == expect


def test_privateeye__examining_a_door_without_the_clue_does_nothing_and_the_fifth_case_wins():
    s = city(player=[11, 100])
    s, reward, _, _ = play(PE, s, "EXAMINE")  # the owner's door, no clue in hand
    assert reward == 0 and bool(s.shots.alive[0])
    b = case_marks([20, 36, 52, 68, 84])
    s = city(player=[11, 164], score=4, earned=0.8, bombs=b.replace(alive=b.alive.at[4].set(False)))
    s, reward, done, message = play(PE, s, "EXAMINE")
    assert done and message == "You reached the target. You win!" and float(s.earned) == pytest.approx(1.0)


def test_privateeye__a_forward_jump_clears_a_thug_and_one_meeting_you_on_the_road_kills():
    thug = pool([(11, 13)], (0, 0), n=THUGS)
    s = city(player=[11, 10], foes=thug)
    cells = []
    for action in ("UP",) + ("LEFT",) * 6:  # no control in the air
        s, reward, done, _ = play(PE, s, action)
        cells.append(s.player.tolist())
        assert not done
    assert cells == [[10, 11], [9, 12], [8, 13], [8, 14], [9, 15], [10, 16], [11, 17]]
    s = city(t=0, player=[11, 10], foes=pool([(11, 12)], (0, -1), n=THUGS))
    _, reward, done, message = play(PE, s, "RIGHT")
    assert done and reward == -1.0 and message == "Your case went cold. Game over."


def test_privateeye__thugs_walk_every_second_turn_and_turn_at_the_street_end():
    s = city(t=0, player=[11, 100], foes=pool([(11, 1), (11, 50)], (0, -1), n=THUGS))
    s, *_ = play(PE, s, "NOOP")
    assert s.foes.pos[:2, 1].tolist() == [1, 49] and s.foes.vel[:2, 1].tolist() == [1, -1]
    s, *_ = play(PE, s, "NOOP")  # t = 1: nobody walks
    assert s.foes.pos[:2, 1].tolist() == [1, 49]


def test_privateeye__the_clock_running_out_kills():
    s = city(player=[11, 100], cooldown=1)
    _, reward, done, _ = play(PE, s, "NOOP")
    assert done and reward == -1.0


# --- montezumarevenge ------------------------------------------------------------------------------------
MR = "atari/montezumarevenge"


def room(cells=()):
    """Room 0 of the pyramid map: walls round it, the floor on row 18, plus (row, col, code) cells."""
    f = np.zeros((80, 180), np.int8)
    f[0, :30] = f[19, :30] = f[:20, 0] = f[:20, 29] = mr.C_WALL
    f[18, 1:29] = mr.C_FLOOR
    for r, c, code in cells:
        f[r, c] = code
    return f


def temple(**fields):
    base = dict(field=room(), foes=entities.empty(mr.ROOMS), bombs=entities.empty(mr.ROOMS))
    return start(MR, **{**base, **fields})


def test_montezumarevenge__a_key_clears_the_room_and_opens_its_door_golden_frame():
    door = [(16, 29, mr.C_DOOR), (17, 29, mr.C_DOOR)]
    s = temple(player=[17, 26], field=room(door), bombs=pool([(17, 27)], kinds=[0], n=mr.ROOMS))
    s, reward, done, message = play(MR, s, "RIGHT")
    assert reward == pytest.approx(1 / 24) and not done and message == "You cleared the room."
    assert int(s.ball[0]) == 1
    s, *_ = play(MR, s, "RIGHT")
    assert s.player.tolist() == [17, 28]
    s, reward, done, message = play(MR, s, "RIGHT")  # walking into the door with the key opens it
    assert message == "You opened the door." and int(s.ball[0]) == 0 and s.player.tolist() == [17, 28]
    expect = ["▓" * 30] + ["▓" + " " * 28 + "▓"] * 17 + ["▓" + "═" * 28 + "▓", "▓" * 30]
    expect[16] = "▓" + " " * 28 + " "
    expect[17] = "▓" + " " * 27 + "@ "
    assert grid(MR, s) == expect
    s, *_ = play(MR, s, "RIGHT")
    assert s.player.tolist() == [17, 29]


def test_montezumarevenge__a_locked_door_stops_you_without_a_key():
    s = temple(player=[17, 28], field=room([(16, 29, mr.C_DOOR), (17, 29, mr.C_DOOR)]))
    s, reward, done, _ = play(MR, s, "RIGHT")
    assert s.player.tolist() == [17, 28] and reward == 0 and not done


def test_montezumarevenge__a_diagonal_jump_has_no_air_control_and_a_skull_meeting_you_kills():
    s = temple(player=[17, 5])
    cells = []
    for action in ("UP_RIGHT",) + ("LEFT",) * 6:
        s, reward, done, _ = play(MR, s, action)
        cells.append(s.player.tolist())
        assert not done
    assert cells == [[16, 6], [15, 7], [14, 8], [14, 9], [15, 10], [16, 11], [17, 12]]
    s = temple(t=0, player=[17, 5], foes=pool([(17, 7)], (0, -1), n=mr.ROOMS))
    _, reward, done, message = play(MR, s, "RIGHT")
    assert done and reward == -1.0 and message == "You died in the pyramid. Game over."


def test_montezumarevenge__falling_more_than_four_rows_kills_and_a_rope_holds_you():
    ledge = [(10, c, mr.C_FLOOR) for c in range(3, 10)]
    s = temple(player=[9, 9], field=room(ledge))
    for _ in range(8):  # walk off the ledge's end and drop 8 rows
        s, reward, done, _ = play(MR, s, "RIGHT" if int(s.player[1]) < 10 else "NOOP")
    assert done and reward == -1.0
    s = temple(player=[13, 9], field=room(ledge))
    for _ in range(4):  # a 4-row drop is survived
        s, reward, done, _ = play(MR, s, "NOOP")
    assert s.player.tolist() == [17, 9] and not done
    rope = [(r, 12, mr.C_ROPE) for r in range(10, 15)]
    s = temple(player=[17, 12], field=room(rope))
    for _ in range(3):
        s, *_ = play(MR, s, "UP")  # jump: 16, 15, 14 (the rope's end)
    s, *_ = play(MR, s, "UP")
    assert s.player.tolist() == [13, 12] and int(s.phase) == 0
    s, *_ = play(MR, s, "NOOP")  # on a rope you hang without falling
    assert s.player.tolist() == [13, 12]


def test_montezumarevenge__the_24th_room_wins():
    s = temple(player=[17, 5], score=23, earned=23 / 24, bombs=pool([(17, 6)], kinds=[1], n=mr.ROOMS))
    s, reward, done, message = play(MR, s, "RIGHT")
    assert done and message == "You reached the target. You win!" and float(s.earned) == pytest.approx(1.0)
