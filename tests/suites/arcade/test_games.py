"""Arcade games at their MiniAtari setting: each game's scoring, win and loss rules on positions
set up by hand, with golden frames written from the rules (docs in each game module)."""

import functools

import jax
import jax.numpy as jnp
import pytest

import glyphjax
from glyphjax.core import entities


@functools.cache
def _jitted(task_id):
    env = glyphjax.make(task_id)
    return env, jax.jit(env.step), jax.jit(env.render)


def start(task_id, **fields):
    """The seed-0 reset state of a task with `fields` replaced (pools, cells, positions ...)."""
    env = glyphjax.make(task_id)
    state = env.reset(glyphjax.reset_key(0))
    return state.replace(**{k: (v if isinstance(v, entities.Pool) else jnp.asarray(v, getattr(state, k).dtype))
                            for k, v in fields.items()})


def play(task_id, state, action_name, **params):
    """One turn: -> (state, reward, terminated, message). `params` overrides traced params."""
    env, step, _ = _jitted(task_id)
    p = env.default_params().replace(**{k: jnp.asarray(v, getattr(env.default_params(), k).dtype)
                                        for k, v in params.items()})
    state, tr = step(glyphjax.step_key(0, 0), state, jnp.int32(env.card.action_index(action_name)), p)
    return state, float(tr.reward), bool(tr.terminated), env.card.events[int(tr.event)]


def grid(task_id, state):
    env, _, render = _jitted(task_id)
    return glyphjax.render_text(env.card, render(state)).grid.split("\n")


def pool(cells, vel=(0, 0), kinds=None, n=None):
    cells = list(cells)
    k = len(cells)
    kinds = [0] * k if kinds is None else kinds
    return entities.spawn_many(entities.empty(n or k), jnp.array(cells, jnp.int32).reshape(-1, 2),
                               jnp.tile(jnp.array(vel, jnp.int32), (k, 1)), jnp.array(kinds, jnp.int32),
                               jnp.ones(k, bool))


def bricks(cells, h=10, w=16):
    field = jnp.zeros((h, w), jnp.int8)
    for r, c in cells:
        field = field.at[r, c].set(1)
    return field


# --- breakout ---------------------------------------------------------------------------------------
BO = "miniatari/breakout"


def test_breakout__a_brick_breaks_and_the_ball_turns_back_in_place():
    s = start(BO, field=bricks([(2, 6), (2, 7)]), ball=[3, 5], ball_vel=[-1, 1], player=[9, 4])
    s, reward, done, _ = play(BO, s, "NOOP")
    assert reward == pytest.approx(1 / 11) and not done
    assert s.ball.tolist() == [3, 5] and s.ball_vel.tolist() == [1, 1]
    empty = " " * 16
    assert grid(BO, s) == [empty, empty, " " * 7 + "█" + " " * 8, " " * 5 + "●" + " " * 10,
                           empty, empty, empty, empty, empty, " " * 4 + "▬▬▬" + " " * 9]


@pytest.mark.parametrize("left, vel", [(5, [-1, -1]), (4, [-1, 0]), (3, [-1, 1])])
def test_breakout__the_paddle_cell_hit_sets_the_angle(left, vel):
    s = start(BO, field=bricks([]), ball=[8, 5], ball_vel=[1, 0], player=[9, left])
    s, reward, done, _ = play(BO, s, "NOOP")
    assert s.ball.tolist() == [8, 5] and s.ball_vel.tolist() == vel and not done and reward == 0


def test_breakout__the_paddle_moves_before_the_ball_arrives():
    s = start(BO, field=bricks([]), ball=[8, 2], ball_vel=[1, 1], player=[9, 4])
    s, _, done, _ = play(BO, s, "LEFT")  # paddle 3..5 meets the ball at column 3 (its left cell)
    assert not done and s.player.tolist() == [9, 3] and s.ball_vel.tolist() == [-1, -1]


def test_breakout__missing_the_ball_ends_the_episode_without_penalty():
    s = start(BO, field=bricks([(1, 1)]), ball=[8, 2], ball_vel=[1, 1], player=[9, 10])
    s, reward, done, message = play(BO, s, "NOOP")
    assert done and reward == 0.0 and message == "You missed the ball. Game over."


def test_breakout__the_eleventh_brick_wins_with_return_one():
    s = start(BO, field=bricks([(2, 6)]), ball=[3, 5], ball_vel=[-1, 1], player=[9, 4], score=10,
              earned=10 / 11)
    s, reward, done, message = play(BO, s, "NOOP")
    assert done and message == "You reached the target. You win!"
    assert float(s.earned) == pytest.approx(1.0) and int(s.score) == 11


# --- pong -------------------------------------------------------------------------------------------
PG = "miniatari/pong"


