"""The WITNESS engine's mechanics on hand-made levels: hidden mapping, refusals, retraction,
RESET, budgets and run termination, level advance and the score paid as reward."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.grid import DIR_OFFSETS
from glyphjax.witness.engine import CONFIRM, RESET, Witness
from glyphjax.witness.layout import BUDGET, Level, game_params
from glyphjax.witness.primitives.mapping import inverse
from tests.witness.helpers import play

OPEN = Level(board=("S..", "...", "..E"), rules=("hexagon",), solution=(3, 3, 1, 1))
HEX = Level(board=("S.H.", "....", "...E"), rules=("hexagon",), solution=(3, 3, 1, 1, 3))


def _head(state) -> tuple[int, int]:
    flat = int(state.path[int(state.path_len) - 1])
    return flat // 5, flat % 5


def test_mapping__each_action_moves_in_its_hidden_direction():
    sigma = (3, 0, 2, 1)  # A1 right, A2 up, A3 left, A4 down
    centre = Level(board=("...", ".S.", "..E"), rules=())
    for a, letter in enumerate("UDLR"):
        state, events, _, _ = play(centre, letter, sigma=sigma)
        want = (1 + DIR_OFFSETS[sigma[a]][0], 1 + DIR_OFFSETS[sigma[a]][1])
        assert events == ["moved"] and _head(state) == want, f"A{a + 1}: head {_head(state)}, want {want}"


def test_refused_move__counts_an_action_and_changes_nothing_else():
    before, _, _, board0 = play(OPEN, "R")
    after, events, rewards, board1 = play(OPEN, "RU")  # up from row 0: off the board
    assert events[-1] == "refused" and rewards == [0.0, 0.0] and board0 == board1
    assert int(after.used) == int(before.used) + 1
    assert (np.asarray(after.path) == np.asarray(before.path)).all() and int(after.path_len) == 2
    _, events, _, _ = play(OPEN, "RRLL")  # stepping back onto the previous cell retracts, twice
    assert events == ["moved", "moved", "retracted", "retracted"]
    _, events, _, _ = play(OPEN, "RDLU")  # back into the start cell, not the previous one
    assert events[-1] == "refused"


def test_reset__clears_the_path_and_costs_one_action():
    state, events, _, board = play(OPEN, "RRDX")
    assert events[-1] == "reset" and int(state.path_len) == 1 and int(state.used) == 4
    assert board == "@..\n...\n..E"


def test_budget__300_refused_moves_fail_the_run_and_leave_later_levels_unsolved():
    state, events, rewards, _ = play([OPEN, OPEN], "U" * BUDGET)
    assert events[-1] == "failed: the level's action budget is spent" and events[-2] == "refused"
    assert bool(state.done) and bool(state.failed) and not np.asarray(state.solved).any()
    assert sum(rewards) == 0.0


def test_levels__solving_moves_to_the_next_level_and_pays_the_score_increase():
    # level 1 solved optimally (5 actions, e = 1); level 2 in 14 actions against 6: e = (6/14)^2.
    # Weights 1 and 2 over W = 3: the score goes 0 -> 1/3 -> (1 + 2 e) / 3.
    state, events, rewards, board = play([OPEN, HEX], "RRDDC" + "DDRRRUU" + "X" + "RRDDR" + "C")
    assert events[4] == "solved: next level" and events[-1] == "solved: every level of the game is solved"
    assert list(np.asarray(state.actions_at_solve)[:2]) == [5, 14]
    e2 = (6 / 14) ** 2
    np.testing.assert_allclose([r for r in rewards if r], [1 / 3, 2 * e2 / 3], rtol=1e-5)
    np.testing.assert_allclose(sum(rewards), (1 + 2 * e2) / 3, rtol=1e-5)
    assert bool(state.done) and not bool(state.failed)


def test_confirm_off_exit__marks_the_head_and_keeps_the_path():
    state, events, _, board = play(OPEN, "RC")
    assert events[-1].startswith("rejected") and board == "S!.\n...\n..E" and int(state.path_len) == 2
    _, _, _, board = play(OPEN, "RCD")  # the marks last one observation
    assert board == "So.\n.@.\n..E"


def test_scripted_policy__replays_the_stored_solution_through_the_mapping():
    sigma = (2, 3, 0, 1)
    params = game_params([OPEN, HEX], sigma)
    env = Witness("witness/test-scripted", params, "fixture")
    key = jax.random.PRNGKey(0)
    state = env.reset(key)
    policy, step = jax.jit(env.scripted_policy), jax.jit(lambda s, a: env.step(key, s, a))
    actions = []
    while not bool(state.done) and len(actions) < 40:
        a = int(policy(key, state, params))
        actions.append(a)
        state, _ = step(state, jnp.int32(a))
    inv = inverse(sigma)
    want = [inv[d] for d in OPEN.solution] + [CONFIRM] + [inv[d] for d in HEX.solution] + [CONFIRM]
    assert actions == want and bool(state.solved[:2].all()) and RESET not in actions
