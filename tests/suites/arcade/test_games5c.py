"""Atari-only arcade games (tutankham, namethisgame, videopinball, venture, roadrunner): each game's scoring,
win and loss rules on positions set up by hand, with golden frames written from the rules (see
each game module's docstring). One compiled step per task, reused by every case."""

import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core import entities
from glyphjax.suites.arcade import maze, namethisgame, tutankham, venture, videopinball
from glyphjax.suites.arcade.engine import ArcadeEnv
from tests.suites.arcade.test_games import _jitted, grid, play, pool, start


def test_atari_only_games_have_no_miniatari_id():
    ids = set(glyphjax.task_ids())
    for g in ("tutankham", "namethisgame", "videopinball", "venture", "roadrunner"):
        assert f"atari/{g}" in ids and f"miniatari/{g}" not in ids
    with pytest.raises(ValueError, match="Atari-only"):
        ArcadeEnv(tutankham.TUTANKHAM, "miniatari")


# --- tutankham --------------------------------------------------------------------------------------
TK = "atari/tutankham"


def _creatures(cells, timers=None):
    p = pool(cells, n=3)
    return p if timers is None else p.replace(timer=p.timer.at[:len(timers)].set(jnp.array(timers, jnp.int32)))


def test_tutankham__treasure_key_and_exit():
    s = start(TK, player=[1, 7])
    s, reward, done, msg = play(TK, s, "RIGHT", rate=0.0)  # onto the treasure at (1, 8)
    assert reward == pytest.approx(1 / 8) and not done and msg == "You took a treasure."
    assert int(s.field[1, 8]) == maze.CORRIDOR and s.heading.tolist() == [0, 1]
    locked = start(TK, player=[7, 18])
    locked, reward, done, _ = play(TK, locked, "RIGHT", rate=0.0)  # the exit without the key: a wall
    assert locked.player.tolist() == [7, 18] and reward == 0 and not done
    s = start(TK, player=[12, 18])
    s, reward, _, msg = play(TK, s, "DOWN", rate=0.0)  # onto the key at (13, 18): no points
    assert reward == 0 and int(s.phase) == 1 and msg == "You took the key: the exit is open to you."
    s = start(TK, player=[7, 18], phase=1, field=s.field.at[1, 8].set(0), foes=_creatures([(3, 3)]))
    s, reward, done, msg = play(TK, s, "RIGHT", rate=0.0)
    assert reward == pytest.approx(1 / 8) and not done and msg == "You went through the exit into the next room."
    assert s.player.tolist() == list(tutankham.ROOM.start) and int(s.phase) == 0 and not bool(s.foes.alive.any())
    assert np.array_equal(np.asarray(s.field), tutankham.ROOM.field)  # treasures and key back


def test_tutankham__the_laser_fires_the_way_you_face_golden_frame():
    s = start(TK, foes=_creatures([(1, 4)], timers=[9]))
    after, reward, done, msg = play(TK, s, "FIRE", rate=0.0)  # facing right at reset
    assert not bool(after.foes.alive[0]) and reward == 0 and not done and msg == "Your laser destroyed a creature."
    assert grid(TK, s)[1] == "▓⇒  ℨ▓  $   ▓    ⊚ ▓" and grid(TK, after)[1] == "▓⇒   ▓  $   ▓    ⊚ ▓"
    behind, *_ = play(TK, s.replace(heading=jnp.array([0, -1], jnp.int32)), "FIRE", rate=0.0)
    assert bool(behind.foes.alive[0]) and grid(TK, behind)[1][1] == "⇐"


def test_tutankham__a_creature_kills_and_the_eighth_unit_wins():
    s = start(TK, player=[1, 1], foes=_creatures([(1, 2)], timers=[5]))
    _, reward, done, msg = play(TK, s, "RIGHT")
    assert done and reward == pytest.approx(-1.0) and msg == "A creature caught you. Game over."
    s = start(TK, player=[1, 7], score=7)
    _, reward, done, msg = play(TK, s, "RIGHT")
    assert done and reward == pytest.approx(1 / 8) and msg == "You reached the target. You win!"


