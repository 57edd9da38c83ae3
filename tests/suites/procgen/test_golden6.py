"""Golden frames for heist, leaper and ninja: small hand-built levels whose rendered views and
HUDs are written out below from the rules in each game's docstring (not from the code's output),
with the physics, scoring and death rules they show."""

import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.procgen import leaper, mazes, runners
from glyphjax.suites.procgen.engine import fresh_state
from tests.suites.procgen.test_games import _grid, _play


def _hud(env, state) -> str:
    return glyphjax.render_text(env.card, env.render(state)).hud


def _pos(state) -> tuple[int, int]:
    return tuple(int(v) for v in state.pos)


# --- heist ----------------------------------------------------------------------------------------
# A 5 x 7 vault in the top-left corner of the world (everything else outside the level):
#   ███████
#   █ rR ♦█      you start at (1, 1); red key, red lock, the gem
#   █ █G█ █      a green lock under (1, 3)
#   █  g  █      the green key
#   ███████
_VAULT = ("███████", "█ rR ♦█", "█ █G█ █", "█  g  █", "███████")
_HEIST_CODE = {"█": mazes.H_WALL, " ": mazes.H_EMPTY, "♦": mazes.H_GEM, "r": mazes.H_KEY0,
               "g": mazes.H_KEY0 + 1, "R": mazes.H_LOCK0, "G": mazes.H_LOCK0 + 1}


def _vault():
    w = np.full((mazes.SIZE, mazes.SIZE), mazes.H_OUT, np.int8)
    for r, row in enumerate(_VAULT):
        w[r, :len(row)] = [_HEIST_CODE[ch] for ch in row]
    return fresh_state(w, (1, 1), 5, total=2)


def test_heist__golden_start_view_and_hud():
    env = glyphjax.make("procgen/heist")
    # 12 x 20 window centred on you (view row 6, column 10): world rows -5..6, columns -9..10
    out = (["░" * 20] * 5
           + ["░" * 9 + row + "░" * 4 for row in ("███████", "█@rR ♦█", "█ █G█ █", "█  g  █", "███████")]
           + ["░" * 20] * 2)
    s = _vault()
    assert _grid(env, s) == "\n".join(out)
    assert _hud(env, s) == "Step: 0 / 512    Level seed: 5    Keys picked up: 0 / 2    Keys held: none"


def test_heist__golden_view_after_taking_the_key_and_opening_its_lock():
    env = glyphjax.make("procgen/heist")
    steps = _play(env, _vault(), ["RIGHT", "RIGHT"])
    assert [x[1:] for x in steps] == [(0.0, False, 1), (0.0, False, 2)]  # key taken, lock opened
    s = steps[-1][0]
    assert _pos(s) == (1, 3)
    # you stand where the lock was; the key's cell is empty; window columns are world -7..12
    out = (["░" * 20] * 5
           + ["░" * 7 + row + "░" * 6 for row in ("███████", "█  @ ♦█", "█ █G█ █", "█  g  █", "███████")]
           + ["░" * 20] * 2)
    assert _grid(env, s) == "\n".join(out)
    assert _hud(env, s) == "Step: 2 / 512    Level seed: 5    Keys picked up: 1 / 2    Keys held: red"


def test_heist__walls_and_a_lock_without_its_key_stop_you_and_the_gem_pays_1():
    env = glyphjax.make("procgen/heist")
    s = _play(env, _vault(), ["RIGHT", "RIGHT"])[-1][0]  # on the red lock's cell (1, 3)
    steps = _play(env, s, ["DOWN", "UP", "RIGHT", "RIGHT"])
    # green lock below (no green key), wall above, then two steps right onto the gem
    assert [_pos(x[0]) for x in steps] == [(1, 3), (1, 3), (1, 4), (1, 5)]
    assert [x[1:] for x in steps] == [(0.0, False, 0), (0.0, False, 0), (0.0, False, 0), (1.0, True, 3)]
    assert int(steps[0][0].world[2, 3]) == mazes.H_LOCK0 + 1  # the green lock is still shut


