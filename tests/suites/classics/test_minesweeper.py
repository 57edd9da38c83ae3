"""Minesweeper (classics/minesweeper): counts, zero-flood vs a BFS reference, first click, golden."""

from collections import deque

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics.minesweeper import flood_reveal

ENV = glyphjax.make("classics/minesweeper")
STEP = jax.jit(ENV.step)  # one compile per module; eager stepping is slow


def bfs_reveal(mines, r0, c0):
    """Reference flood: BFS from (r0, c0) through cells with zero adjacent mines."""
    n = mines.shape[0]
    cnt = np.zeros_like(mines, int)
    for r in range(n):
        for c in range(n):
            cnt[r, c] = mines[max(r - 1, 0):r + 2, max(c - 1, 0):c + 2].sum() - mines[r, c]
    out = np.zeros_like(mines)
    out[r0, c0] = True
    q = deque([(r0, c0)])
    while q:
        r, c = q.popleft()
        if cnt[r, c] != 0:
            continue
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                y, x = r + dr, c + dc
                if 0 <= y < n and 0 <= x < n and not out[y, x] and not mines[y, x]:
                    out[y, x] = True
                    q.append((y, x))
    return out


def with_mines(mine_cells):
    s = ENV.reset(glyphjax.reset_key(0))
    m = np.zeros((8, 8), bool)
    for rc in mine_cells:
        m[rc] = True
    return s.replace(mines=jnp.asarray(m), laid=jnp.bool_(True))


def test_minesweeper__flood_matches_bfs_reference():
    rng = np.random.default_rng(1)
    fn = jax.jit(flood_reveal)
    for trial in range(150):
        mines = np.zeros(64, bool)
        mines[rng.choice(64, 10, replace=False)] = True
        mines = mines.reshape(8, 8)
        safe = np.flatnonzero(~mines.reshape(-1))
        cell = int(rng.choice(safe))
        mask = np.zeros((8, 8), bool)
        mask.flat[cell] = True
        got = np.asarray(fn(jnp.zeros((8, 8), bool), jnp.asarray(mask), jnp.asarray(mines)))
        want = bfs_reveal(mines, cell // 8, cell % 8)
        assert (got == want).all(), f"classics/minesweeper trial {trial} cell {cell}"


def test_minesweeper__first_reveal_is_safe_and_opens_area():
    for seed in range(30):
        s = ENV.reset(glyphjax.reset_key(seed))
        cell = (seed * 7) % 64
        s, tr = STEP(glyphjax.step_key(seed, 0), s, cell)
        m = np.asarray(s.mines)
        assert m.sum() == 10 and not bool(tr.terminated) or int(tr.event) == 4
        r, c = divmod(cell, 8)
        assert not m[max(r - 1, 0):r + 2, max(c - 1, 0):c + 2].any(), f"seed {seed}"
        assert np.asarray(s.revealed).sum() >= 4 and float(tr.reward) > 0


def test_minesweeper__mine_gives_minus_one_and_shows_mines():
    s = with_mines([(0, 0), (7, 7), (3, 3), (3, 4), (4, 3), (4, 4), (0, 7), (7, 0), (5, 6), (6, 5)])
    s, tr = STEP(glyphjax.step_key(0, 0), s, 1)  # (0, 1): count 1, reveals only itself
    assert abs(float(tr.reward) - 1 / 54) < 1e-7 and np.asarray(s.revealed).sum() == 1
    s, tr = STEP(glyphjax.step_key(0, 1), s, 1)
    assert float(tr.reward) == 0.0 and int(tr.event) == 2
    s, tr = STEP(glyphjax.step_key(0, 2), s, 27)
    assert float(tr.reward) == -1.0 and bool(tr.terminated)
    grid = np.asarray(ENV.render(s).grid)
    assert grid[3, 3] == ord("✸") and grid[0, 0] == ord("✹") and grid[0, 1] == ord("1")


def test_minesweeper__win_pays_total_one():
    s = with_mines([(0, c) for c in range(8)] + [(1, 0), (1, 1)])
    total = 0.0
    s, tr = STEP(glyphjax.step_key(0, 0), s, 63)  # big flood from the far corner
    total += float(tr.reward)
    t = 1
    while not bool(tr.terminated):
        hidden = np.flatnonzero(~np.asarray(s.revealed).reshape(-1) & ~np.asarray(s.mines).reshape(-1))
        s, tr = STEP(glyphjax.step_key(0, t), s, int(hidden[0]))
        total += float(tr.reward)
        t += 1
    assert int(tr.event) == 4 and abs(total - 1.0) < 1e-5


def test_minesweeper__golden_board():
    s = with_mines([(0, 0), (0, 1), (1, 0), (2, 5), (5, 2), (7, 7), (6, 7), (7, 6), (0, 7), (4, 7)])
    s, tr = STEP(glyphjax.step_key(0, 0), s, 27)  # (3, 3): counts worked out by hand
    assert abs(float(tr.reward) - 49 / 54) < 1e-6
    text = glyphjax.render_text(ENV.card, ENV.render(s))
    want = [
        "  01234567",
        "0 ▩▩10001▩",
        "1 ▩310112▩",
        "2 11001▩▩▩",
        "3 0000112▩",
        "4 0111001▩",
        "5 01▩1002▩",
        "6 0111013▩",
        "7 000001▩▩",
    ]
    assert text.grid == "\n".join(want)
    assert text.hud.endswith("Safe cells uncovered: 49 / 54")
