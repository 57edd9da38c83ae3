"""Procgen dodgeball and fruitbot on hand-set states: throwing, hits, walls, enemy balls, the exit,
fruit, junk, barriers, the finish and golden frames, every expected value worked out from the
rules in the game's docstring; then properties of their generated levels."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core import entities
from glyphjax.core.grid import RIGHT, UP, flood
from glyphjax.suites.procgen import dodgeball as db
from glyphjax.suites.procgen import fruitbot as fb
from glyphjax.suites.procgen.env import _generator as level_generator
from tests.suites.procgen.test_shooters import _env, _play, _pool, _text


# --- dodgeball ---------------------------------------------------------------------------------
def _arena(you, enemies=(), walls=(), total=None, items=0, facing=RIGHT, bolts=()):
    """An open 12 x 14 arena with the exit at (0, 3); enemies (row, col, d_row, d_col, reload);
    t = 1, so enemies (every 3rd turn, on t % 3 == 0) stand still this turn."""
    s = _env("procgen/dodgeball")[2](glyphjax.reset_key(0), _env("procgen/dodgeball")[0].default_params())
    world = np.full((db.H, db.W), db.BORDER_C, np.int8)
    world[1:-1, 1:-1] = db.EMPTY_C
    world[0, 3] = db.LOCKED_C
    for r, c in walls:
        world[r, c] = db.WALL_C
    foes = _pool(db.N_ENEMIES, [e[:2] for e in enemies], [e[2:4] for e in enemies], timers=[e[4] for e in enemies])
    shots = _pool(db.N_BOLTS, [b[:2] for b in bolts], [b[2:] for b in bolts])
    return s.replace(world=jnp.asarray(world), pos=jnp.array(you, jnp.int32), enemies=foes,
                     bolts=shots, balls=entities.empty(db.N_BALLS), items=jnp.int32(items),
                     total=jnp.int32(len(enemies) + items if total is None else total),
                     facing=jnp.int32(facing), cool=jnp.int32(0), t=jnp.int32(1), earned=jnp.float32(0))


def test_dodgeball__a_thrown_ball_flies_a_cell_a_turn_and_removes_the_enemy():
    s = _arena((6, 2), [(6, 4, 1, 0, 50), (1, 12, 0, 1, 50)])
    steps = _play("procgen/dodgeball", s, ["THROW", "NOOP"])
    # the ball starts on you, is at (6,3) after turn 1 and meets the enemy at (6,4) on turn 2
    # (t = 1, 2: enemies move on t % 3 == 0 only)
    assert tuple(np.asarray(steps[0][0].balls.pos[0])) == (6, 3) and steps[0][1] == 0.0
    assert steps[1][1:] == (pytest.approx(1 / 20), False, db.HIT)
    assert not bool(steps[1][0].enemies.alive[0]) and int(steps[1][0].items) == 1
    assert not bool(steps[1][0].balls.alive.any())


def test_dodgeball__golden_frame_and_hud():
    s = _arena((6, 2), [(6, 5, 1, 0, 50)], walls=[(3, 7), (4, 7)])
    s = _play("procgen/dodgeball", s, ["THROW"])[0][0]
    rows = ["███⊠██████████"] + ["█            █"] * 10 + ["██████████████"]
    rows[3] = rows[4] = "█      ▧     █"
    rows[6] = "█ @• ♟       █"
    text = _text("procgen/dodgeball", s)
    assert text.grid == "\n".join(rows)
    assert text.hud.endswith("Enemies hit: 0 / 1    Facing: right    Throw: in 3 turns")


def test_dodgeball__a_move_turns_you_even_when_the_border_stops_you():
    s = _arena((1, 5), [(9, 9, 0, 1, 50)])
    (s1, r, term, _), = _play("procgen/dodgeball", s, ["UP"])
    assert tuple(np.asarray(s1.pos)) == (1, 5) and int(s1.facing) == UP and (r, term) == (0.0, False)


def test_dodgeball__walls_enemies_and_enemy_balls_kill():
    wall = _play("procgen/dodgeball", _arena((5, 5), [(9, 9, 0, 1, 50)], walls=[(5, 6)]), ["RIGHT"])[0]
    assert wall[1:] == (-1.0, True, db.WALLED)
    caught = _play("procgen/dodgeball", _arena((5, 5), [(5, 6, 0, 1, 50)]), ["RIGHT"])[0]
    assert caught[1:] == (-1.0, True, db.CAUGHT)
    # an enemy ball at (5,8) flying left reaches (5,7) while you step from (4,7) down onto it
    shot = _play("procgen/dodgeball", _arena((4, 7), [(9, 1, 0, 1, 50)], bolts=[(5, 8, 0, -1)]), ["DOWN"])[0]
    assert shot[1:] == (-1.0, True, db.SHOT_DOWN)


def test_dodgeball__a_reloaded_enemy_in_line_throws_at_you():
    s = _arena((6, 2), [(6, 9, 1, 0, 0), (2, 10, 1, 0, 0)])
    (s1, r, term, _), = _play("procgen/dodgeball", s, ["NOOP"])
    bolts = s1.bolts
    assert int(bolts.alive.sum()) == 1 and tuple(np.asarray(bolts.pos[0])) == (6, 9)
    assert tuple(np.asarray(bolts.vel[0])) == (0, -1) and tuple(np.asarray(s1.enemies.vel[0])) == (0, -1)
    assert db.FIRE_DELAY[0] <= int(s1.enemies.timer[0]) <= db.FIRE_DELAY[0] + 3
    assert int(s1.enemies.timer[1]) == 0  # not in line: still waiting


def test_dodgeball__the_exit_opens_after_the_last_hit_and_pays_the_rest():
    locked = _play("procgen/dodgeball", _arena((1, 3), [(9, 9, 0, 1, 50)]), ["UP"])[0]
    assert tuple(np.asarray(locked[0].pos)) == (1, 3) and locked[1:] == (0.0, False, 0)
    s = _arena((2, 3), [], total=4, items=4)
    assert _text("procgen/dodgeball", s).grid.split("\n")[0] == "███◈██████████"
    steps = _play("procgen/dodgeball", s, ["UP", "UP"])
    assert steps[1][1:] == (pytest.approx(1 - 4 / 20), True, db.WIN)


# --- fruitbot ----------------------------------------------------------------------------------
def _shaft(you, cells=(), fruit=10, junk=10, hard=False):
    """An empty easy (hard) shaft with the given {(row, col): code}; `fruit`/`junk` = the level's totals."""
    env, _, reset = _env("procgen/fruitbot")
    s = reset(glyphjax.reset_key(0), env.default_params())
    lo = (fb.W - fb.WIDTH[hard]) // 2
    world = np.full((fb.H, fb.W), fb.EMPTY_C, np.int8)
    world[:, :lo] = world[:, lo + fb.WIDTH[hard]:] = fb.OUT_C
    world[fb.H - 1, lo:lo + fb.WIDTH[hard]] = fb.FINISH_C
    for (r, c), code in dict(cells).items():
        world[r, c] = code
    return s.replace(world=jnp.asarray(world), pos=jnp.array(you, jnp.int32), total=jnp.int32(fruit),
                     junk_total=jnp.int32(junk), items=jnp.int32(0), junk=jnp.int32(0), earned=jnp.float32(0))


