"""Free-flight shooters: the mechanics of arcade/flight.py (thrust, inertia, facing, waves, lines
of fire, torus distances) and, per game, its scoring, win and death rules on positions set up by
hand, with golden frames written from the rules in each game's module docstring."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core import entities
from glyphjax.core.sampling import Draws
from glyphjax.suites.arcade import flight
from tests.suites.arcade.test_games import grid, play, pool


@functools.cache
def _reset(task_id):
    env = glyphjax.make(task_id)
    return jax.jit(env.reset)(glyphjax.reset_key(0), env.default_params())


def start(task_id, **fields):
    """The seed-0 reset state of a task (reset compiled once: eager resets of these games are
    slow) with `fields` replaced (pools, cells, positions ...)."""
    state = _reset(task_id)
    return state.replace(**{k: (v if isinstance(v, entities.Pool) else jnp.asarray(v, getattr(state, k).dtype))
                            for k, v in fields.items()})


def kinds_pool(cells, vels, kinds, n):
    """A pool of n slots with one velocity and kind per entity."""
    k = len(cells)
    return entities.spawn_many(entities.empty(n), jnp.array(cells, jnp.int32), jnp.array(vels, jnp.int32),
                               jnp.array(kinds, jnp.int32), jnp.ones(k, bool))


def frame(h, w, marks):
    """Golden frame rows: spaces with `marks` {(row, col): glyph}."""
    rows = [[" "] * w for _ in range(h)]
    for (r, c), g in marks.items():
        rows[r][c] = g
    return ["".join(r) for r in rows]


# --- mechanics ----------------------------------------------------------------------------------------
def test_thrust__adds_the_push_and_caps_each_axis_at_vmax():
    assert flight.thrust(jnp.array([0, 1]), jnp.array([0, 1]), 1).tolist() == [0, 1]
    assert flight.thrust(jnp.array([1, -1]), jnp.array([-1, 0]), 2).tolist() == [0, -1]
    assert flight.thrust(jnp.array([2, 0]), jnp.array([1, 0]), 2).tolist() == [2, 0]


def test_coast__only_unthrust_axes_lose_one_cell_of_speed_and_only_on_drag_turns():
    vel = jnp.array([-2, 1])
    assert flight.coast(vel, jnp.array([0, 0]), jnp.bool_(True)).tolist() == [-1, 0]
    assert flight.coast(vel, jnp.array([0, 1]), jnp.bool_(True)).tolist() == [-1, 1]
    assert flight.coast(vel, jnp.array([0, 0]), jnp.bool_(False)).tolist() == [-2, 1]


def test_face__turns_to_the_push_and_keeps_the_facing_without_one():
    assert flight.face(jnp.array([-1, 0]), jnp.array([0, 1])).tolist() == [0, 1]
    assert flight.face(jnp.array([-1, 0]), jnp.array([0, 0])).tolist() == [-1, 0]
    assert [int(flight.facing_index(jnp.array(d))) for d in flight.FACINGS] == [0, 1, 2, 3]


def test_ahead__cells_on_the_line_of_fire_within_reach_only():
    cells = jnp.array([[5, 8], [5, 2], [4, 8], [5, 6], [5, 12]])
    got = flight.ahead(jnp.array([5, 5]), jnp.array([0, 1]), cells, 5).tolist()
    assert got == [True, False, False, True, False]
    up = flight.ahead(jnp.array([5, 5]), jnp.array([-1, 0]), jnp.array([[0, 5], [6, 5], [5, 5]]), 9)
    assert up.tolist() == [True, False, False]


def test_torus_delta__the_short_way_round_each_axis():
    d = flight.torus_delta(jnp.array([0, 0]), jnp.array([[9, 1], [5, 5], [1, 7]]), (10, 8))
    assert d.tolist() == [[-1, 1], [-5, -3], [1, -1]]


def test_scatter__a_wave_on_distinct_cells_far_from_you_drifting_unit_steps():
    def wave_of(key, where):
        return flight.scatter(Draws.hashed(key, 12 * 14 + 5), entities.empty(6), 5, (12, 14), jnp.array([6, 7]),
                              3, 2, where=where)

    wave_of = jax.jit(wave_of)
    wave = wave_of(jax.random.PRNGKey(7), True)
    alive = np.asarray(wave.alive)
    assert alive.tolist() == [True] * 5 + [False]
    pos, vel = np.asarray(wave.pos)[:5], np.asarray(wave.vel)[:5]
    assert len({tuple(p) for p in pos}) == 5
    assert (np.abs(pos - [6, 7]).max(-1) > 3).all() and (pos >= 0).all() and (pos < [12, 14]).all()
    assert ((np.abs(vel).max(-1) == 1)).all() and (np.asarray(wave.kind)[:5] == 2).all()
    assert not bool(wave_of(jax.random.PRNGKey(7), False).alive.any())


# --- asteroids -----------------------------------------------------------------------------------------
AS, AS_ATARI = "miniatari/asteroids", "atari/asteroids"


def test_asteroids__a_shot_flies_two_cells_a_turn_and_destroys_the_rock_on_its_path():
    s = start(AS, t=1, player=[6, 7], heading=[-1, 0], ball_vel=[0, 0],
              foes=pool([(3, 7), (0, 0)], vel=(1, 0), n=5), shots=entities.empty(2))
    s, reward, done, _ = play(AS, s, "FIRE")  # t = 1: rocks rest (period 2); the shot reaches row 4
    assert reward == 0 and not done and s.shots.pos[0].tolist() == [4, 7]
    s, reward, done, message = play(AS, s, "NOOP")  # t = 2: the rock steps down onto the shot's path
    assert reward == pytest.approx(1 / 5) and not done and message == "You destroyed a rock."
    assert grid(AS, s) == frame(12, 14, {(1, 0): "O", (6, 7): "⇑"})


def test_asteroids__the_ship_drifts_on_after_thrust_and_wraps_round_the_field():
    s = start(AS, t=2, player=[6, 13], heading=[-1, 0], ball_vel=[0, 0], foes=pool([(0, 3)], n=5))
    s, *_ = play(AS, s, "RIGHT")  # thrust: one cell right, off the edge and in at column 0
    assert s.player.tolist() == [6, 0] and s.heading.tolist() == [0, 1]
    s, *_ = play(AS, s, "NOOP")  # t = 3, no drag turn: the speed is kept
    assert s.player.tolist() == [6, 1]
    s, *_ = play(AS, s, "NOOP")  # t = 4, a drag turn: the speed is lost, the ship stays
    assert s.player.tolist() == [6, 1] and s.ball_vel.tolist() == [0, 0]
    assert grid(AS, s) == frame(12, 14, {(0, 3): "O", (6, 1): "⇒"})


def test_asteroids__a_rock_meeting_the_ship_ends_the_episode_without_penalty():
    s = start(AS, t=1, player=[6, 7], heading=[-1, 0], ball_vel=[0, 0], foes=pool([(5, 7)], n=5))
    _, reward, done, message = play(AS, s, "UP")
    assert done and reward == 0.0 and message == "A rock hit your ship. Game over."


def test_asteroids__the_fifth_rock_wins():
    s = start(AS, t=1, player=[6, 7], heading=[-1, 0], ball_vel=[0, 0], score=4, earned=0.8,
              foes=pool([(3, 7)], n=5), shots=pool([(5, 7)], vel=(-2, 0), n=2))
    s, reward, done, message = play(AS, s, "NOOP")
    assert done and message == "You reached the target. You win!" and float(s.earned) == pytest.approx(1.0)


def test_asteroids__atari_a_large_rock_breaks_into_two_small_ones_at_right_angles():
    s = start(AS_ATARI, t=1, player=[10, 10], heading=[-1, 0], ball_vel=[0, 0],
              foes=kinds_pool([(7, 10), (0, 0)], [(0, 1), (0, 0)], [0, 1], 15), shots=pool([(9, 10)], vel=(-2, 0), n=2))
    s, reward, done, _ = play(AS_ATARI, s, "NOOP")
    assert reward == pytest.approx(1 / 25) and not done
    alive = np.asarray(s.foes.alive)
    kids = sorted(map(tuple, np.asarray(s.foes.vel)[alive & (np.asarray(s.foes.pos) == [7, 10]).all(-1)]))
    assert kids == [(-1, 0), (1, 0)] and alive.sum() == 3
    assert grid(AS_ATARI, s) == frame(20, 20, {(0, 0): "◦", (7, 10): "◦", (10, 10): "⇑"})


def test_asteroids__atari_a_new_wave_appears_away_from_the_ship_when_the_field_is_clear():
    s = start(AS_ATARI, t=1, player=[10, 10], heading=[-1, 0], ball_vel=[0, 0],
              foes=kinds_pool([(7, 10)], [(0, 1)], [1], 15), shots=pool([(9, 10)], vel=(-2, 0), n=2))
    s, reward, done, _ = play(AS_ATARI, s, "NOOP")
    alive = np.asarray(s.foes.alive)
    assert reward == pytest.approx(1 / 25) and not done and alive.sum() == 5
    pos = np.asarray(s.foes.pos)[alive]
    assert (np.abs(pos - [10, 10]).max(-1) > 3).all() and (np.asarray(s.foes.kind)[alive] == 0).all()


# --- time pilot ----------------------------------------------------------------------------------------
TP = "miniatari/timepilot"


def test_timepilot__the_plane_always_flies_on_turns_first_and_wraps():
    s = start(TP, t=1, player=[6, 13], heading=[0, 1], foes=pool([(0, 7)], n=4))
    s, *_ = play(TP, s, "NOOP", rate=0.0)  # flies right, off the edge and in at column 0
    assert s.player.tolist() == [6, 0]
    s, *_ = play(TP, s, "UP", rate=0.0)  # t = 2: turns up, then flies; enemies rest (period 3)
    assert s.player.tolist() == [5, 0] and s.heading.tolist() == [-1, 0]
    assert grid(TP, s) == frame(12, 14, {(0, 7): "Ж", (5, 0): "⇑"})


def test_timepilot__enemies_step_towards_you_the_short_way_round():
    s = start(TP, t=0, player=[6, 0], heading=[-1, 0], foes=pool([(5, 12), (0, 3)], n=4))
    s, reward, done, _ = play(TP, s, "NOOP", rate=0.0)  # you fly to (5, 0) first
    assert s.foes.pos[:2].tolist() == [[5, 13], [1, 3]] and not done and reward == 0


def test_timepilot__a_shot_destroys_an_enemy_and_the_fifth_wins():
    s = start(TP, t=1, player=[6, 7], heading=[-1, 0], foes=pool([(2, 7)], n=4), shots=pool([(4, 7)], vel=(-2, 0), n=2))
    nxt, reward, done, message = play(TP, s, "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 5) and not done and message == "You destroyed an enemy plane."
    assert not bool(nxt.foes.alive.any()) and grid(TP, nxt) == frame(12, 14, {(5, 7): "⇑"})
    _, _, done, message = play(TP, s.replace(score=jnp.int32(4)), "NOOP", rate=0.0)
    assert done and message == "You reached the target. You win!"


def test_timepilot__an_enemy_meeting_you_is_death():
    s = start(TP, t=0, player=[6, 7], heading=[-1, 0], foes=pool([(4, 7)], n=4))
    _, reward, done, message = play(TP, s, "NOOP", rate=0.0)
    assert done and reward == -1.0 and message == "An enemy plane rammed you. Game over."


def test_timepilot__enemies_enter_at_an_edge_away_from_you():
    s = start(TP, t=1, player=[6, 7], heading=[-1, 0], foes=entities.empty(4))
    s, *_ = play(TP, s, "NOOP", rate=1.0)
    (r, c), = np.asarray(s.foes.pos)[np.asarray(s.foes.alive)].tolist()
    assert r in (0, 11) or c in (0, 13)
    assert max(abs(r - 5), abs(c - 7)) > 3


# --- star gunner ---------------------------------------------------------------------------------------
SG = "miniatari/stargunner"


def test_stargunner__the_ship_stays_in_the_left_half_and_a_shot_flies_right():
    s = start(SG, t=1, player=[4, 6], foes=pool([(4, 12)], n=4), shots=entities.empty(2))
    s, *_ = play(SG, s, "RIGHT", rate=0.0)  # column 6 is the last of the left half (14 columns)
    assert s.player.tolist() == [4, 6]
    s, *_ = play(SG, s, "FIRE", rate=0.0)  # t = 2: the enemy (in your row) flies one column left
    assert grid(SG, s) == frame(10, 14, {(4, 11): "◆", (4, 8): "*", (4, 6): "►"})


def test_stargunner__enemies_fly_left_on_move_turns_towards_your_row_and_leave_at_the_edge():
    s = start(SG, t=0, player=[5, 1], foes=pool([(2, 10), (7, 0)], n=4))
    s, *_ = play(SG, s, "NOOP", rate=0.0)
    (r, c), = np.asarray(s.foes.pos)[np.asarray(s.foes.alive)].tolist()
    assert c == 9 and r in (2, 3)
    s2, *_ = play(SG, s, "NOOP", rate=0.0)  # t = 1: enemies rest (period 2)
    assert s2.foes.pos.tolist() == s.foes.pos.tolist()


def test_stargunner__a_shot_destroys_an_enemy_and_the_fifth_wins():
    s = start(SG, t=1, player=[4, 1], foes=pool([(4, 7)], n=4), shots=pool([(4, 5)], vel=(0, 2), n=2))
    _, reward, done, message = play(SG, s, "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 5) and not done and message == "You destroyed an enemy ship."
    _, _, done, message = play(SG, s.replace(score=jnp.int32(4)), "NOOP", rate=0.0)
    assert done and message == "You reached the target. You win!"


def test_stargunner__an_enemy_meeting_you_is_death():
    s = start(SG, t=0, player=[4, 1], foes=pool([(4, 3)], n=4))
    _, reward, done, message = play(SG, s, "RIGHT", rate=0.0)
    assert done and reward == -1.0 and message == "An enemy ship hit you. Game over."


# --- chopper command -----------------------------------------------------------------------------------
CC = "miniatari/choppercommand"
CC_TRUCKS = {(9, 2): "▭", (9, 6): "▭", (9, 10): "▭", (9, 14): "▭"}


def test_choppercommand__a_bomb_on_a_truck_destroys_it():
    s = start(CC, t=1, player=[4, 8], heading=[0, 1], bombs=pool([(8, 6)], vel=(1, 0), n=3), foes=entities.empty(3))
    s, reward, done, message = play(CC, s, "NOOP", rate=0.0)
    assert reward == 0 and not done and message == "A bomb destroyed a truck."
    trucks = {k: v for k, v in CC_TRUCKS.items() if k != (9, 6)}
    assert grid(CC, s) == frame(10, 16, {**trucks, (4, 8): "⇒"}) and not bool(s.bombs.alive.any())


def test_choppercommand__left_turns_the_helicopter_and_fire_shoots_that_way():
    s = start(CC, t=1, player=[4, 8], heading=[0, 1], foes=entities.empty(3), shots=entities.empty(2))
    s, *_ = play(CC, s, "LEFT", rate=0.0)
    s, *_ = play(CC, s, "FIRE", rate=0.0)
    assert grid(CC, s) == frame(10, 16, {**CC_TRUCKS, (4, 7): "⇐", (4, 5): "*"})


def test_choppercommand__a_shot_destroys_a_helicopter_and_the_fifth_wins():
    s = start(CC, t=1, player=[4, 8], heading=[0, 1], foes=pool([(4, 11)], vel=(0, -1), n=3),
              shots=pool([(4, 9)], vel=(0, 2), n=2))
    _, reward, done, message = play(CC, s, "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 5) and not done and message == "You destroyed an enemy helicopter."
    _, _, done, message = play(CC, s.replace(score=jnp.int32(4)), "NOOP", rate=0.0)
    assert done and message == "You reached the target. You win!"


def test_choppercommand__helicopters_patrol_and_turn_round_at_the_side():
    s = start(CC, t=0, player=[4, 8], foes=pool([(2, 15), (3, 5)], vel=(0, 1), n=3))
    s, *_ = play(CC, s, "NOOP", rate=0.0)
    assert s.foes.pos[:2].tolist() == [[2, 15], [3, 6]] and s.foes.vel[:2, 1].tolist() == [-1, 1]


@pytest.mark.parametrize("case", ["rammed", "last truck"])
def test_choppercommand__a_helicopter_meeting_you_or_the_last_truck_lost_ends_it(case):
    if case == "rammed":
        s = start(CC, t=0, player=[4, 8], foes=pool([(4, 9)], vel=(0, -1), n=3))
    else:
        s = start(CC, t=1, player=[4, 8], foes=entities.empty(3), bombs=pool([(8, 2)], vel=(1, 0), n=3),
                  field=jnp.zeros((10, 16), jnp.int8).at[9, 2].set(1))
    _, reward, done, message = play(CC, s, "NOOP", rate=0.0)
    assert done and reward == 0.0 and message == "You were hit, or the last truck was lost. Game over."


# --- zaxxon --------------------------------------------------------------------------------------------
ZX = "miniatari/zaxxon"


def wall_at(col, h=10, w=16, gap=(0, 3)):
    """A field with one wall column, open on rows [gap[0], gap[1])."""
    rows = jnp.arange(h)
    return jnp.zeros((h, w), jnp.int8).at[:, col].set(jnp.where((rows >= gap[0]) & (rows < gap[1]), 0, 1))


def test_zaxxon__a_wall_stops_a_shot_before_the_turret_behind_it():
    s = start(ZX, t=1, player=[5, 1], field=wall_at(3), foes=pool([(5, 5)], n=4), shots=pool([(5, 1)], vel=(0, 2), n=2),
              bombs=entities.empty(3))
    s, reward, done, _ = play(ZX, s, "NOOP", rate=0.0)
    assert reward == 0 and not done and not bool(s.shots.alive.any()) and bool(s.foes.alive[0])
    walls = {(r, 3): "▓" for r in range(3, 10)}
    assert grid(ZX, s) == frame(10, 16, {**walls, (5, 5): "Ŧ", (5, 1): "►"})


def test_zaxxon__the_fortress_scrolls_left_with_its_turrets_on_scroll_turns():
    s = start(ZX, t=0, player=[5, 1], field=wall_at(10), foes=pool([(2, 12)], n=4), bombs=entities.empty(3))
    s, *_ = play(ZX, s, "NOOP", rate=0.0)
    assert np.asarray(s.field).tolist() == np.asarray(wall_at(9)).tolist() and s.foes.pos[0].tolist() == [2, 11]


def test_zaxxon__a_shot_destroys_a_turret_and_the_sixth_wins():
    s = start(ZX, t=1, player=[5, 1], foes=pool([(5, 3)], n=4), shots=pool([(5, 1)], vel=(0, 2), n=2), bombs=entities.empty(3))
    _, reward, done, message = play(ZX, s, "NOOP", rate=0.0)
    assert reward == pytest.approx(1 / 6) and not done and message == "You destroyed a turret."
    _, _, done, message = play(ZX, s.replace(score=jnp.int32(5)), "NOOP", rate=0.0)
    assert done and message == "You reached the target. You win!"


@pytest.mark.parametrize("case", ["wall", "bullet"])
def test_zaxxon__a_wall_or_a_bullet_on_your_ship_is_death(case):
    if case == "wall":  # the wall in column 2 scrolls onto your column; row 5 is not in its gap
        s = start(ZX, t=0, player=[5, 1], field=wall_at(2), foes=entities.empty(4), bombs=entities.empty(3))
    else:
        s = start(ZX, t=1, player=[5, 1], foes=entities.empty(4), bombs=pool([(5, 2)], vel=(0, -1), n=3))
    _, reward, done, message = play(ZX, s, "NOOP", rate=0.0)
    assert done and reward == -1.0 and message == "Your ship crashed or was shot. Game over."
