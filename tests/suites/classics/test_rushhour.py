"""Rush Hour: sliding/blocking rules, exit win, -1/T accounting, golden board, BFS certification."""

from collections import deque

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.types import init_state_fields
from glyphjax.suites.classics.rushhour import RushState

IDS = ["classics/rushhour-easy", "classics/rushhour-hard"]
S = 6


def solve(pos, length, horiz):
    """Independent host BFS over vehicle positions: fewest moves until X (vehicle 0) has its
    left cell on column 4 (front on the right edge), or None if impossible."""
    start = tuple(map(tuple, pos))

    def occ(st):
        g = [[-1] * S for _ in range(S)]
        for i, (r, c) in enumerate(st):
            for k in range(length[i]):
                if horiz[i]:
                    g[r][c + k] = i
                else:
                    g[r + k][c] = i
        return g

    seen = {start: 0}
    q = deque([start])
    while q:
        st = q.popleft()
        if st[0][1] == S - 2:
            return seen[st]
        g = occ(st)
        for i, (r, c) in enumerate(st):
            for d in (1, -1):
                if horiz[i]:
                    t = c + length[i] if d == 1 else c - 1
                    if not 0 <= t < S or g[r][t] != -1:
                        continue
                    nxt = (r, c + d)
                else:
                    t = r + length[i] if d == 1 else r - 1
                    if not 0 <= t < S or g[t][c] != -1:
                        continue
                    nxt = (r + d, c)
                ns = st[:i] + (nxt,) + st[i + 1:]
                if ns not in seen:
                    seen[ns] = seen[st] + 1
                    q.append(ns)
    return None


def hand_state(rows, letters):
    """6 board rows; '.' empty, letters = vehicles in index order (X first)."""
    g = np.array([list(r) for r in rows])
    pos, length, horiz = [], [], []
    for c in letters:
        cells = np.argwhere(g == c)
        pos.append(cells[0])
        length.append(len(cells))
        horiz.append(bool(cells[0][0] == cells[-1][0]))
    return RushState(**init_state_fields(), pos=jnp.asarray(np.array(pos), jnp.int32),
                     length=jnp.asarray(length, jnp.int32), horiz=jnp.asarray(horiz),
                     moves=jnp.int32(0))


def board(env, st):
    return glyphjax.render_text(env.card, env.render(st)).grid


def act(env, name):
    return jnp.int32(env.card.actions.index(name))


@pytest.mark.parametrize("task_id", IDS)
def test_rushhour__every_start_is_solvable_and_not_solved_on_1000_seeds(task_id):
    env = glyphjax.make(task_id)
    n = env.n
    states = jax.device_get(jax.jit(jax.vmap(env.reset))(
        jax.vmap(glyphjax.reset_key)(jnp.arange(1000, dtype=jnp.uint32))))
    lengths = []
    for seed in range(1000):
        pos = states.pos[seed].tolist()
        length, horiz = states.length[seed].tolist(), states.horiz[seed].tolist()
        assert len(pos) == n and pos[0][0] == 2 and horiz[0] and length[0] == 2, f"{task_id} seed {seed}: X {pos[0]}"
        assert all(L in (2, 3) for L in length), f"{task_id} seed {seed}: lengths {length}"
        cells = [(r + (0 if h else k), c + (k if h else 0)) for (r, c), L, h in zip(pos, length, horiz) for k in range(L)]
        assert len(set(cells)) == len(cells) and all(0 <= r < S and 0 <= c < S for r, c in cells), (
            f"{task_id} seed {seed}: overlapping or off-board vehicles {pos}")
        k = solve(pos, length, horiz)
        assert k is not None, f"{task_id} seed {seed}: unsolvable"
        assert 1 <= k < env.card.max_steps, f"{task_id} seed {seed}: optimal solution {k} moves"
        lengths.append(k)
    mean = float(np.mean(lengths))
    print(f"{task_id}: mean optimal length {mean:.2f}, max {max(lengths)}")
    assert mean >= {"classics/rushhour-easy": 3.0, "classics/rushhour-hard": 4.5}[task_id], (
        f"{task_id}: puzzles too easy (mean optimum {mean})")


def test_rushhour__slides_one_cell_along_axis_and_blocked_moves_are_free():
    env = glyphjax.make("classics/rushhour-easy")
    s = hand_state(["......",
                    "..A...",
                    "XXA...",
                    "BBB...",
                    ".C....",
                    ".C.DD."], "XABCD")
    # X forward is blocked by A: no-op, free
    s1, tr = env.step(glyphjax.step_key(0, 0), s, act(env, "MOVE_X_FWD"))
    assert s1.pos.tolist() == s.pos.tolist() and float(tr.reward) == 0.0 and int(s1.moves) == 0
    # X back is blocked by the wall
    s1, tr = env.step(glyphjax.step_key(0, 1), s, act(env, "MOVE_X_BACK"))
    assert s1.pos.tolist() == s.pos.tolist() and float(tr.reward) == 0.0
    # A (vertical) up one cell: moves, costs 1/T
    s1, tr = env.step(glyphjax.step_key(0, 2), s, act(env, "MOVE_A_BACK"))
    assert s1.pos[1].tolist() == [0, 2] and float(tr.reward) == pytest.approx(-1 / 100) and int(s1.moves) == 1
    # A up again: wall
    s2, tr = env.step(glyphjax.step_key(0, 3), s1, act(env, "MOVE_A_BACK"))
    assert s2.pos[1].tolist() == [0, 2] and float(tr.reward) == 0.0 and int(s2.moves) == 1
    # C (vertical, rows 4-5) down: wall; up: blocked by the truck B
    for name in ("MOVE_C_FWD", "MOVE_C_BACK"):
        s2, tr = env.step(glyphjax.step_key(0, 4), s, act(env, name))
        assert s2.pos.tolist() == s.pos.tolist() and float(tr.reward) == 0.0, name
    # truck B (horizontal) right: one cell; D right: one cell, then the wall
    s2, _ = env.step(glyphjax.step_key(0, 5), s, act(env, "MOVE_B_FWD"))
    assert s2.pos[2].tolist() == [3, 1]
    s2, _ = env.step(glyphjax.step_key(0, 6), s, act(env, "MOVE_D_FWD"))
    s3, tr = env.step(glyphjax.step_key(0, 7), s2, act(env, "MOVE_D_FWD"))
    assert s2.pos[4].tolist() == [5, 4] and s3.pos[4].tolist() == [5, 4] and float(tr.reward) == 0.0
    # NO_ACTION is free
    s2, tr = env.step(glyphjax.step_key(0, 8), s, jnp.int32(glyphjax.NO_ACTION))
    assert s2.pos.tolist() == s.pos.tolist() and float(tr.reward) == 0.0 and int(s2.moves) == 0


