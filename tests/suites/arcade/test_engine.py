"""Arcade engine: ball walls and paddle angles, scrolling rows, formation march, shots, meeting
rules, and the reward patterns' bounds (against plain-Python references written from the rules)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core import entities
from glyphjax.suites.arcade import GAMES
from glyphjax.suites.arcade.engine import Outcome, duel_reward, pay, progress_reward, death_reward
from glyphjax.suites.arcade.physics import (covers, fold, march, meets, paddle_bounce, scroll,
                                            scrolled, shoot_down, wall_bounce)


def _bounce_path(x, v, steps, lo, hi):
    """Plain reference of the wall rule: a move that would leave [lo, hi] flips v and stays."""
    out = []
    for _ in range(steps):
        if not lo <= x + v <= hi:
            v = -v
        else:
            x += v
        out.append(x)
    return out


def test_wall_bounce__flips_and_stays_at_a_wall_moves_elsewhere():
    pos, vel = jnp.array([5, 15]), jnp.array([1, 1])
    move, new_vel = wall_bounce(pos, vel, 1, 0, 15)
    assert move.tolist() == [1, 0] and new_vel.tolist() == [1, -1]
    move, new_vel = wall_bounce(jnp.array([5, 7]), vel, 1, 0, 15)
    assert move.tolist() == [1, 1] and new_vel.tolist() == [1, 1]


@pytest.mark.parametrize("x, v", [(2, 1), (0, -1), (5, -1), (5, 1), (3, 0)])
def test_fold__equals_the_simulated_wall_rule(x, v):
    steps = np.arange(1, 40)
    got = fold(jnp.int32(x), jnp.int32(v), jnp.asarray(steps), 0, 5).tolist()
    assert got == _bounce_path(x, v, 39, 0, 5)


def test_paddle_bounce__outer_thirds_send_the_ball_to_their_side_middle_straight():
    assert paddle_bounce(jnp.arange(3), 3).tolist() == [-1, 0, 1]
    assert paddle_bounce(jnp.arange(5), 5).tolist() == [-1, 0, 0, 0, 1]


def test_covers__a_horizontal_paddle_covers_its_cells_on_its_row_only():
    paddle = jnp.array([9, 4])
    hits = [bool(covers(paddle, jnp.array([r, c]), 3, axis=1)[0]) for r, c in [(9, 3), (9, 4), (9, 6), (9, 7), (8, 5)]]
    assert hits == [False, True, True, False, False]
    assert int(covers(paddle, jnp.array([9, 6]), 3, axis=1)[1]) == 2


def test_scroll__rows_rotate_by_direction_on_their_period_and_wrap():
    cells = np.zeros((3, 6), np.int8)
    cells[1, 0] = cells[2, 5] = 1
    lanes = jnp.array([[0, 0, 1], [0, 1, 1], [0, -1, 2]], jnp.int32)
    for t in range(8):
        lanes = scroll(lanes, jnp.int32(t))
    # row 1 moves right every turn: 8 moves from column 0 wrap to column 2; row 2 moves left on
    # t = 0, 2, 4, 6: 4 moves from column 5 to column 1; row 0 stays
    want = np.zeros((3, 6), np.int8)
    want[1, 2] = want[2, 1] = 1
    np.testing.assert_array_equal(np.asarray(scrolled(jnp.asarray(cells), lanes)), want)


def _pool(cells, vel=(0, 0), n=None):
    n = n or len(cells)
    pos = jnp.array(cells, jnp.int32).reshape(-1, 2)
    k = pos.shape[0]
    return entities.spawn_many(entities.empty(n), pos, jnp.tile(jnp.array(vel, jnp.int32), (k, 1)),
                               jnp.zeros(k, jnp.int32), jnp.ones(k, bool))


def test_march__steps_sideways_then_down_and_turns_at_the_edge():
    foes = _pool([(1, 3), (1, 5)])
    foes, heading = march(foes, jnp.int32(1), 7, jnp.bool_(True))
    assert foes.pos.tolist() == [[1, 4], [1, 6]] and int(heading) == 1
    foes, heading = march(foes, heading, 7, jnp.bool_(True))  # 6 + 1 leaves a 7-wide field
    assert foes.pos.tolist() == [[2, 4], [2, 6]] and int(heading) == -1
    still, h2 = march(foes, heading, 7, jnp.bool_(False))
    assert still.pos.tolist() == foes.pos.tolist() and int(h2) == -1


def test_shoot_down__a_two_cell_shot_hits_what_it_passes_and_only_the_nearest():
    shots0 = _pool([(8, 7)], vel=(-2, 0))
    shots1 = entities.advance(shots0, 12, 14)
    foes = _pool([(7, 7), (6, 7), (6, 8)])  # two invaders on the shot's path: the nearer dies
    shots, left, kills = shoot_down(shots0, shots1, foes, foes)
    assert int(kills) == 1 and left.alive.tolist() == [False, True, True] and not bool(shots.alive.any())


def test_meets__same_cell_or_swap_but_not_a_chase_one_cell_behind():
    before = _pool([(5, 4), (5, 7), (3, 3)], vel=(0, 1))
    after = entities.advance(before, 10, 14)  # (5,5), (5,8), (3,4)
    # you move (5,5) -> (5,6): the first one steps into the cell you left (a chase): no meeting
    assert meets(before, after, jnp.array([5, 5]), jnp.array([5, 6])).tolist() == [False, False, False]
    # you stay at (5,5): the first one lands on you
    assert meets(before, after, jnp.array([5, 5]), jnp.array([5, 5])).tolist() == [True, False, False]
    # you move (3,4) -> (3,3) while the third moves (3,3) -> (3,4): a swap
    assert meets(before, after, jnp.array([3, 4]), jnp.array([3, 3])).tolist() == [False, False, True]


def test_reward_patterns__progress_caps_at_the_target_duel_and_death_pay_as_declared():
    target = jnp.int32(4)
    assert float(progress_reward(jnp.int32(3), jnp.int32(2), target)) == pytest.approx(0.25)
    assert float(progress_reward(jnp.int32(4), jnp.int32(1), target)) == 0.0
    assert float(duel_reward(jnp.int32(0), jnp.int32(1), target)) == pytest.approx(-0.25)
    assert float(death_reward(jnp.float32(0.25), jnp.bool_(True))) == pytest.approx(-0.75)


@pytest.mark.parametrize("pattern", ["A", "C", "D"])
def test_pay__random_outcome_sequences_keep_the_return_in_the_declared_range(pattern):
    """Any outcome sequence, played until the engine ends it, returns within the card's range:
    1,000 sequences of 30 turns with 0-2 units and points a turn and a death one turn in three."""
    lo, hi = (0.0, 1.0) if pattern == "A" else (-1.0, 1.0)
    env = glyphjax.make("miniatari/breakout")
    state0 = jax.jit(env.reset)(glyphjax.reset_key(0))

    def episode(key):
        g, c, d = jax.random.randint(key, (3, 30), 0, 3)
        def turn(carry, x):
            score, opp, ret, over = carry
            out = Outcome(gained=x[0], conceded=x[1], died=x[2] == 0)
            reward, gained, conceded, won, lost, died = pay(
                pattern, state0.replace(score=score, opp_score=opp), out, jnp.int32(3))
            reward = jnp.where(over, 0.0, reward)
            return (score + gained, opp + conceded, ret + reward, over | won | lost | died), None
        carry0 = (jnp.int32(0), jnp.int32(0), jnp.float32(0), jnp.bool_(False))
        return jax.lax.scan(turn, carry0, jnp.stack([g, c, d], 1))[0][2]

    returns = np.asarray(jax.jit(jax.vmap(episode))(jax.random.split(jax.random.PRNGKey(0), 1000)))
    assert returns.min() >= lo - 1e-6 and returns.max() <= hi + 1e-6, (pattern, returns.min(), returns.max())
    assert returns.max() == pytest.approx(1.0) and (returns.min() == pytest.approx(lo))


def test_cards__reward_text_names_the_target_the_code_pays():
    for name, game in GAMES.items():
        for track in game.tracks:
            env = glyphjax.make(f"{track}/{name}")
            target = int(env.default_params().target)
            assert f"+1/{target} for each {game.unit}" in env.card.reward, env.card.id