def test_heist__two_keys_show_as_their_set_in_the_hud():
    env = glyphjax.make("procgen/heist")
    s = _play(env, _vault(), ["RIGHT", "LEFT", "DOWN", "DOWN", "RIGHT", "RIGHT"])[-1][0]
    assert _pos(s) == (3, 3) and int(s.keys) == 0b11
    assert _hud(env, s).endswith("Keys picked up: 2 / 2    Keys held: red+green")


# --- leaper ---------------------------------------------------------------------------------------
# Rows (11 x 14 world): 0-5 outside, 6 the finish line, 7 a river lane, 8 the safe median, 9 a
# road lane, 10 the start row. You start at (10, 7).
_RIVER = "~~~~~~===~~~~~"  # a log on columns 6..8
_ROAD = "··◘·······◘···"  # cars on columns 2 and 10
_LEAPER_CODE = {"~": leaper.WATER_C, "=": leaper.LOG_C, "·": leaper.ROAD_C, "◘": leaper.CAR_C}


def _crossing(river=_RIVER, road=_ROAD, river_lane=(-2, 2), road_lane=(1, 1), start=(10, 7)):
    """Lanes as (velocity, countdown): velocity = direction * period (cells move on the turn the
    countdown reaches 1, which then restarts at the period)."""
    w = np.full((leaper.H, leaper.W), leaper.SAFE_C, np.int8)
    w[:6] = leaper.OUT_C
    w[6] = leaper.FINISH_C
    w[7] = [_LEAPER_CODE[ch] for ch in river]
    w[9] = [_LEAPER_CODE[ch] for ch in road]
    ents = np.zeros((leaper.N_LANES, 3), np.int32)
    ents[0] = (9, *road_lane)
    ents[1] = (7, *river_lane)
    alive = np.arange(leaper.N_LANES) < 2
    return fresh_state(w, start, 4, total=1, ents=ents, alive=alive)


def test_leaper__golden_start_view_and_hud():
    env = glyphjax.make("procgen/leaper")
    # 12 x 14 window centred on you (view row 6, column 7): world rows 4..15, columns 0..13
    out = ["░" * 14] * 2 + ["▀" * 14, _RIVER, " " * 14, _ROAD, " " * 7 + "@" + " " * 6] + ["░" * 14] * 5
    s = _crossing()
    assert _grid(env, s) == "\n".join(out)
    assert _hud(env, s) == "Step: 0 / 512    Level seed: 4"


def test_leaper__golden_view_riding_the_log_then_the_finish_pays_1():
    env = glyphjax.make("procgen/leaper")
    steps = _play(env, _crossing(), ["UP", "UP", "UP", "NOOP", "UP"])
    # the road moves right every turn; the river left every 2nd turn (turns 2 and 4): you step onto
    # the road at (9, 7) between the cars, wait on the median, board the log at (7, 7) (the log
    # is on 5..7 after turn 2), ride it to (7, 6) on turn 4 and step onto the finish line
    assert [_pos(x[0]) for x in steps] == [(9, 7), (8, 7), (7, 7), (7, 6), (6, 6)]
    assert [x[1:] for x in steps] == [(0.0, False, 0)] * 4 + [(1.0, True, 1)]
    s = steps[2][0]  # on the log after three turns: window rows 1..12
    river = "~~~~~==@~~~~~~"
    road = "·····◘·······◘"  # the cars moved 3 cells right
    out = ["░" * 14] * 5 + ["▀" * 14, river, " " * 14, road, " " * 14] + ["░" * 14] * 2
    assert _grid(env, s) == "\n".join(out)


def test_leaper__a_log_carrying_you_past_the_side_sweeps_you_away():
    env = glyphjax.make("procgen/leaper")
    s = _crossing(river="==~~~~~~~~~~~~", river_lane=(-1, 1), start=(8, 0))
    steps = _play(env, s, ["UP"])  # onto the log at (7, 0), which moves left at once
    assert steps[0][1:] == (0.0, True, 2)


def test_leaper__a_car_driving_onto_you_and_the_water_kill_you():
    env = glyphjax.make("procgen/leaper")
    hit = _play(env, _crossing(road="······◘·······"), ["UP"])  # the car moves from 6 onto you at 7
    assert hit[0][1:] == (0.0, True, 3) and _pos(hit[0][0]) == (9, 7)
    s = _crossing(start=(8, 3))
    drown = _play(env, s, ["UP"])  # (7, 3) is water
    assert drown[0][1:] == (0.0, True, 4)