def test_fruitbot__fruit_and_junk_pay_their_budget_shares_and_down_falls_two_rows():
    s = _shaft((10, 5), {(10, 6): fb.FRUIT_C, (11, 6): fb.JUNK_C, (12, 4): fb.FRUIT_C, (13, 4): fb.FRUIT_C})
    steps = _play("procgen/fruitbot", s, ["RIGHT", "LEFT", "LEFT", "DOWN"])
    # RIGHT: fruit at (10,6) then junk at (11,6); LEFT: (11,5) -> (12,5); LEFT: (12,4) fruit ->
    # (13,4) fruit; DOWN: (14,4), (15,4)
    assert steps[0][1] == pytest.approx(0.7 / 10 - 0.7 / 10) and steps[0][3] == fb.JUNKED
    assert steps[1][1] == 0.0
    assert steps[2][1] == pytest.approx(2 * 0.7 / 10) and steps[2][3] == fb.ATE
    assert tuple(np.asarray(steps[3][0].pos)) == (15, 4)
    assert (int(steps[3][0].items), int(steps[3][0].junk)) == (3, 1)
    assert int(steps[3][0].world[13, 4]) == fb.EMPTY_C


def test_fruitbot__a_barrier_ends_the_episode_and_the_finish_pays_0_3():
    crash = _play("procgen/fruitbot", _shaft((20, 5), {(21, 5): fb.BARRIER_C}), ["NOOP"])[0]
    assert crash[1:] == (0.0, True, fb.CRASH) and tuple(np.asarray(crash[0].pos)) == (20, 5)
    side = _play("procgen/fruitbot", _shaft((20, 5), {(20, 4): fb.BARRIER_C}), ["LEFT"])[0]
    assert side[1:] == (0.0, True, fb.CRASH)
    win = _play("procgen/fruitbot", _shaft((fb.H - 3, 5)), ["DOWN"])[0]
    assert win[1:] == (pytest.approx(0.3), True, fb.WIN) and tuple(np.asarray(win[0].pos)) == (fb.H - 1, 5)