def test_rushhour__golden_board_exit_win_and_return_accounting():
    env = glyphjax.make("classics/rushhour-easy")
    s = hand_state(["...B..",
                    "...B..",
                    "XX.B.D",
                    "AA...D",
                    "....CC",
                    "......"], "XABCD")
    assert board(env, s) == ("████████\n"
                             "█···B··█\n"
                             "█···B··█\n"
                             "█XX·B·D⌧\n"
                             "█AA···D█\n"
                             "█····CC█\n"
                             "█······█\n"
                             "████████")
    # by hand: truck B must go down 3 (up is the wall), D up 2 (C blocks it below), X forward 4
    assert solve(s.pos.tolist(), s.length.tolist(), s.horiz.tolist()) == 9
    plan = ["MOVE_X_BACK",  # wall: free no-op
            "MOVE_B_FWD", "MOVE_B_FWD", "MOVE_B_FWD",  # B to rows 3-5
            "MOVE_C_BACK",  # col 3 of row 4 is now B: free no-op
            "MOVE_D_BACK", "MOVE_D_BACK",  # D to rows 0-1
            "MOVE_X_FWD", "MOVE_X_FWD", "MOVE_X_FWD",  # X to cols 3-4
            "MOVE_X_FWD"]  # X to cols 4-5: exits
    total, t = 0.0, 0
    for t, name in enumerate(plan[:-1]):
        s, tr = env.step(glyphjax.step_key(0, t), s, act(env, name))
        total += float(tr.reward)
        assert not bool(tr.terminated), f"step {t} {name}"
    assert board(env, s) == ("████████\n"
                             "█·····D█\n"
                             "█·····D█\n"
                             "█···XX·⌧\n"
                             "█AA·B··█\n"
                             "█···BCC█\n"
                             "█···B··█\n"
                             "████████")
    assert int(s.moves) == 8 and total == pytest.approx(-8 / 100)
    s, tr = env.step(glyphjax.step_key(0, t + 1), s, act(env, plan[-1]))
    total += float(tr.reward)
    assert bool(tr.terminated) and float(tr.reward) == 1.0 and int(tr.event) == 1
    assert total == pytest.approx(1 - 8 / 100)  # 9 moves: 8 charged, +1 instead on the winning one
    assert board(env, s).splitlines()[3] == "█····XX⌧"
    # the episode is frozen after the win
    s2, tr = env.step(glyphjax.step_key(0, 99), s, act(env, "MOVE_X_BACK"))
    assert float(tr.reward) == 0.0 and s2.pos.tolist() == s.pos.tolist()


def test_rushhour__return_stays_in_range_under_random_play():
    for task_id in IDS:
        env = glyphjax.make(task_id)
        seeds = jnp.arange(64, dtype=jnp.uint32)
        pol = lambda key, state, params: jax.random.randint(key, (), 0, env.card.num_actions)
        res = jax.device_get(glyphjax.rollout(env, pol, seeds))
        ret = np.asarray(res.returns)
        assert (ret >= -1.0 - 1e-6).all() and (ret <= 1.0 + 1e-6).all(), f"{task_id}: returns {ret.min()}..{ret.max()}"


def test_rushhour__action_list_is_fixed_per_task():
    easy, hard = glyphjax.make(IDS[0]), glyphjax.make(IDS[1])
    assert easy.card.actions == ("MOVE_X_FWD", "MOVE_X_BACK", "MOVE_A_FWD", "MOVE_A_BACK", "MOVE_B_FWD",
                                 "MOVE_B_BACK", "MOVE_C_FWD", "MOVE_C_BACK", "MOVE_D_FWD", "MOVE_D_BACK")
    assert len(hard.card.actions) == 18 and hard.card.actions[-2:] == ("MOVE_H_FWD", "MOVE_H_BACK")


@pytest.mark.parametrize("task_id", IDS)
def test_rushhour__fallback_layout_is_legal_and_solvable(task_id):
    # used by a candidate only when a vehicle finds no free spot (0 of 8,000 candidates observed)
    env = glyphjax.make(task_id)
    pos, length, horiz = (np.asarray(x).tolist() for x in env._fallback())
    cells = [(r + (0 if h else k), c + (k if h else 0)) for (r, c), L, h in zip(pos, length, horiz) for k in range(L)]
    assert len(set(cells)) == len(cells) and all(0 <= r < S and 0 <= c < S for r, c in cells), f"{task_id}: {pos}"
    assert pos[0] == [2, 0] and horiz[0] and solve(pos, length, horiz) == 4, f"{task_id}: {pos}"
