"""Gunfights (arcade/gunfight.py: Berzerk, Wizard of Wor, Battlezone, Robot Tank) and Double Dunk:
each game's scoring, win and loss rules on positions set up by hand at the MiniAtari setting,
with golden frames written from the rules in the module docstrings. Foes stand still on turns
where t % period != 0 (the tests start at such a turn unless a foe's move is the point) and fire
with probability `rate` (0 or 1 here)."""

import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core import entities
from glyphjax.core.sampling import Draws
from glyphjax.suites.arcade import doubledunk as dd
from glyphjax.suites.arcade import gunfight
from tests.suites.arcade.test_flight import frame, start
from tests.suites.arcade.test_games import _jitted, grid, play, pool

BZ, WW, BT, RT, DD = ("miniatari/berzerk", "miniatari/wizardofwor", "miniatari/battlezone", "miniatari/robotank",
                      "miniatari/doubledunk")
UP, DOWN, LEFT, RIGHT = [-1, 0], [1, 0], [0, -1], [0, 1]


def room(h, w, walls=()):
    """A field walled on its border, with extra wall cells."""
    field = np.zeros((h, w), np.int8)
    field[0, :] = field[-1, :] = field[:, 0] = field[:, -1] = 1
    for r, c in walls:
        field[r, c] = 1
    return field


def gun(task, you, heading, foes, walls=(), bullets=(), bullet_vel=(0, 0), t=1, **fields):
    env = glyphjax.make(task)
    h, w = env.setting.size
    nf, _, nb = env.setting.caps
    return start(task, field=room(h, w, walls), player=you, heading=heading, t=t,
                 foes=pool(foes, n=nf) if foes else entities.empty(nf),
                 bombs=pool(bullets, vel=bullet_vel, n=nb) if bullets else entities.empty(nb), **fields)


def alive_cells(p):
    return sorted(map(tuple, np.asarray(p.pos)[np.asarray(p.alive)].tolist()))


# --- Berzerk (gunfight.turn with electrified walls) ------------------------------------------------------
def test_berzerk__fire_destroys_the_first_robot_in_line_within_reach_and_walls_stop_it():
    s = gun(BZ, [8, 5], UP, [(5, 5), (3, 5), (8, 12)])
    s2, reward, done, msg = play(BZ, s, "FIRE", rate=0.0)
    assert reward == pytest.approx(1 / 5) and not done and msg == "You destroyed an enemy."
    assert alive_cells(s2.foes) == [(3, 5), (8, 12)]
    # out of reach (6 cells) and behind a wall: nothing happens
    for foes, walls in (([(2, 5)], ()), ([(5, 5)], [(6, 5)])):
        s2, reward, done, _ = play(BZ, gun(BZ, [8, 5], UP, foes, walls), "FIRE", rate=0.0)
        assert reward == 0 and alive_cells(s2.foes) == sorted(foes)


def test_berzerk__a_move_turns_you_first_and_a_step_into_an_electrified_wall_kills():
    s = gun(BZ, [1, 1], UP, [(8, 12)])
    s2, reward, done, _ = play(BZ, s, "RIGHT", rate=0.0)  # turn only
    assert s2.player.tolist() == [1, 1] and s2.heading.tolist() == RIGHT and not done
    s3, _, _, _ = play(BZ, s2, "RIGHT", rate=0.0)  # now a step
    assert s3.player.tolist() == [1, 2]
    s2, reward, done, _ = play(BZ, s, "LEFT", rate=0.0)  # turning to face a wall is safe
    assert not done and s2.heading.tolist() == LEFT
    s2, reward, done, msg = play(BZ, s, "UP", rate=0.0)  # a step into the wall above
    assert done and reward == -1.0 and msg == "You were killed. Game over."


def test_berzerk__your_shot_destroys_a_bolt_nearer_than_the_robot_behind_it():
    s = gun(BZ, [8, 5], UP, [(4, 5)], bullets=[(6, 5)], bullet_vel=(1, 0))
    s2, reward, done, _ = play(BZ, s, "FIRE", rate=0.0)
    assert reward == 0 and not done and not bool(s2.bombs.alive.any()) and alive_cells(s2.foes) == [(4, 5)]


