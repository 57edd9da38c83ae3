"""Procgen shooters (starpilot, bossfight, plunder, caveflyer) on hand-set states: shots, hits,
scoring, death, timers, drift physics and golden frames, every expected value worked out from
the rules in the game's docstring; then level determinism and scripted policies beating random."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core import entities
from glyphjax.core.rollout import random_policy
from glyphjax.suites.procgen import bossfight, caveflyer, plunder, starpilot
from glyphjax.suites.procgen.planner import single_level

KEY = glyphjax.step_key(0, 0)


@functools.cache
def _env(task_id):
    env = glyphjax.make(task_id)
    return env, jax.jit(env.step), jax.jit(env.reset)


def _fresh(task_id, level=3):
    env, _, reset = _env(task_id)
    return reset(glyphjax.reset_key(0), single_level(env.default_params(), level))


def _play(task_id, state, actions):
    """-> list of (state, reward, terminated, event) after each action name."""
    env, step, _ = _env(task_id)
    out = []
    for t, a in enumerate(actions):
        state, tr = step(glyphjax.step_key(1, t), state, env.card.action_index(a))
        out.append((state, float(tr.reward), bool(tr.terminated), int(tr.event)))
    return out


def _text(task_id, state):
    env = _env(task_id)[0]
    return glyphjax.render_text(env.card, env.render(state))


def _pool(n, cells, vels, kinds=None, timers=None):
    """A pool of n slots with the first len(cells) alive at the given cells."""
    k = len(cells)
    pos = np.zeros((n, 2), np.int32)
    vel = np.zeros((n, 2), np.int32)
    if k:
        pos[:k], vel[:k] = cells, vels
    kind = np.zeros(n, np.int32)
    timer = np.zeros(n, np.int32)
    if kinds is not None:
        kind[:k] = kinds
    if timers is not None:
        timer[:k] = timers
    return entities.Pool(pos=jnp.asarray(pos), vel=jnp.asarray(vel), kind=jnp.asarray(kind),
                         alive=jnp.arange(n) < k, timer=jnp.asarray(timer))


def _row(width, marks):
    """A grid row of spaces with the given {col: glyph}."""
    cells = [" "] * width
    for c, g in marks.items():
        cells[c] = g
    return "".join(cells)


# --- starpilot --------------------------------------------------------------------------------
def _sky(fighter_cell=(6, 8), vel=(0, -1), timer=0, hp=2):
    s = _fresh("procgen/starpilot")
    foes = _pool(starpilot.SLOTS, [fighter_cell], [vel], [starpilot.FIGHTER_L], [timer])
    hp_arr = jnp.zeros((starpilot.SLOTS,), jnp.int32).at[0].set(hp)
    return s.replace(foes=foes, hp=hp_arr, arrive=jnp.full((starpilot.SLOTS,), 10_000, jnp.int32),
                     total=jnp.int32(1), pos=jnp.array([6, 2], jnp.int32))


def test_starpilot__two_shots_destroy_a_fighter_and_pay_0_8_over_n():
    steps = _play("procgen/starpilot", _sky(), ["FIRE", "FIRE", "NOOP"])
    # t=0: the shot flies (6,2)->(6,4), the fighter moves (period 2) to (6,7); t=1: a second shot,
    # the first reaches (6,6), the fighter waits; t=2: the fighter steps onto (6,6), on both paths
    blank = " " * 20
    frame = [blank] * 6 + [_row(20, {2: "@", 4: "•", 6: "•", 7: "◀"})] + [blank] * 5
    assert _text("procgen/starpilot", steps[1][0]).grid == "\n".join(frame)
    assert [x[1] for x in steps[:2]] == [0.0, 0.0]
    assert steps[2][1] == pytest.approx(0.8) and steps[2][3] == starpilot.KILL and not steps[2][2]
    assert int(steps[2][0].items) == 1 and not bool(steps[2][0].foes.alive[0])
    assert _text("procgen/starpilot", steps[2][0]).hud.endswith("Destroyed: 1 / 1")


def test_starpilot__an_aimed_shot_kills_unless_you_dodge():
    sitting = _sky(fighter_cell=(6, 8), vel=(0, 0), timer=1)
    # fired at t=0 from (6,8) towards you at (6,2); easy shots move on even turns: (6,2) at t=12
    steps = _play("procgen/starpilot", sitting, ["NOOP"] * 13)
    assert not any(x[2] for x in steps[:12])
    assert steps[12][1:] == (-1.0, True, starpilot.SHOT_DOWN)
    dodge = _play("procgen/starpilot", sitting, ["NOOP"] * 11 + ["UP", "NOOP"])
    assert not any(x[2] for x in dodge) and tuple(np.asarray(dodge[-1][0].pos)) == (5, 2)


def test_starpilot__the_finish_line_scrolls_in_and_wins_at_your_column():
    s = _sky().replace(foes=_pool(starpilot.SLOTS, [], []), t=jnp.int32(starpilot.FINISH_T))
    # enters at column 19 on turn 170, one column left on every even turn: column 2 on turn 204
    steps = _play("procgen/starpilot", s, ["NOOP"] * 35)
    assert int(steps[0][0].finish) == 19 and not any(x[2] for x in steps[:34])
    assert steps[34][1:] == (pytest.approx(0.2), True, starpilot.WIN)


# --- bossfight --------------------------------------------------------------------------------
def _arena(shields=True, left=3, rounds=2, items=0, total=6):
    s = _fresh("procgen/bossfight")
    rocks = _pool(bossfight.N_ROCKS, [(7, 4)], [(0, 0)], timers=[3])
    return s.replace(t=jnp.int32(1), boss=jnp.array([2, 10], jnp.int32), dest=jnp.array([2, 10], jnp.int32),
                     shields=jnp.bool_(shields), shield_time=jnp.int32(50), round=jnp.int32(0),
                     left=jnp.int32(left), rounds=jnp.int32(rounds), round_hp=jnp.int32(3),
                     modes=jnp.zeros((bossfight.MAX_ROUNDS,), jnp.int32), rocks=rocks,
                     bolts=entities.empty(bossfight.N_BOLTS), items=jnp.int32(items), total=jnp.int32(total),
                     earned=jnp.float32(0.5 * items / total), pos=jnp.array([5, 10], jnp.int32))


def test_bossfight__golden_frame_with_shields_up():
    s = _arena().replace(pos=jnp.array([11, 10], jnp.int32))
    blank = " " * 20
    boss = _row(20, {9: "◙", 10: "◙", 11: "◙"})
    frame = [blank, boss, boss, boss, blank, blank, blank, _row(20, {4: "⬟"}), blank, blank, blank,
             _row(20, {10: "@"})]
    text = _text("procgen/bossfight", s)
    assert text.grid == "\n".join(frame)
    assert text.hud.endswith("Boss hits: 0 / 6")


def test_bossfight__shots_glance_off_shields_and_count_once_they_drop():
    # a shot from (5,10) flies 2 cells up onto (3,10), the boss's bottom row, in the same turn
    up = _play("procgen/bossfight", _arena(shields=True), ["FIRE"])[0]
    assert up[1] == 0.0 and int(up[0].items) == 0 and up[3] == 0
    down = _play("procgen/bossfight", _arena(shields=False), ["FIRE"])[0]
    assert down[1] == pytest.approx(0.5 / 6) and down[3] == bossfight.HIT and int(down[0].left) == 2
    round_end = _play("procgen/bossfight", _arena(shields=False, left=1, items=2), ["FIRE"])[0]
    assert round_end[3] == bossfight.ROUND and bool(round_end[0].shields) and int(round_end[0].round) == 1
    assert int(round_end[0].left) == 3 and not round_end[2]


def test_bossfight__the_last_hit_destroys_the_boss_for_the_remaining_half():
    last = _play("procgen/bossfight", _arena(shields=False, left=1, rounds=1, items=5), ["FIRE"])[0]
    assert last[1] == pytest.approx(0.5 / 6 + 0.5) and last[2:] == (True, bossfight.WIN)
    assert float(last[0].earned) == pytest.approx(1.0)


def test_bossfight__an_enemy_shot_or_an_asteroid_kills():
    s = _arena().replace(t=jnp.int32(2), pos=jnp.array([11, 15], jnp.int32),
                         bolts=_pool(bossfight.N_BOLTS, [(10, 15)], [(1, 0)]))
    assert _play("procgen/bossfight", s, ["NOOP"])[0][1:] == (-1.0, True, bossfight.SHOT_DOWN)
    rock = _arena().replace(pos=jnp.array([6, 4], jnp.int32))
    assert _play("procgen/bossfight", rock, ["DOWN"])[0][1:] == (-1.0, True, bossfight.ROCK_CRASH)


def test_bossfight__an_asteroid_breaks_after_three_shots():
    s = _arena().replace(pos=jnp.array([11, 4], jnp.int32), boss=jnp.array([2, 15], jnp.int32),
                         dest=jnp.array([2, 15], jnp.int32))
    # FIRE at most every 2nd turn; each shot needs 2 turns from row 11 to the asteroid on row 7
    steps = _play("procgen/bossfight", s, ["FIRE", "FIRE", "FIRE", "FIRE", "FIRE", "FIRE"])
    hits_left = [int(x[0].rocks.timer[0]) for x in steps]
    assert hits_left[:5] == [3, 2, 2, 1, 1] and not bool(steps[5][0].rocks.alive[0])


# --- plunder ----------------------------------------------------------------------------------
def _harbour(kind=plunder.ENEMY, timer=100, items=0):
    s = _fresh("procgen/plunder")
    ships = _pool(plunder.N_SHIPS, [(5, 10)], [(0, 1)], [kind])
    return s.replace(t=jnp.int32(1), ships=ships, lane_period=jnp.full((plunder.LANES,), 1000, jnp.int32),
                     timer=jnp.int32(timer), items=jnp.int32(items), earned=jnp.float32(items / 20),
                     pos=jnp.array([11, 10], jnp.int32), panels=jnp.zeros((12, 20), bool))


def test_plunder__golden_frame_and_up_does_nothing():
    s = _harbour().replace(panels=jnp.zeros((12, 20), bool).at[7, 3:5].set(True),
                           ships=_pool(plunder.N_SHIPS, [(5, 10), (2, 0)], [(0, 1), (0, 1)],
                                       [plunder.ENEMY, plunder.FRIEND]))
    blank = " " * 20
    frame = [blank, blank, _row(20, {0: "♥"}), blank, blank, _row(20, {10: "♠"}), blank,
             _row(20, {3: "▬", 4: "▬"}), blank, blank, blank, _row(20, {10: "@"})]
    text = _text("procgen/plunder", s)
    assert text.grid == "\n".join(frame)
    assert text.hud.endswith("Sunk: 0 / 20    Timer: 100")
    up = _play("procgen/plunder", s, ["UP"])[0]
    assert tuple(np.asarray(up[0].pos)) == (11, 10) and int(up[0].timer) == 99


def test_plunder__sinking_an_enemy_pays_and_refills_the_timer():
    # the ball flies (11,10)->(9,10)->(7,10)->(5,10): the ship's cell on the third turn
    steps = _play("procgen/plunder", _harbour(), ["FIRE", "NOOP", "NOOP"])
    assert [int(x[0].timer) for x in steps] == [94, 93, 117]  # -1 a turn, -5 the shot, +25 the hit
    assert [x[1] for x in steps] == [0.0, 0.0, pytest.approx(0.05)] and steps[2][3] == plunder.SUNK
    assert not bool(steps[2][0].ships.alive[0])


def test_plunder__a_friendly_ship_costs_time_not_reward():
    steps = _play("procgen/plunder", _harbour(kind=plunder.FRIEND), ["FIRE", "NOOP", "NOOP"])
    assert int(steps[2][0].timer) == 93 - 1 - 25 and steps[2][1] == 0.0 and steps[2][3] == plunder.FRIENDLY


def test_plunder__the_twentieth_enemy_wins_and_time_running_out_ends_it():
    won = _play("procgen/plunder", _harbour(items=19), ["FIRE", "NOOP", "NOOP"])[2]
    assert won[1:] == (pytest.approx(0.05), True, plunder.WIN) and float(won[0].earned) == pytest.approx(1.0)
    out = _play("procgen/plunder", _harbour(timer=1), ["NOOP"])[0]
    assert out[1:] == (0.0, True, plunder.TIMEOUT)


# --- caveflyer --------------------------------------------------------------------------------
def _cave(extra=()):
    """An open 10 x 12 room (rows 1-10, columns 1-12) in rock; you at (5,5) heading right."""
    w = np.full((caveflyer.S, caveflyer.S), caveflyer.ROCK_C, np.int8)
    w[1:11, 1:13] = caveflyer.EMPTY_C
    for (r, c), code in extra:
        w[r, c] = code
    s = _fresh("procgen/caveflyer")
    return s.replace(world=jnp.asarray(w), pos=jnp.array([5, 5], jnp.int32), heading=jnp.int32(2),
                     vel=jnp.zeros((2,), jnp.int32), mines=entities.empty(caveflyer.N_OBJ),
                     shots=entities.empty(caveflyer.N_SHOTS), total=jnp.int32(2), items=jnp.int32(0))


def test_caveflyer__thrust_drift_turns_and_walls():
    steps = _play("procgen/caveflyer", _cave(), ["UP", "NOOP", "LEFT", "UP", "DOWN", "RIGHT", "UP", "NOOP", "NOOP", "NOOP"])
    path = [tuple(int(v) for v in x[0].pos) for x in steps]
    # drift right; turn to up-right and thrust: drift up-right; back-thrust cancels it; turn right,
    # thrust and drift right until the wall at column 13 stops you on column 12
    assert path == [(5, 6), (5, 7), (5, 8), (4, 9), (4, 9), (4, 9), (4, 10), (4, 11), (4, 12), (4, 12)]
    assert _text("procgen/caveflyer", steps[3][0]).hud.endswith("Heading: up-right    Drift: up-right")
    assert _text("procgen/caveflyer", steps[9][0]).hud.endswith("Heading: right    Drift: none")


def test_caveflyer__golden_view_centred_on_you():
    s = _cave([((5, 8), caveflyer.TARGET_C), ((3, 3), caveflyer.METEOR_C), ((9, 11), caveflyer.EXIT_C)])
    # window rows -1..10, columns -5..14: row -1 and columns -5..-1 lie outside the world
    rows = []
    for r in range(-1, 11):
        line = ""
        for c in range(-5, 15):
            if r < 0 or c < 0:
                line += "░"
            elif (r, c) == (5, 5):
                line += "@"
            elif (r, c) == (5, 8):
                line += "⊗"
            elif (r, c) == (3, 3):
                line += "◎"
            elif (r, c) == (9, 11):
                line += "◈"
            else:
                line += " " if 1 <= r <= 10 and 1 <= c <= 12 else "█"
        rows.append(line)
    text = _text("procgen/caveflyer", s)
    assert text.grid == "\n".join(rows)
    assert text.hud.endswith("Targets: 0 / 2    Heading: right    Drift: none")


def test_caveflyer__a_shot_destroys_the_first_target_it_reaches():
    s = _cave([((5, 8), caveflyer.TARGET_C), ((5, 10), caveflyer.TARGET_C)])
    steps = _play("procgen/caveflyer", s, ["FIRE", "NOOP", "NOOP"])
    # the shot starts on you and flies 2 cells a turn: (5,7), then (5,9) over the target at (5,8)
    assert steps[0][1] == 0.0 and steps[1][1] == pytest.approx(0.2) and steps[1][3] == caveflyer.KILL
    assert int(steps[1][0].world[5, 8]) == caveflyer.EMPTY_C and int(steps[1][0].world[5, 10]) == caveflyer.TARGET_C
    assert not bool(steps[1][0].shots.alive.any())


def test_caveflyer__meteors_kill_and_the_exit_wins():
    meteor = _play("procgen/caveflyer", _cave([((5, 6), caveflyer.METEOR_C)]), ["UP"])[0]
    assert meteor[1:] == (-1.0, True, caveflyer.METEOR_HIT)
    goal = _play("procgen/caveflyer", _cave([((5, 7), caveflyer.EXIT_C)]), ["UP", "NOOP"])
    assert goal[0][2] is False and goal[1][1:] == (pytest.approx(0.6), True, caveflyer.WIN)


# --- levels and policies ----------------------------------------------------------------------
SHOOTERS = ("starpilot", "bossfight", "plunder", "caveflyer")
ARENA = ("dodgeball", "fruitbot")  # test_arena.py's games: their level and policy checks are these


@pytest.mark.parametrize("game", SHOOTERS + ARENA)
def test_shooter_levels__same_seed_same_level_and_n_levels_are_n(game):
    env, _, _ = _env(f"procgen/{game}-hard")
    reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(300, dtype=jnp.uint32))  # one batch shape: one compile
    one = reset(keys, single_level(env.default_params(), 777))
    for leaf in jax.tree.leaves(one):
        assert (np.asarray(leaf) == np.asarray(leaf)[:1]).all()
    many = reset(keys, env.with_levels(5).default_params())
    flat = np.concatenate([np.asarray(x).reshape(300, -1).astype(np.int64) for x in jax.tree.leaves(many)], 1)
    assert len({row.tobytes() for row in flat}) == 5 and set(np.asarray(many.level).tolist()) == set(range(5))


@pytest.mark.parametrize("game", SHOOTERS + ARENA)
def test_shooter_scripted_policy__beats_random_play(game):
    env, _, _ = _env(f"procgen/{game}")
    seeds = jnp.arange(64, dtype=jnp.uint32)
    scripted = glyphjax.rollout(env, env.scripted_policy, seeds).returns.mean()
    rand = glyphjax.rollout(env, random_policy(env.card.num_actions), seeds).returns.mean()
    assert scripted > rand + 0.2, f"{game}: scripted {scripted:.3f} vs random {rand:.3f}"