# --- ninja ----------------------------------------------------------------------------------------
# A flat course: ground rows 13-15 under columns 0..19, the level ends at column 20; a bomb at
# (12, 6) and the mushroom at (12, 9); you start at (12, 1).
def _dojo(bombs=1):
    w = np.zeros((runners.H, runners.W), np.int8)
    w[13:, :20] = runners.GROUND_C
    w[:, 20:] = runners.OUT_C
    if bombs:
        w[12, 6] = runners.HAZARD_C
    w[12, 9] = runners.GOAL_C
    return fresh_state(w, (12, 1), 9, total=bombs, ents=jnp.zeros((1, 3), jnp.int32),
                       alive=jnp.zeros((1,), bool))


def _dojo_view(row12: str, you_row: int = 12) -> str:
    """The 12 x 20 window of the dojo with you in view row 6 (world rows you_row-6..you_row+5,
    columns -9..10): row12 is world row 12's columns 0..10."""
    rows = []
    for r in range(you_row - 6, you_row + 6):
        if r == 12:
            rows.append("░" * 9 + row12)
        elif r == 11 and you_row == 11:
            rows.append("░" * 9 + " @" + " " * 9)
        elif 13 <= r <= 15:
            rows.append("░" * 9 + "▒" * 11)
        elif r >= 16:
            rows.append("░" * 20)
        else:
            rows.append("░" * 9 + " " * 11)
    return "\n".join(rows)


def test_ninja__golden_start_view_and_hud():
    env = glyphjax.make("procgen/ninja")
    s = _dojo()
    assert _grid(env, s) == _dojo_view(" @    ó  ♣ ")
    assert _hud(env, s) == "Step: 0 / 512    Level seed: 9    Bombs destroyed: 0 / 1    State: grounded"


def test_ninja__golden_view_of_the_shuriken_and_the_blown_bomb():
    env = glyphjax.make("procgen/ninja")
    steps = _play(env, _dojo(), ["THROW", "NOOP", "NOOP"])
    # thrown from (12, 1): 2 cells a turn to (12, 3), then (12, 5), then it meets the bomb at (12, 6)
    assert _grid(env, steps[0][0]) == _dojo_view(" @ ✢  ó  ♣ ")
    assert _grid(env, steps[1][0]) == _dojo_view(" @   ✢ó  ♣ ")
    assert _grid(env, steps[2][0]) == _dojo_view(" @       ♣ ")  # bomb and shuriken gone
    assert [x[1:] for x in steps] == [(0.0, False, 0), (0.0, False, 0), (np.float32(0.4), False, 3)]
    assert _hud(env, steps[2][0]) == ("Step: 3 / 512    Level seed: 9    Bombs destroyed: 1 / 1    "
                                      "State: grounded")


def test_ninja__golden_view_of_a_jump_and_the_mushroom_pays_the_rest():
    env = glyphjax.make("procgen/ninja")
    s = _play(env, _dojo(), ["JUMP"])[0][0]  # the arc's first turn: one row up
    assert _pos(s) == (11, 1)
    assert _grid(env, s) == _dojo_view("      ó  ♣ ", you_row=11)
    assert _hud(env, s).endswith("State: airborne")
    steps = _play(env, _dojo(), ["THROW", "NOOP", "NOOP"] + ["RIGHT"] * 8)
    assert [x[1] for x in steps] == [0.0, 0.0, np.float32(0.4)] + [0.0] * 7 + [np.float32(0.6)]
    assert steps[-1][2:] == (True, 1) and _pos(steps[-1][0]) == (12, 9)


def test_ninja__a_level_without_bombs_pays_1_at_the_mushroom_and_a_bomb_kills_for_nothing():
    env = glyphjax.make("procgen/ninja")
    win = _play(env, _dojo(bombs=0), ["RIGHT"] * 8)
    assert win[-1][1:] == (1.0, True, 1) and not any(x[2] for x in win[:-1])
    dead = _play(env, _dojo(), ["RIGHT"] * 5)  # the 5th step ends the turn on the bomb
    assert [_pos(x[0]) for x in dead][-1] == (12, 6)
    assert dead[-1][1:] == (0.0, True, 2) and sum(x[1] for x in dead) == 0.0