def test_berzerk__a_robot_in_line_fires_a_bolt_in_front_of_it_golden_frame():
    s = gun(BZ, [8, 5], LEFT, [(3, 5)])
    s2, reward, done, _ = play(BZ, s, "NOOP", rate=1.0)
    assert reward == 0 and not done
    walls = {(r, c): "▤" for r in range(10) for c in range(16) if r in (0, 9) or c in (0, 15)}
    assert grid(BZ, s2) == frame(10, 16, {**walls, (3, 5): "◐", (4, 5): "◌", (8, 5): "⇐"})
    assert s2.bombs.vel[np.argmax(np.asarray(s2.bombs.alive))].tolist() == DOWN


def test_berzerk__a_bolt_meeting_you_kills_head_on_or_swapping():
    for action in ("NOOP", "UP"):  # bolt moves onto you / you and the bolt swap cells
        s = gun(BZ, [8, 5], UP, [(1, 14)], bullets=[(7, 5)], bullet_vel=(1, 0))
        _, reward, done, _ = play(BZ, s, action, rate=0.0)
        assert done and reward == -1.0, action
    s = gun(BZ, [8, 5], LEFT, [(1, 14)], bullets=[(7, 6)], bullet_vel=(1, 0))  # passes beside you
    _, reward, done, _ = play(BZ, s, "NOOP", rate=0.0)
    assert not done and reward == 0


def test_berzerk__a_robot_stepping_onto_you_kills_and_the_last_robot_wins():
    s = gun(BZ, [8, 5], LEFT, [(7, 5)], t=0)  # t % 3 == 0: robots move
    s2, reward, done, _ = play(BZ, s, "NOOP", rate=0.0)
    assert done and reward == -1.0 and s2.foes.pos[0].tolist() == [8, 5]
    s = gun(BZ, [8, 5], RIGHT, [(8, 9)], score=4, earned=0.8)
    s2, reward, done, msg = play(BZ, s, "FIRE", rate=0.0)
    assert done and reward == pytest.approx(0.2) and float(s2.earned) == pytest.approx(1.0)
    assert msg == "You reached the target. You win!"


# --- Wizard of Wor -------------------------------------------------------------------------------------
def test_wizardofwor__the_warp_row_wraps_and_monsters_walk_the_corridors_towards_you():
    s = start(WW, player=[4, 0], heading=LEFT, t=1)  # the dungeon's row 4 is open at both edges
    s2, _, done, _ = play(WW, s, "LEFT", rate=0.0)
    assert s2.player.tolist() == [4, 13] and not done
    # a lone monster in an open room at t % 3 == 0 steps one cell closer (straight-line distance)
    s = gun(WW, [8, 6], UP, [(2, 6)], t=0)
    s2, _, _, _ = play(WW, s, "NOOP", rate=0.0)
    assert alive_cells(s2.foes) == [(3, 6)]


def test_wizardofwor__five_monsters_win_and_a_shot_monster_is_not_replaced():
    s = gun(WW, [8, 1], UP, [(4, 1), (1, 12)], score=3, earned=0.6)
    s2, reward, done, _ = play(WW, s, "FIRE", rate=0.0)
    assert reward == pytest.approx(0.2) and not done and alive_cells(s2.foes) == [(1, 12)]
    s2, reward, done, msg = play(WW, gun(WW, [1, 6], RIGHT, [(1, 11)], score=4, earned=0.8), "FIRE", rate=0.0)
    assert done and msg == "You reached the target. You win!"


# --- Battlezone ----------------------------------------------------------------------------------------
def test_battlezone__obstacles_block_you_without_harm_and_a_ramming_tank_destroys_you():
    s = gun(BT, [5, 5], UP, [(1, 12)], walls=[(4, 5)])
    s2, reward, done, _ = play(BT, s, "UP", rate=0.0)
    assert s2.player.tolist() == [5, 5] and s2.heading.tolist() == UP and not done and reward == 0
    s = gun(BT, [5, 5], UP, [(5, 7)], t=0)  # the tank steps beside you, then onto you
    s2, _, done, _ = play(BT, s, "NOOP", rate=0.0)
    assert not done and alive_cells(s2.foes) == [(5, 6)]
    s2 = s2.replace(t=jnp.int32(3))
    _, reward, done, msg = play(BT, s2, "NOOP", rate=0.0)
    assert done and reward == -1.0 and msg == "Your tank was destroyed. Game over."


