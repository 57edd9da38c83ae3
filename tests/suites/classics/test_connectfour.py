"""Connect Four (classics/connectfour against the AI through `versus`; classics/connectfour-2p):
drops, four-in-a-row in all directions, AI rule, draw, two-seat rules and per-seat views."""

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics.connectfour import ai_choice, four_in_a_row
from tests.seat_checks import random_legal_play, seat_views, state_with

ENV = glyphjax.make("classics/connectfour")
STEP = jax.jit(ENV.step)  # one compile per module; eager stepping is slow


def with_board(state, board):
    return state.replace(game=state.game.replace(board=jnp.asarray(board, jnp.int32)))


def py_four(mask):
    """Independent reference: scan every start cell and direction."""
    for r in range(6):
        for c in range(7):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= y < 6 and 0 <= x < 7 and mask[y, x] for y, x in cells):
                    return True
    return False


def test_connectfour__four_in_a_row_each_direction():
    for cells in ([(5, 0), (5, 1), (5, 2), (5, 3)], [(2, 6), (3, 6), (4, 6), (5, 6)],
                  [(0, 0), (1, 1), (2, 2), (3, 3)], [(2, 6), (3, 5), (4, 4), (5, 3)],
                  [(0, 3), (1, 2), (2, 1), (3, 0)]):
        m = np.zeros((6, 7), bool)
        for rc in cells:
            m[rc] = True
        assert bool(four_in_a_row(jnp.asarray(m))), f"classics/connectfour: missed {cells}"
        m[cells[1]] = False
        assert not bool(four_in_a_row(jnp.asarray(m))), f"classics/connectfour: false win {cells}"


def test_connectfour__four_in_a_row_matches_reference_on_random_boards():
    rng = np.random.default_rng(0)
    masks = rng.random((2000, 6, 7)) < 0.35
    got = np.asarray(jax.vmap(four_in_a_row)(jnp.asarray(masks)))
    want = np.array([py_four(m) for m in masks])
    assert (got == want).all(), f"mismatch on boards {np.flatnonzero(got != want)[:5]}"
    assert want.any() and not want.all()


def test_connectfour__ai_wins_else_blocks():
    b = np.zeros((6, 7), np.int32)
    b[5, 0:3] = 1  # you threaten column 3
    for seed in range(10):
        assert int(jax.jit(ai_choice)(jax.random.PRNGKey(seed), jnp.asarray(b))) == 3
    b[4, 4:7] = 2  # the AI can win at (4, 3)? needs support at (5, 3): empty -> lands at row 5
    b[5, 4:7] = 1
    # column 3 drop lands at (5,3): you threaten there; the AI at (5,3) does not win (row 4 needs (4,3))
    for seed in range(10):
        assert int(jax.jit(ai_choice)(jax.random.PRNGKey(seed), jnp.asarray(b))) == 3
    b2 = np.zeros((6, 7), np.int32)
    b2[5, 6] = 1; b2[4, 6] = 1; b2[3, 6] = 1  # you threaten column 6 vertically
    b2[5, 1] = 2; b2[4, 1] = 2; b2[3, 1] = 2  # AI wins in column 1: winning beats blocking
    for seed in range(10):
        assert int(jax.jit(ai_choice)(jax.random.PRNGKey(seed), jnp.asarray(b2))) == 1


def test_connectfour__full_column_is_noop_and_gravity():
    s = ENV.reset(glyphjax.reset_key(0))
    b = np.zeros((6, 7), np.int32)
    b[:, 2] = [1, 2, 1, 2, 1, 2]
    s = with_board(s, b)
    s2, tr = STEP(glyphjax.step_key(0, 0), s, 2)
    np.testing.assert_array_equal(s2.game.board, s.game.board)
    assert int(tr.event) == 2 and float(tr.reward) == 0.0
    s3, _ = STEP(glyphjax.step_key(0, 0), s, 4)
    b3 = np.asarray(s3.game.board)
    assert b3[5, 4] == 1 and (b3 == 2).sum() == 4  # your disc fell to the bottom, AI dropped one


def test_connectfour__win_loss_draw_rewards():
    s = ENV.reset(glyphjax.reset_key(0))
    b = np.zeros((6, 7), np.int32)
    b[5, 0:3] = 1; b[4, 0:2] = 2; b[3, 0] = 2
    s_win, tr = STEP(glyphjax.step_key(0, 0), with_board(s, b), 3)
    assert float(tr.reward) == 1.0 and bool(tr.terminated)
    b = np.zeros((6, 7), np.int32)
    b[5, 0:3] = 2; b[4, 0:3] = 1
    _, tr = STEP(glyphjax.step_key(0, 0), with_board(s, b), 6)
    assert float(tr.reward) == -1.0 and bool(tr.terminated)
    # a draw: fill all but one cell with no four anywhere, you play the last cell
    col_a, col_b = [1, 1, 1, 2, 2, 2], [2, 2, 2, 1, 1, 1]  # top to bottom
    b = np.array([col_a if c % 2 == 0 else col_b for c in range(7)]).T
    assert not py_four(b == 1) and not py_four(b == 2)
    b[0, 0] = 0
    _, tr = STEP(glyphjax.step_key(0, 0), with_board(s, b), 0)
    assert bool(tr.terminated) and float(tr.reward) == 0.0 and int(tr.event) == 5