# --- name this game ---------------------------------------------------------------------------------
NT = "atari/namethisgame"


def _arms(lengths):
    field = jnp.zeros((20, 20), jnp.int8).at[1, 2:17].set(namethisgame.BODY)
    for col, n in zip(namethisgame.TENTACLES, lengths):
        field = field.at[2:2 + n, col].set(namethisgame.ARM)
    return field


def test_namethisgame__a_shot_cuts_the_tip_golden_frame():
    s = start(NT, field=_arms([5, 1, 1, 1, 1]), shots=pool([(8, 3)], vel=(-2, 0)), player=[18, 3],
              foes=pool([(2, 19)], vel=(0, -1)))
    s, reward, done, msg = play(NT, s, "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 30) and not done and msg == "You cut off a tentacle's tip."
    assert not bool(s.shots.alive.any())
    rows = grid(NT, s)
    assert [r[3] for r in rows[1:8]] == ["◠", "∫", "∫", "∫", "∫", " ", " "]  # five cells less the tip
    assert rows[2] == "   ∫  ∫  ∫  ∫  ∫  ◀ " and rows[18][3] == "@" and rows[19] == "$" * 20


def test_namethisgame__the_shark_is_shot_and_replaced():
    s = start(NT, field=_arms([1] * 5), shots=pool([(12, 11)], vel=(-2, 0)), foes=pool([(10, 10)], vel=(0, 1)))
    s, reward, done, msg = play(NT, s, "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 30) and not done and msg == "You shot the shark."
    assert bool(s.foes.alive[0]) and int(s.foes.pos[0, 0]) == 2 and int(s.foes.pos[0, 1]) in (0, 19)


def test_namethisgame__the_treasure_taken_loses_and_the_thirtieth_wins():
    s = start(NT, field=_arms([15] * 5))  # every tip on row 16; one more cell reaches row 17 = H - 3
    _, reward, done, msg = play(NT, s, "NOOP", rate=1.0)
    assert done and reward == pytest.approx(-1.0) and msg == "The treasure was taken. Game over."
    _, reward, done, _ = play(NT, s, "NOOP", rate=0.0)
    assert not done and reward == 0
    s = start(NT, field=_arms([1] * 5), foes=pool([(16, 19)], vel=(0, 1)))  # at the side: drops to row 17
    _, reward, done, _ = play(NT, s, "NOOP", rate=0.0)
    assert done and reward == pytest.approx(-1.0)
    s = start(NT, field=_arms([5] * 5), shots=pool([(8, 3)], vel=(-2, 0)), score=29)
    _, reward, done, msg = play(NT, s, "NOOP", rate=0.0)
    assert done and reward == pytest.approx(1 / 30) and msg == "You reached the target. You win!"


# --- video pinball ----------------------------------------------------------------------------------
VP = "atari/videopinball"


def test_videopinball__a_bumper_sends_the_ball_back_golden_frame():
    s = start(VP, ball=[9, 4], ball_vel=[-1, -1], phase=5)
    s, reward, done, msg = play(VP, s, "NOOP")
    assert reward == pytest.approx(1 / 100) and not done and msg == "The ball struck a bumper."
    assert s.ball.tolist() == [9, 4] and s.ball_vel.tolist() == [1, 1]
    rows = grid(VP, s)
    assert rows[8:10] == ["▓  ◎    ◎  ▓", "▓   ●      ▓"] and rows[5] == "▓  ▮▮▮▮▮▮  ▓" and rows[21] == "▓▂▂▂▂  ▂▂▂▂▓"
    up, *_ = play(VP, start(VP, ball=[9, 3], ball_vel=[-1, 0], phase=5), "NOOP")  # straight on: a sideways kick
    assert up.ball.tolist() == [9, 3] and up.ball_vel[0] == 1 and abs(int(up.ball_vel[1])) == 1


def test_videopinball__the_ball_rises_then_falls():
    s = start(VP, ball=[15, 5], ball_vel=[-1, 1], phase=1)
    s, *_ = play(VP, s, "NOOP")
    assert s.ball.tolist() == [14, 6] and int(s.phase) == 0
    s, *_ = play(VP, s, "NOOP")
    assert s.ball.tolist() == [15, 7] and s.ball_vel.tolist() == [1, 1]


def test_videopinball__flippers_launch_roll_and_drain():
    s, *_ = play(VP, start(VP, ball=[21, 3], ball_vel=[1, 1]), "LEFT_FLIPPER")  # an inner cell: diagonal
    assert s.ball.tolist() == [20, 4] and s.ball_vel.tolist() == [-1, 1] and int(s.phase) == videopinball.RISE - 1
    s, *_ = play(VP, start(VP, ball=[20, 9], ball_vel=[1, 0]), "RIGHT_FLIPPER")  # above it, falling; outer cell
    assert s.ball.tolist() == [19, 9] and s.ball_vel.tolist() == [-1, 0]
    s, reward, done, _ = play(VP, start(VP, ball=[21, 3], ball_vel=[1, 1]), "RIGHT_FLIPPER")  # wrong one: rolls
    assert s.ball.tolist() == [21, 4] and not done and reward == 0
    s, reward, done, _ = play(VP, s, "NOOP")
    assert s.ball.tolist() == [21, 5] and not done
    s, reward, done, msg = play(VP, s, "NOOP")
    assert done and reward == 0 and msg == "The ball drained. Game over."


def test_videopinball__nudge_turns_the_ball_from_the_drain_once_per_tilt():
    s = start(VP, ball=[20, 5], ball_vel=[1, 0])
    s, _, done, _ = play(VP, s, "NUDGE")
    assert s.ball.tolist() == [21, 4] and not done and int(s.cooldown) == videopinball.TILT
    again, *_ = play(VP, start(VP, ball=[20, 6], ball_vel=[1, -1], cooldown=3), "NUDGE")
    assert again.ball.tolist() == [21, 5]  # tilt: no effect, the ball lands in the drain


def test_videopinball__targets_drop_the_bank_stands_up_and_the_hundredth_wins():
    s = start(VP, ball=[6, 4], ball_vel=[-1, 0], phase=3)
    s, reward, _, msg = play(VP, s, "NOOP")
    assert reward == pytest.approx(1 / 100) and msg == "The ball knocked down a drop target."
    assert int(s.field[5, 4]) == 0 and int((s.field[5] == videopinball.STANDING).sum()) == 5
    last = start(VP, ball=[6, 4], ball_vel=[-1, 0], phase=3, field=s.field.at[5].set(0).at[5, 4].set(3), score=99)
    last, reward, done, msg = play(VP, last, "NOOP")
    assert int((last.field[5] == videopinball.STANDING).sum()) == 6
    assert done and reward == pytest.approx(1 / 100) and msg == "You reached the target. You win!"


# --- venture ----------------------------------------------------------------------------------------
VE = "atari/venture"


def _monsters(cells, timers=None):
    p = pool(cells, n=5)
    return p if timers is None else p.replace(timer=p.timer.at[:len(timers)].set(jnp.array(timers, jnp.int32)))


def test_venture__treasure_and_doorways_only_you_pass():
    s = start(VE, player=[4, 5], foes=entities.empty(5))
    s, reward, done, msg = play(VE, s, "UP")
    assert reward == pytest.approx(1 / 4) and not done and msg == "You took a treasure."
    s = start(VE, player=[8, 5], foes=entities.empty(5))
    s, *_ = play(VE, s, "UP")
    assert s.player.tolist() == [7, 5] and grid(VE, s)[7] == "▓ ▓▓▓⇑▓▓▓  ▓▓▓▓▓▓▓ ▓"
    for seed in range(4):  # a hallmonster below the doorway never steps into it, whatever it draws
        s = start(VE, player=[6, 5], foes=_monsters([(8, 5)]))
        env, step, _ = _jitted(VE)
        s, _ = step(glyphjax.step_key(seed, 0), s, jnp.int32(0), env.default_params())
        assert int(s.foes.pos[0, 0]) == 8


def test_venture__an_arrow_sends_a_monster_to_its_lair():
    s = start(VE, player=[8, 1], foes=_monsters([(8, 5), (14, 5)], timers=[0, 9]))
    after, reward, done, msg = play(VE, s, "FIRE")  # facing right at reset; (8, 5) is 4 cells away
    assert after.foes.pos[0].tolist() == list(venture.MAP.homes[0]) and int(after.foes.timer[0]) == venture.HOLD - 1
    assert reward == 0 and not done and msg == "Your arrow sent a monster back to its lair."
    far, *_ = play(VE, s.replace(foes=_monsters([(8, 6)], timers=[9])), "FIRE")
    assert far.foes.pos[0].tolist() == [8, 6]


def test_venture__a_monster_kills_and_the_fourth_treasure_wins():
    s = start(VE, player=[8, 1], foes=_monsters([(8, 2)], timers=[9]))
    _, reward, done, msg = play(VE, s, "RIGHT")
    assert done and reward == pytest.approx(-1.0) and msg == "A monster got you. Game over."
    s = start(VE, player=[4, 5], foes=entities.empty(5), score=3)
    _, reward, done, msg = play(VE, s, "UP")
    assert done and reward == pytest.approx(1 / 4) and msg == "You reached the target. You win!"


# --- road runner ------------------------------------------------------------------------------------
RR = "atari/roadrunner"


def _road(items):
    field = jnp.zeros((16, 30), jnp.int8)
    for col, code in items:
        field = field.at[13, col].set(code)
    return field


def test_roadrunner__seed_eaten_on_your_cell_or_passing_through_it():
    s, reward, done, msg = play(RR, start(RR, field=_road([(16, 1)])), "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 50) and not done and msg == "You ate a pile of birdseed."
    assert int(s.field[13, 15]) == 0 and s.player.tolist() == [13, 15]
    s, reward, *_ = play(RR, start(RR, field=_road([(16, 1)])), "RIGHT", rate=0.0)  # you and it swap cells
    assert reward == pytest.approx(1 / 50) and s.player.tolist() == [13, 16]


def test_roadrunner__a_rock_kills_on_the_road_and_a_jump_clears_it_golden_frame():
    _, reward, done, msg = play(RR, start(RR, field=_road([(16, 2)])), "NOOP", rate=0.0)
    assert done and reward == pytest.approx(-1.0) and msg == "You were stopped. Game over."
    s, reward, done, _ = play(RR, start(RR, field=_road([(16, 2)])), "JUMP", rate=0.0)
    assert not done and reward == 0 and s.player.tolist() == [12, 15] and int(s.cooldown) == 3
    rows = grid(RR, s)
    assert rows[12] == " " * 15 + "@" + " " * 14 and rows[14] == "═" * 30
    assert rows[13][15] == "O" and rows[13][0] in "Ψ " and "Ψ" in rows[13][:2]


def test_roadrunner__a_rock_trips_the_coyote_and_the_coyote_catches_you():
    s, reward, done, msg = play(RR, start(RR, field=_road([(2, 2)]), opponent=[13, 1]), "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 50) and not done and msg == "A rock tripped the coyote back."
    assert s.opponent.tolist() == [13, 0]
    _, reward, done, msg = play(RR, start(RR, opponent=[13, 14]), "LEFT", rate=0.0)
    assert done and reward == pytest.approx(-1.0) and msg == "You were stopped. Game over."
    _, reward, done, msg = play(RR, start(RR, field=_road([(16, 1)]), score=49), "NOOP", rate=0.0)
    assert done and reward == pytest.approx(1 / 50) and msg == "You reached the target. You win!"
