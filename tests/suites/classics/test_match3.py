"""Match-3 (classics/match3): line detection, swap validity, gravity and cascades, reward, golden."""

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics.match3 import collapse, fresh_board, line_mask

ENV = glyphjax.make("classics/match3")
STEP = jax.jit(ENV.step)  # one compile per module; eager stepping is slow
C, D, E = 0, 1, 2


def py_lines(b):
    out = np.zeros(b.shape, bool)
    n = b.shape[0]
    for r in range(n):
        for c in range(n):
            if c + 2 < n and b[r, c] == b[r, c + 1] == b[r, c + 2] >= 0:
                out[r, c:c + 3] = True
            if r + 2 < n and b[r, c] == b[r + 1, c] == b[r + 2, c] >= 0:
                out[r:r + 3, c] = True
    return out


def filler():
    r, c = np.meshgrid(np.arange(8), np.arange(8), indexing="ij")
    return (2 * r + c) % 3 + 3  # kinds 3..5, no two equal neighbours in a row or column


def test_match3__line_mask_matches_reference():
    rng = np.random.default_rng(0)
    boards = rng.integers(0, 4, (500, 8, 8))
    got = np.asarray(jax.vmap(line_mask)(jnp.asarray(boards, jnp.int32)))
    for i, b in enumerate(boards):
        assert (got[i] == py_lines(b)).all(), f"classics/match3 board {i}"


def test_match3__fresh_boards_have_no_lines():
    boards = np.asarray(jax.vmap(fresh_board)(jax.vmap(glyphjax.reset_key)(jnp.arange(300))))
    for seed, b in enumerate(boards):
        assert not py_lines(b).any() and set(np.unique(b)) <= set(range(6)), f"seed {seed}"


def test_match3__gravity_keeps_column_order_and_refills_top():
    b = filler()
    cleared = np.zeros((8, 8), bool)
    cleared[5:8, 3] = True
    cleared[2, 6] = True
    refill = jnp.full((8, 8), 2, jnp.int32)
    out = np.asarray(collapse(jnp.asarray(b, jnp.int32), jnp.asarray(cleared), refill))
    np.testing.assert_array_equal(out[3:, 3], b[:5, 3])  # column 3 fell by 3
    np.testing.assert_array_equal(out[3:, 6], b[3:, 6])  # below the hole: unchanged
    np.testing.assert_array_equal(out[1:3, 6], b[0:2, 6])  # above: fell by one
    assert (out[:3, 3] == 2).all() and out[0, 6] == 2 and (out[out != 2] >= 3).all()


def board_with_cascade():
    b = filler()
    b[5, 3] = D; b[6, 3] = D; b[7, 3] = E; b[7, 4] = D
    b[7, 1] = C; b[7, 2] = C; b[4, 3] = C
    assert not py_lines(b).any()
    return b


def test_match3__swap_pays_player_line_only_cascade_free():
    s = ENV.reset(glyphjax.reset_key(0)).replace(board=jnp.asarray(board_with_cascade(), jnp.int32))
    a = ENV.card.action_index("SWAP_7_3_RIGHT")
    s2, tr = STEP(glyphjax.step_key(0, 0), s, a)
    assert abs(float(tr.reward) - 0.03) < 1e-7 and int(s2.gems) == 3 and int(tr.event) == 1
    b = np.asarray(s2.board)
    f = filler()
    # cascade: C from (4,3) fell to (7,3) and made C C C on row 7, which cleared; row 6 fell to row 7
    assert b[7, 1] == f[6, 1] and b[7, 2] == f[6, 2]
    assert not py_lines(b).any()


def test_match3__swap_without_line_or_off_board_is_noop():
    s = ENV.reset(glyphjax.reset_key(0)).replace(board=jnp.asarray(board_with_cascade(), jnp.int32))
    for name in ("SWAP_0_0_UP", "SWAP_7_7_RIGHT", "SWAP_0_0_RIGHT", "SWAP_3_3_DOWN"):
        s2, tr = STEP(glyphjax.step_key(0, 0), s, ENV.card.action_index(name))
        np.testing.assert_array_equal(s2.board, s.board, err_msg=name)
        assert float(tr.reward) == 0.0 and int(tr.event) == 2, name


def test_match3__reward_capped_at_one():
    s = ENV.reset(glyphjax.reset_key(0)).replace(board=jnp.asarray(board_with_cascade(), jnp.int32),
                                                 gems=jnp.int32(99))
    s2, tr = STEP(glyphjax.step_key(0, 0), s, ENV.card.action_index("SWAP_7_3_RIGHT"))
    assert abs(float(tr.reward) - 0.01) < 1e-7 and bool(tr.terminated) and int(s2.gems) == 100


def test_match3__golden_board():
    s = ENV.reset(glyphjax.reset_key(0)).replace(board=jnp.asarray(board_with_cascade(), jnp.int32))
    text = glyphjax.render_text(ENV.card, ENV.render(s))
    assert text.grid == "\n".join([
        "  01234567",
        "0 ♠♪✦♠♪✦♠♪",
        "1 ✦♠♪✦♠♪✦♠",
        "2 ♪✦♠♪✦♠♪✦",
        "3 ♠♪✦♠♪✦♠♪",
        "4 ✦♠♪♥♠♪✦♠",
        "5 ♪✦♠♦✦♠♪✦",
        "6 ♠♪✦♦♪✦♠♪",
        "7 ✦♥♥✿♦♪✦♠",
    ])
    s2, _ = STEP(glyphjax.step_key(0, 0), s, ENV.card.action_index("SWAP_7_3_RIGHT"))
    rows = glyphjax.render_text(ENV.card, ENV.render(s2)).grid.split("\n")
    # rows 0-3 hold random refills; rows 4-7 are determined (worked out by hand)
    assert rows[5:] == ["4 ✦♪✦♠♠♪✦♠", "5 ♪♠♪✦✦♠♪✦", "6 ♠✦♠♪♪✦♠♪", "7 ✦♪✦♠✿♪✦♠"]


def test_match3__fast_move_check_equals_trying_every_swap():
    from glyphjax.suites.classics.match3 import has_move, has_move_brute
    rng = np.random.default_rng(3)
    boards = []
    while len(boards) < 400:  # boards without lines, sparse enough that some have no move
        b = rng.integers(0, 6, (8, 8))
        if not py_lines(b).any():
            boards.append(b)
    boards = jnp.asarray(np.array(boards), jnp.int32)
    fast = np.asarray(jax.vmap(has_move)(boards))
    brute = np.asarray(jax.vmap(has_move_brute)(boards))
    assert (fast == brute).all(), f"boards {np.flatnonzero(fast != brute)[:5]}"
    assert brute.any()
    stuck = jnp.asarray(filler(), jnp.int32)  # no two equal gems within distance 2 in a line
    assert not bool(has_move(stuck)) and not bool(has_move_brute(stuck))
    assert bool(has_move(jnp.asarray(board_with_cascade(), jnp.int32)))