def test_connectfour__golden_board():
    s = ENV.reset(glyphjax.reset_key(0))
    b = np.zeros((6, 7), np.int32)
    b[5, 0:3] = 1; b[5, 6] = 2; b[4, 6] = 2  # you threaten column 3
    s, tr = STEP(glyphjax.step_key(0, 0), with_board(s, b), 0)
    # your disc lands on (4, 0); the AI must block at (5, 3)
    text = glyphjax.render_text(ENV.card, ENV.render(s))
    assert text.grid == "\n".join([
        "  0123456",
        "0 ·······",
        "1 ·······",
        "2 ·······",
        "3 ·······",
        "4 ◍·····◈",
        "5 ◍◍◍◈··◈",
    ])
    assert text.hud.endswith("AI's last move: column 3") and text.message == "The AI dropped a disc."


def test_connectfour__scripted_policy_beats_random_mostly():
    res = glyphjax.rollout(ENV, ENV.scripted_policy, jnp.arange(200, dtype=jnp.uint32))
    r = np.asarray(res.returns)
    assert set(np.unique(r)) <= {-1.0, 0.0, 1.0}
    assert (r == 1).mean() > 0.2 and (r == -1).mean() > 0.05, f"win rate {(r == 1).mean()}"


GAME = glyphjax.make("classics/connectfour-2p")
GAME_STEP = jax.jit(GAME.step)


def game_state(board, mover):
    return state_with(GAME, board=board, mover=mover)


def messages(state):
    return [view.message for view in seat_views(GAME, state)]


def test_connectfour_2p__a_win_pays_each_seat_and_both_read_it():
    b = np.zeros((6, 7), np.int32)
    b[5, 0:3] = 2; b[4, 0:3] = 1; b[5, 6] = 1
    s, tr = GAME_STEP(glyphjax.step_key(0, 0), game_state(b, 1), 3)
    np.testing.assert_array_equal(tr.reward, [-1.0, 1.0])
    assert bool(tr.terminated) and not bool(jnp.any(GAME.legal(s)))
    assert messages(s) == ["The opponent connected four. You lose.", "Four in a row. You win!"]


def test_connectfour_2p__full_column_or_no_move_forfeits():
    b = np.zeros((6, 7), np.int32)
    b[:, 2] = [1, 2, 1, 2, 1, 2]
    s = game_state(b, 1)
    np.testing.assert_array_equal(np.asarray(GAME.legal(s)), [True, True, False, True, True, True, True])
    s2, tr = GAME_STEP(glyphjax.step_key(0, 0), s, 2)
    np.testing.assert_array_equal(tr.reward, [1.0, -1.0])
    assert bool(tr.terminated) and (np.asarray(s2.board) == b).all()
    assert messages(s2) == ["The opponent chose a full column and forfeits. You win!",
                            "That column is full: an illegal move forfeits the game. You lose."]
    s3, tr = GAME_STEP(glyphjax.step_key(0, 0), game_state(b, 0), glyphjax.NO_ACTION)
    np.testing.assert_array_equal(tr.reward, [-1.0, 1.0])
    assert messages(s3) == ["You made no move: that forfeits the game. You lose.",
                            "The opponent made no move and forfeits. You win!"]


def test_connectfour_2p__full_board_without_four_is_a_draw():
    col_a, col_b = [1, 1, 1, 2, 2, 2], [2, 2, 2, 1, 1, 1]  # top to bottom
    b = np.array([col_a if c % 2 == 0 else col_b for c in range(7)]).T
    b[0, 0] = 0
    s, tr = GAME_STEP(glyphjax.step_key(0, 0), game_state(b, 0), 0)
    np.testing.assert_array_equal(tr.reward, [0.0, 0.0])
    assert bool(tr.terminated) and messages(s) == ["The board is full. Draw."] * 2


def test_connectfour_2p__each_seat_sees_its_own_discs_and_the_others_last_move():
    s = GAME.reset(glyphjax.reset_key(0))
    for col in (3, 3, 0):  # seat 0, seat 1, seat 0
        s, _ = GAME_STEP(glyphjax.step_key(0, 0), s, col)
    views = seat_views(GAME, s)
    assert views[0].grid.split("\n")[-2:] == ["4 ···◎···", "5 ◍··◍···"]
    assert views[1].grid.split("\n")[-2:] == ["4 ···◍···", "5 ◎··◎···"]
    assert views[0].hud.endswith("The opponent's last move: column 3")
    assert views[1].hud.endswith("The opponent's last move: column 0")
    assert views[1].legend == "· — empty floor\n◍ — your disc\n◎ — the opponent's disc"
    assert messages(s) == ["You dropped a disc; the opponent moves next.", "The opponent dropped a disc."]


def test_connectfour_2p__ten_thousand_random_legal_self_play_episodes_are_zero_sum():
    """Core v2 must-hold: per-seat rewards sum to 0 on every step; the legal mask is never empty
    while playing."""
    play = random_legal_play(GAME, jnp.arange(10_000, dtype=jnp.uint32))
    assert not play.empty_mask.any(), f"empty legal mask in seeds {np.flatnonzero(play.empty_mask)[:5]}"
    assert play.max_abs_sum.max() == 0.0, f"seats' rewards summed to {play.max_abs_sum.max()}"
    assert not play.bad_to_play.any() and play.ended.all()
    assert play.decided.mean() > 0.9  # random play rarely fills the board without a four