# --- Robot Tank ------------------------------------------------------------------------------------------
def test_robotank__three_shell_hits_knock_out_systems_the_fourth_destroys_you():
    env, _, render = _jitted(RT)
    s = gun(RT, [8, 5], LEFT, [(1, 10)], bullets=[(7, 5)], bullet_vel=(1, 0))
    s2, reward, done, msg = play(RT, s, "NOOP", rate=0.0)
    assert not done and reward == 0 and int(s2.phase) == 1 and msg == "You were hit."
    assert "Systems: 3" in glyphjax.render_text(env.card, render(s2)).hud
    s = gun(RT, [8, 5], LEFT, [(1, 10)], bullets=[(7, 5)], bullet_vel=(1, 0), phase=3)
    _, reward, done, _ = play(RT, s, "NOOP", rate=0.0)
    assert done and reward == -1.0


# --- Double Dunk ---------------------------------------------------------------------------------------------
def _t_where(pred):
    """A step index t whose step draws (the game's five uniforms: your shot, your steal, the
    opponent acts, its shot, its steal) satisfy `pred`."""
    for t in range(200):
        u = np.asarray(Draws.hashed(glyphjax.step_key(0, t), 5).u)
        if pred(u):
            return t
    raise AssertionError("no such draw")


def dunk(state, action, t, rate=0.6):
    env, step, _ = _jitted(DD)
    p = env.default_params().replace(rate=jnp.float32(rate))
    state, tr = step(glyphjax.step_key(0, t), state, jnp.int32(env.card.action_index(action)), p)
    return state, float(tr.reward), bool(tr.terminated), env.card.events[int(tr.event)]


def test_doubledunk__a_basket_scores_and_the_other_side_takes_the_ball_at_the_bottom_golden_frame():
    t = _t_where(lambda u: u[0] < dd.make_chance(1))
    s = start(DD, player=[1, 6], opponent=[5, 3], phase=dd.MINE)
    s2, reward, done, msg = dunk(s, "SHOOT", t)
    assert reward == pytest.approx(1 / 4) and not done and msg == "You scored a basket."
    assert int(s2.phase) == dd.THEIRS and s2.player.tolist() == [5, 7] and s2.opponent.tolist() == [9, 7]
    assert grid(DD, s2) == frame(10, 14, {(0, 7): "○", (5, 7): "@", (8, 7): "●", (9, 7): "&"})


def test_doubledunk__a_missed_shot_goes_to_whoever_is_nearer_the_hoop():
    t = _t_where(lambda u: u[0] >= dd.make_chance(3))
    s = start(DD, player=[3, 7], opponent=[2, 6], phase=dd.MINE)
    s2, reward, _, msg = dunk(s, "SHOOT", t)
    assert reward == 0 and int(s2.phase) == dd.THEIRS and msg == "A shot missed."
    s = start(DD, player=[3, 7], opponent=[6, 6], phase=dd.MINE)
    s2, _, _, _ = dunk(s, "SHOOT", t)
    assert int(s2.phase) == dd.MINE


def test_doubledunk__a_steal_beside_the_opponent_and_conceding_the_fourth_basket_loses():
    t = _t_where(lambda u: u[1] < dd.STEAL)
    s = start(DD, player=[4, 5], opponent=[5, 6], phase=dd.THEIRS)
    s2, _, _, msg = dunk(s, "SHOOT", t)
    assert int(s2.phase) == dd.MINE and msg == "You stole the ball."
    s2, _, _, _ = dunk(s.replace(player=jnp.array([2, 5], jnp.int32)), "SHOOT", t)  # not beside it
    assert int(s2.phase) == dd.THEIRS
    t = _t_where(lambda u: u[3] < dd.make_chance(1))
    s = start(DD, player=[6, 2], opponent=[1, 7], phase=dd.THEIRS, opp_score=3, earned=-0.75)
    s2, reward, done, msg = dunk(s, "NOOP", t, rate=1.0)
    assert done and reward == pytest.approx(-0.25) and msg == "The opponent reached the target. You lose."
