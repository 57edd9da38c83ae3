"""2048 (classics/2048): merge rules, spawning, milestones, win/stuck, golden board."""

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics.slide2048 import slide, slide_row_left

ENV = glyphjax.make("classics/2048")
STEP = jax.jit(ENV.step)  # one compile per module; eager stepping is slow
UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3


def exps(values):
    """Tile values -> exponents (0 = empty)."""
    return jnp.array([0 if v == 0 else int(np.log2(v)) for v in values], jnp.int32)


def vals(row):
    return [0 if e == 0 else 2 ** int(e) for e in np.asarray(row)]


def board_state(rows, best_merged=0):
    state = ENV.reset(glyphjax.reset_key(0))
    board = jnp.stack([exps(r) for r in rows])
    return state.replace(board=board, best_merged=jnp.int32(best_merged))


def test_2048__merge_rules_one_merge_per_tile():
    cases = {(2, 2, 4): (4, 4, 0), (2, 2, 2): (4, 2, 0), (4, 2, 2): (4, 4, 0), (0, 2, 2): (4, 0, 0),
             (2, 0, 2): (4, 0, 0), (2, 4, 8): (2, 4, 8), (0, 0, 2): (2, 0, 0), (8, 8, 8): (16, 8, 0),
             (4, 4, 8): (8, 8, 0)}
    for row, want in cases.items():
        got, _, _ = slide_row_left(exps(row))
        assert tuple(vals(got)) == want, f"classics/2048: {row} LEFT gave {vals(got)}, want {want}"


def test_2048__four_directions_on_a_board():
    b = jnp.stack([exps(r) for r in [(2, 2, 4), (0, 4, 4), (2, 0, 2)]])
    want = {LEFT: [(4, 4, 0), (8, 0, 0), (4, 0, 0)],
            RIGHT: [(0, 4, 4), (0, 0, 8), (0, 0, 4)],
            UP: [(4, 2, 8), (0, 4, 2), (0, 0, 0)],
            DOWN: [(0, 0, 0), (0, 2, 8), (4, 4, 2)]}
    for d, rows in want.items():
        got, _, _ = slide(b, jnp.int32(d))
        assert [tuple(vals(r)) for r in got] == rows, f"classics/2048 direction {d}: {got}"


def test_2048__valid_move_spawns_one_tile_invalid_move_is_noop():
    s = board_state([(2, 0, 0), (0, 0, 0), (0, 0, 0)])
    s2, tr = STEP(glyphjax.step_key(0, 0), s, LEFT)  # nothing moves
    np.testing.assert_array_equal(s2.board, s.board)
    assert float(tr.reward) == 0.0
    for seed in range(20):
        s3, _ = STEP(glyphjax.step_key(seed, 0), s, RIGHT)
        b = np.asarray(s3.board)
        assert b[0, 2] == 1 and (b > 0).sum() == 2, f"seed {seed}: {b}"
        assert set(b[b > 0].tolist()) <= {1, 2}


def test_2048__milestones_paid_once_and_64_wins():
    s = board_state([(32, 32, 0), (0, 0, 0), (0, 0, 0)], best_merged=4)  # 4, 8, 16 already paid
    s2, tr = STEP(glyphjax.step_key(0, 0), s, LEFT)
    assert abs(float(tr.reward) - 0.4) < 1e-6  # 32+32 -> 64: milestones 32 and 64 (32 unpaid before)
    assert bool(tr.terminated) and int(s2.best_merged) == 6
    s = board_state([(4, 4, 0), (2, 0, 0), (0, 0, 0)], best_merged=4)
    s2, tr = STEP(glyphjax.step_key(0, 0), s, LEFT)
    assert float(tr.reward) == 0.0 and not bool(tr.terminated)  # 8 already paid
    s = board_state([(2, 2, 0), (0, 0, 0), (0, 0, 0)])
    s2, tr = STEP(glyphjax.step_key(0, 0), s, LEFT)
    assert abs(float(tr.reward) - 0.2) < 1e-6


def test_2048__stuck_board_terminates():
    # after RIGHT row 0 (2,4,_) becomes (_,2,4) and the spawn fills (0,0): stuck unless it can merge
    s = board_state([(2, 4, 0), (8, 16, 2), (16, 8, 4)])
    for seed in range(10):
        s2, tr = STEP(glyphjax.step_key(seed, 0), s, RIGHT)
        b = np.asarray(s2.board)
        # independent check: no equal neighbours and no empty cell <=> stuck
        full = (b > 0).all()
        eq = (b[:, 1:] == b[:, :-1]).any() | (b[1:] == b[:-1]).any()
        assert bool(tr.terminated) == bool(full and not eq), f"seed {seed}: {b}"


def test_2048__golden_board():
    s = board_state([(2, 2, 4), (0, 8, 8), (0, 0, 2)])
    s2, tr = STEP(glyphjax.step_key(5, 0), s, LEFT)
    text = glyphjax.render_text(ENV.card, ENV.render(s2))
    b = np.asarray(s2.board)
    # the merged part is fixed; the spawn lands on one of the empty cells
    spawn_cells = [(r, c) for r in range(3) for c in range(3) if b[r, c] and (r, c) not in
                   [(0, 0), (0, 1), (1, 0), (2, 0)]]
    assert len(spawn_cells) == 1
    r, c = spawn_cells[0]
    rows = [list("⑵⑵·"), list("⑷··"), list("⑴··")]
    rows[r][c] = "⑴" if b[r, c] == 1 else "⑵"
    assert text.grid == "\n".join("".join(x) for x in rows)
    assert "Score: 20" in text.hud and "Largest tile made by a merge: 16" in text.hud
    assert "⑷ — tile 16" in text.legend and "⑴ — tile 2" in text.legend
    assert abs(float(tr.reward) - 0.6) < 1e-6  # 4, 8, 16 all first created now


def test_2048__random_play_return_matches_best_merged():
    res = glyphjax.rollout(ENV, glyphjax.random_policy(4), jnp.arange(200, dtype=jnp.uint32))
    r = np.asarray(res.returns)
    assert (r >= 0).all() and (r <= 1 + 1e-6).all()
    assert np.allclose(np.round(r / 0.2), r / 0.2, atol=1e-4), "returns are multiples of 0.2"
