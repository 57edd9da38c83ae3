"""Tetris (classics/tetris): gravity, moves and rotation, line clears, top-out, reward cap, golden."""

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics.tetris import HARD_DROP, LEFT, NOOP, ROT_CW, SHAPES, clear_lines

ENV = glyphjax.make("classics/tetris")
STEP = jax.jit(ENV.step)  # one compile per module; eager stepping is slow
I, O, T = 0, 1, 2


def start(piece, next_piece=O, well=None, lines=0):
    """A fresh state with a chosen piece at its spawn place (I's blocks are on row 1 of its box)."""
    s = ENV.reset(glyphjax.reset_key(0))
    return s.replace(piece=jnp.int32(piece), next_piece=jnp.int32(next_piece), rot=jnp.int32(0),
                     pos=jnp.array([-1 if piece == I else 0, 1 if piece != O else 2], jnp.int32),
                     well=jnp.zeros((10, 6), bool) if well is None else jnp.asarray(well),
                     lines=jnp.int32(lines))


def blocks(s):
    return sorted(map(tuple, np.asarray(SHAPES[int(s.piece), int(s.rot)] + s.pos)))


def test_tetris__rotation_table_has_four_blocks_and_period_four():
    sh = np.asarray(SHAPES)
    for k in range(7):
        for rot in range(4):
            assert len({tuple(x) for x in sh[k, rot]}) == 4
        assert sorted(map(tuple, sh[k, 0])) != sorted(map(tuple, sh[k, 1])) or k == 1  # O is symmetric


def test_tetris__gravity_one_row_per_turn_and_shift():
    s = start(T)
    s1, tr = STEP(glyphjax.step_key(0, 0), s, NOOP)
    assert blocks(s1) == [(1, 2), (2, 1), (2, 2), (2, 3)]
    s2, _ = STEP(glyphjax.step_key(0, 1), s1, LEFT)
    assert blocks(s2) == [(2, 1), (3, 0), (3, 1), (3, 2)]
    s3, _ = STEP(glyphjax.step_key(0, 2), s2, LEFT)  # blocked by the wall: only falls
    assert blocks(s3) == [(3, 1), (4, 0), (4, 1), (4, 2)]


def test_tetris__piece_locks_when_it_cannot_fall():
    s = start(O)
    for t in range(8):
        s, tr = STEP(glyphjax.step_key(0, t), s, NOOP)
    assert blocks(s) == [(8, 2), (8, 3), (9, 2), (9, 3)] and not np.asarray(s.well).any()
    s, tr = STEP(glyphjax.step_key(0, 8), s, NOOP)
    w = np.asarray(s.well)
    assert w[8:, 2:4].all() and w.sum() == 4 and int(tr.event) == 4
    assert int(s.piece) == O and blocks(s) == [(0, 2), (0, 3), (1, 2), (1, 3)]  # next piece spawned


def test_tetris__line_clear_shifts_rows_down_and_pays():
    w = np.zeros((10, 6), bool)
    w[9] = [1, 0, 0, 0, 0, 1]
    w[8] = [1, 0, 0, 0, 0, 0]
    w[7] = [0, 0, 0, 0, 0, 1]
    s, tr = STEP(glyphjax.step_key(0, 0), start(I, well=w), HARD_DROP)
    out = np.asarray(s.well)
    assert abs(float(tr.reward) - 0.2) < 1e-7 and int(s.lines) == 1 and int(tr.event) == 1
    want = np.zeros((10, 6), bool)
    want[9] = [1, 0, 0, 0, 0, 0]
    want[8] = [0, 0, 0, 0, 0, 1]
    np.testing.assert_array_equal(out, want)


def test_tetris__clear_lines_multiple_rows():
    w = np.zeros((10, 6), bool)
    w[9] = True; w[7] = True; w[8] = [1, 1, 0, 1, 1, 1]; w[6] = [0, 1, 0, 0, 0, 0]
    out, n = clear_lines(jnp.asarray(w))
    want = np.zeros((10, 6), bool)
    want[9] = [1, 1, 0, 1, 1, 1]; want[8] = [0, 1, 0, 0, 0, 0]
    assert int(n) == 2 and (np.asarray(out) == want).all()


def test_tetris__win_at_five_lines_with_cap():
    w = np.zeros((10, 6), bool)
    w[8:] = True
    w[8:, 2:4] = False  # an O fills two lines at once
    s, tr = STEP(glyphjax.step_key(0, 0), start(O, well=w, lines=4), HARD_DROP)
    assert abs(float(tr.reward) - 0.2) < 1e-7 and bool(tr.terminated) and int(tr.event) == 3


def test_tetris__top_out_ends_the_game():
    w = np.zeros((10, 6), bool)
    w[2:, :5] = True  # column 5 open, so no line is full
    w[1, 2] = True  # blocks the O's spawn after the current piece locks
    s, tr = STEP(glyphjax.step_key(0, 0), start(I, next_piece=O, well=w), HARD_DROP)
    assert bool(tr.terminated) and int(tr.event) == 2 and float(tr.reward) == 0.0


def test_tetris__rotation_blocked_is_noop():
    w = np.zeros((10, 6), bool)
    w[:, 0] = True
    w[9, :] = False
    s = start(I, well=w)  # I on row 0 cols 1-4; rotating CW puts it in column 3 rows -1..2
    s1, _ = STEP(glyphjax.step_key(0, 0), s, ROT_CW)
    assert int(s1.rot) == 0 and blocks(s1) == [(1, 1), (1, 2), (1, 3), (1, 4)]
    s2, _ = STEP(glyphjax.step_key(0, 1), s1, ROT_CW)
    assert int(s2.rot) == 1 and blocks(s2) == [(1, 3), (2, 3), (3, 3), (4, 3)]


def test_tetris__golden_board():
    s = start(T, next_piece=O)
    s, _ = STEP(glyphjax.step_key(0, 0), s, NOOP)
    text = glyphjax.render_text(ENV.card, ENV.render(s))
    assert text.grid == "\n".join(["······", "··◼···", "·◼◼◼··"] + ["······"] * 7)
    s, _ = STEP(glyphjax.step_key(0, 1), s, HARD_DROP)
    text = glyphjax.render_text(ENV.card, ENV.render(s))
    assert text.grid == "\n".join(["··◼◼··", "··◼◼··"] + ["······"] * 6 + ["··▓···", "·▓▓▓··"])
    assert "Lines: 0 / 5    Piece: O    Next: " in text.hud