def test_fruitbot__the_shaft_side_stops_you():
    (s1, r, term, _), = _play("procgen/fruitbot", _shaft((5, 2)), ["LEFT"])
    assert tuple(np.asarray(s1.pos)) == (6, 2) and (r, term) == (0.0, False)


def test_fruitbot__golden_view_from_three_rows_above_you():
    s = _shaft((1, 7), {(5, 3): fb.FRUIT_C, (8, 10): fb.JUNK_C})
    s = s.replace(world=s.world.at[12, 2:12].set(fb.BARRIER_C).at[12, 5].set(fb.EMPTY_C))
    rows = ["░" * 14] * 2 + ["░░" + " " * 10 + "░░"] * 18
    rows[2 + 1] = "░░     @    ░░"
    rows[2 + 5] = "░░ %        ░░"
    rows[2 + 8] = "░░        x ░░"
    rows[2 + 12] = "░░━━━ ━━━━━━░░"
    text = _text("procgen/fruitbot", s)
    assert text.grid == "\n".join(rows)
    assert text.hud.endswith("Fruit: 0 / 10    Junk: 0 / 10")


# --- generated levels --------------------------------------------------------------------------
def _levels(task_id, n=400):
    """Levels 1000..1000+n-1 from the generator the level banks use (compiled once per game)."""
    env = _env(task_id)[0]
    return level_generator(env.game)(jnp.arange(n, dtype=jnp.uint32) + 1000, env.default_params().hard)


@pytest.mark.parametrize("task_id", ["procgen/dodgeball", "procgen/dodgeball-hard"])
def test_dodgeball_levels__every_open_cell_and_the_exit_are_reachable_and_enemies_keep_away(task_id):
    s = _levels(task_id)
    world = np.asarray(s.world)
    seeds = jax.vmap(lambda p: jnp.zeros((db.H, db.W), bool).at[p[0], p[1]].set(True))(s.pos)
    reached = np.asarray(jax.jit(jax.vmap(flood))(seeds, s.world == db.EMPTY_C))
    for i in range(world.shape[0]):
        open_ = world[i] == db.EMPTY_C
        assert (reached[i] == open_).all(), f"{task_id} level {1000 + i}: sealed pocket"
        (dr, dc), = np.argwhere(world[i] == db.LOCKED_C)
        nbrs = [(dr + a, dc + b) for a, b in ((1, 0), (-1, 0), (0, 1), (0, -1))]
        assert any(0 <= r < db.H and 0 <= c < db.W and open_[r, c] for r, c in nbrs), f"level {1000 + i}: exit"
        alive = np.asarray(s.enemies.alive[i])
        assert 3 <= alive.sum() <= 6 and alive.sum() == int(s.total[i])
        d = np.abs(np.asarray(s.enemies.pos[i])[alive] - np.asarray(s.pos[i])).sum(1)
        assert (d > 3).all() and open_[tuple(np.asarray(s.enemies.pos[i])[alive].T)].all()


@pytest.mark.parametrize("task_id", ["procgen/fruitbot", "procgen/fruitbot-hard"])
def test_fruitbot_levels__each_gap_lies_within_reach_of_the_previous_one(task_id):
    s = _levels(task_id)
    world = np.asarray(s.world)
    hard = task_id.endswith("-hard")
    for i in range(world.shape[0]):
        rows = [r for r in range(fb.H) if (world[i, r] == fb.BARRIER_C).any()]
        assert len(rows) == fb.BARRIERS[hard] and min(np.diff([0] + rows)) >= fb.MIN_SEP
        prev = fb.START_COL
        for r in rows:
            gap = np.flatnonzero(world[i, r] != fb.BARRIER_C)
            gap = gap[world[i, r, gap] != fb.OUT_C]
            assert len(gap) >= 1 and gap.max() - gap.min() == len(gap) - 1
            assert abs(int(gap.min()) - prev) <= fb.GAP_SHIFT, f"{task_id} level {1000 + i} row {r}"
            prev = int(gap.min())
        assert 10 <= int(s.total[i]) == (world[i] == fb.FRUIT_C).sum() <= 19
        assert 10 <= int(s.junk_total[i]) == (world[i] == fb.JUNK_C).sum() <= 19