def test_pong__a_ball_past_the_opponent_scores_and_is_served_again():
    s = start(PG, ball=[4, 1], ball_vel=[0, -1], opponent=[7, 0], player=[3, 15])
    s, reward, done, message = play(PG, s, "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 3) and not done and message == "You scored a point."
    assert int(s.ball[1]) == 8 and 3 <= int(s.ball[0]) <= 6 and int(s.score) == 1


def test_pong__conceding_the_third_point_loses():
    s = start(PG, ball=[4, 14], ball_vel=[0, 1], player=[7, 15], opp_score=2)
    s, reward, done, message = play(PG, s, "NOOP", rate=0.0)
    assert done and reward == pytest.approx(-1 / 3) and message == "The opponent reached the target. You lose."


def test_pong__your_paddle_returns_the_ball_golden_frame():
    s = start(PG, ball=[4, 14], ball_vel=[1, 1], player=[4, 15], opponent=[0, 0])
    s, reward, done, _ = play(PG, s, "NOOP", rate=0.0)
    assert reward == 0 and not done and s.ball_vel.tolist() == [0, -1]  # middle cell: straight back
    rows = [("□" if r < 3 else " ") + " " * 13 + ("●" if r == 4 else " ") + ("■" if 4 <= r < 7 else " ")
            for r in range(10)]
    assert grid(PG, s) == rows


def test_pong__the_opponent_follows_the_ball_at_its_rate():
    s = start(PG, ball=[8, 8], ball_vel=[0, -1], opponent=[0, 0])
    moved, *_ = play(PG, s, "NOOP", rate=1.0)
    still, *_ = play(PG, s, "NOOP", rate=0.0)
    assert moved.opponent.tolist() == [1, 0] and still.opponent.tolist() == [0, 0]


# --- freeway ----------------------------------------------------------------------------------------
FW = "miniatari/freeway"


def _road(cars, lanes):
    field = jnp.zeros((10, 14), jnp.int8)
    for r, c in cars:
        field = field.at[r, c].set(1)
    table = jnp.zeros((10, 3), jnp.int32).at[:, 2].set(1)
    for r, (direction, period) in lanes.items():
        table = table.at[r, 1].set(direction).at[r, 2].set(period)
    return dict(field=field, lanes=table)


def test_freeway__a_car_entering_your_cell_sends_you_back():
    s = start(FW, player=[9, 4], t=0, **_road([(8, 3)], {8: (1, 1)}))
    s, reward, done, message = play(FW, s, "UP")
    assert s.player.tolist() == [9, 4] and reward == 0 and not done
    assert message == "A car hit you: back to the bottom row."


def test_freeway__reaching_the_top_row_scores_a_crossing_golden_frame():
    s = start(FW, player=[1, 4], t=1, **_road([(5, 0)], {5: (-1, 2)}))
    s, reward, done, message = play(FW, s, "UP")
    assert reward == pytest.approx(1 / 10) and not done and message == "You crossed the road."
    # t = 1 is not a move turn of the period-2 lane: its car stays in column 0
    want = ["░" * 14] + [" " * 14] * 4 + ["◙" + " " * 13] + [" " * 14] * 3 + [" " * 4 + "@" + " " * 9]
    assert grid(FW, s) == want


def test_freeway__the_tenth_crossing_wins():
    s = start(FW, player=[1, 4], score=9, **_road([], {}))
    _, reward, done, message = play(FW, s, "UP")
    assert done and reward == pytest.approx(1 / 10) and message == "You reached the target. You win!"


# --- asterix ----------------------------------------------------------------------------------------
AX = "miniatari/asterix"


def test_asterix__a_treasure_met_head_on_is_collected():
    s = start(AX, player=[5, 5], t=0, foes=pool([(5, 6)], vel=(0, -1), kinds=[1], n=8))
    s, reward, done, message = play(AX, s, "RIGHT", rate=0.0)
    assert reward == pytest.approx(1 / 8) and not done and message == "You collected a treasure."
    assert not bool(s.foes.alive.any())


def test_asterix__an_enemy_landing_on_you_kills():
    s = start(AX, player=[5, 5], t=0, foes=pool([(5, 6)], vel=(0, -1), kinds=[0], n=8))
    _, reward, done, message = play(AX, s, "NOOP", rate=0.0)
    assert done and reward == -1.0 and message == "An enemy caught you. Game over."


def test_asterix__an_enemy_one_cell_behind_you_is_safe_and_moves_every_period():
    foes = pool([(5, 4)], vel=(0, 1), kinds=[0], n=8)
    s, reward, done, _ = play(AX, start(AX, player=[5, 5], t=0, foes=foes), "RIGHT", rate=0.0)
    assert not done and s.foes.pos[0].tolist() == [5, 5]
    s, *_ = play(AX, s, "RIGHT", rate=0.0)  # t = 1: objects rest (period 2)
    assert s.foes.pos[0].tolist() == [5, 5] and s.player.tolist() == [5, 7]
    assert grid(AX, s)[5] == " " * 5 + "Ж" + " " + "@" + " " * 6


# --- space invaders ---------------------------------------------------------------------------------
SI = "miniatari/spaceinvaders"


def test_spaceinvaders__a_shot_destroys_the_invader_on_its_path():
    s = start(SI, t=1, player=[11, 2], foes=pool([(7, 7), (1, 1)], n=8), shots=pool([(9, 7)], vel=(-2, 0)),
              bombs=entities.empty(2))
    s, reward, done, message = play(SI, s, "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 8) and not done and message == "You destroyed an invader."
    assert s.foes.alive.tolist()[:2] == [False, True] and not bool(s.shots.alive.any())


def test_spaceinvaders__fire_launches_one_shot_at_a_time_golden_frame():
    s = start(SI, t=1, player=[11, 2], foes=pool([(1, 9)], n=8), bombs=entities.empty(2))
    s, *_ = play(SI, s, "FIRE", rate=0.0)
    s, *_ = play(SI, s, "FIRE", rate=0.0)  # a shot is on screen: no second one
    assert int(entities.count(s.shots)) == 1
    # turn 2 is a march turn (period 2): the formation steps right
    want = [" " * 14, " " * 10 + "W" + " " * 3] + [" " * 14] * 5 + ["  ↑" + " " * 11] + [" " * 14] * 3 + ["  ▲" + " " * 11]
    assert grid(SI, s) == want


def test_spaceinvaders__a_bomb_on_your_cell_kills():
    s = start(SI, t=1, player=[11, 5], bombs=pool([(10, 5)], vel=(1, 0), n=2))
    _, reward, done, message = play(SI, s, "NOOP", rate=0.0)
    assert done and reward == -1.0 and message.startswith("Your cannon was destroyed")


def test_spaceinvaders__invaders_reaching_the_bottom_row_kill():
    s = start(SI, t=0, phase=1, player=[11, 2], foes=pool([(10, 13)], n=8), bombs=entities.empty(2))
    s, reward, done, _ = play(SI, s, "NOOP", rate=0.0)  # at the edge: the formation steps down
    assert s.foes.pos[0].tolist() == [11, 13] and done and reward == -1.0


def test_spaceinvaders__the_last_invader_wins():
    s = start(SI, t=1, player=[11, 7], score=7, earned=7 / 8, foes=pool([(8, 7)], n=8),
              shots=pool([(10, 7)], vel=(-2, 0)), bombs=entities.empty(2))
    s, reward, done, message = play(SI, s, "NOOP", rate=0.0)
    assert done and message == "You reached the target. You win!" and float(s.earned) == pytest.approx(1.0)


# --- demon attack -----------------------------------------------------------------------------------
DA = "miniatari/demonattack"


def test_demonattack__demons_bounce_off_the_sides_on_move_turns():
    s = start(DA, t=0, player=[9, 2], foes=pool([(2, 13), (3, 0)], vel=(0, 1), n=3), bombs=entities.empty(3))
    s, *_ = play(DA, s, "NOOP", rate=0.0)
    assert s.foes.pos[:2].tolist() == [[2, 12], [3, 1]] and s.foes.vel[:2, 1].tolist() == [-1, 1]
    s, *_ = play(DA, s, "NOOP", rate=0.0)  # t = 1: demons rest (period 2)
    assert s.foes.pos[:2].tolist() == [[2, 12], [3, 1]]


def test_demonattack__a_shot_destroys_a_demon_and_the_tenth_wins():
    s = start(DA, t=1, player=[9, 7], foes=pool([(2, 7), (1, 1), (1, 3)], vel=(0, 1), n=3),
              shots=pool([(4, 7)], vel=(-2, 0)), bombs=entities.empty(3))
    nxt, reward, done, message = play(DA, s, "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 10) and not done and message == "You destroyed a demon."
    _, _, done, message = play(DA, s.replace(score=jnp.int32(9)), "NOOP", rate=0.0)
    assert done and message == "You reached the target. You win!"


# --- assault ----------------------------------------------------------------------------------------
AS = "miniatari/assault"


def test_assault__attackers_drop_a_row_every_fourth_move_and_landing_kills():
    # t = 6 with period 2 is move number 3 (counting from 0): sideways and one row down
    s = start(AS, t=6, player=[11, 2], foes=pool([(9, 5)], vel=(0, 1), n=3), bombs=entities.empty(3),
              opponent=[0, 13], phase=1)
    s, reward, done, message = play(AS, s, "NOOP", rate=0.0)
    assert s.foes.pos[0].tolist() == [10, 6] and not done
    assert s.opponent.tolist() == [0, 12] and int(s.phase) == -1  # the mothership turned at the side
    s = s.replace(t=jnp.int32(14))
    s, reward, done, message = play(AS, s, "NOOP", rate=0.0)
    assert done and reward == -1.0 and message.startswith("Your cannon was destroyed")
