"""Nonogram (classics/nonogram-easy/-hard): 1,000 reset puzzles per size certified uniquely solvable
by an independent line solver; clues; rewards; golden board."""

from functools import lru_cache

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics.nonogram import _BANK_HEX, generate_bank

EASY = glyphjax.make("classics/nonogram-easy")
HARD = glyphjax.make("classics/nonogram-hard")


@lru_cache(maxsize=None)
def jit_step(env):
    """env.step compiled once per env (eager stepping is slow)."""
    return jax.jit(env.step)


def runs(line):
    out, k = [], 0
    for b in list(line) + [0]:
        if b:
            k += 1
        elif k:
            out.append(k)
            k = 0
    return tuple(out)


@lru_cache(maxsize=None)
def arrangements(clue, n):
    """Every line of length n with this clue, built block by block (not by bit patterns)."""
    if not clue:
        return ((0,) * n,)
    first, rest = clue[0], clue[1:]
    need_rest = sum(rest) + len(rest)
    out = []
    for start in range(0, n - need_rest - first + 1):
        head = (0,) * start + (1,) * first
        if rest:
            for tail in arrangements(rest, n - len(head) - 1):
                out.append(head + (0,) + tail)
        else:
            out.append(head + (0,) * (n - len(head)))
    return tuple(out)


@lru_cache(maxsize=None)
def deduce(clue, known):
    """Intersect the arrangements consistent with the known cells (-1 unknown)."""
    fits = [a for a in arrangements(clue, len(known)) if all(k < 0 or k == v for k, v in zip(known, a))]
    if not fits:
        return None
    return tuple(fits[0][i] if all(f[i] == fits[0][i] for f in fits) else -1 for i in range(len(known)))


def solve(rows, cols):
    """Line logic to a fixpoint -> the solved grid, or None if it stalls (not line-solvable)."""
    n = len(rows)
    g = [[-1] * n for _ in range(n)]
    while True:
        changed = False
        for r in range(n):
            new = deduce(rows[r], tuple(g[r]))
            assert new is not None, "contradiction"
            if list(new) != g[r]:
                g[r], changed = list(new), True
        for c in range(n):
            new = deduce(cols[c], tuple(g[r][c] for r in range(n)))
            assert new is not None, "contradiction"
            for r in range(n):
                if new[r] != g[r][c]:
                    g[r][c], changed = new[r], True
        if not changed:
            break
    return np.array(g) if all(v >= 0 for row in g for v in row) else None


def test_nonogram__1000_reset_puzzles_per_size_are_uniquely_line_solvable():
    for env in (EASY, HARD):
        states = jax.jit(jax.vmap(lambda k: env.reset(k)))(jax.vmap(glyphjax.reset_key)(jnp.arange(1000)))
        sols = np.asarray(states.solution)
        names = env.card.hud_enums["r0"]
        distinct = len({s.tobytes() for s in sols})
        assert distinct > 500, f"{env.card.id}: only {distinct} distinct puzzles in 1000 seeds"
        for seed, sol in enumerate(sols):
            rows = [runs(r) for r in sol]
            cols = [runs(c) for c in sol.T]
            # the clues the player is shown are the picture's clues
            shown_rows = [names[i] for i in np.asarray(states.row_clues[seed])]
            assert shown_rows == [" ".join(map(str, r)) if r else "0" for r in rows], f"seed {seed}"
            shown_cols = [names[i] for i in np.asarray(states.col_clues[seed])]
            assert shown_cols == [" ".join(map(str, c)) if c else "0" for c in cols], f"seed {seed}"
            got = solve(rows, cols)
            assert got is not None, f"{env.card.id} seed {seed}: not solvable by line logic"
            assert (got == sol).all(), f"{env.card.id} seed {seed}: solver found another picture"


def test_nonogram__embedded_easy_bank_is_reproducible():
    assert generate_bank(5, 512, 2026 + 5) == [int(_BANK_HEX[5][i:i + 7], 16)
                                              for i in range(0, len(_BANK_HEX[5]), 7)]


PICTURE = np.array([[1, 1, 1, 0, 0],
                    [0, 1, 0, 1, 0],
                    [1, 0, 0, 0, 1],
                    [0, 0, 0, 0, 0],
                    [1, 1, 1, 1, 1]], bool)


def picture_state():
    s = EASY.reset(glyphjax.reset_key(0))
    rows, cols = EASY.clue_ids(jnp.asarray(PICTURE))
    return s.replace(solution=jnp.asarray(PICTURE), row_clues=rows, col_clues=cols)


def test_nonogram__rewards_and_decide_once():
    s = picture_state()
    s, tr = jit_step(EASY)(glyphjax.step_key(0, 0), s, EASY.card.action_index("FILL_0"))
    assert abs(float(tr.reward) - 0.04) < 1e-7 and int(tr.event) == 1
    s, tr = jit_step(EASY)(glyphjax.step_key(0, 1), s, EASY.card.action_index("MARK_0"))
    assert float(tr.reward) == 0.0 and int(tr.event) == 3
    s, tr = jit_step(EASY)(glyphjax.step_key(0, 2), s, EASY.card.action_index("FILL_3"))
    assert abs(float(tr.reward) + 0.04) < 1e-7 and int(tr.event) == 2
    total, t = 0.0, 3
    for i in range(25):
        if not bool(s.decided.reshape(-1)[i]):
            name = ("FILL_" if PICTURE.flat[i] else "MARK_") + str(i)
            s, tr = jit_step(EASY)(glyphjax.step_key(0, t), s, EASY.card.action_index(name))
            total += float(tr.reward)
            t += 1
    assert bool(tr.terminated) and int(tr.event) == 4 and abs(total - 23 / 25) < 1e-5


def test_nonogram__golden_board():
    s = picture_state()
    for t, name in enumerate(["FILL_0", "MARK_1", "FILL_3"]):
        s, _ = jit_step(EASY)(glyphjax.step_key(0, t), s, EASY.card.action_index(name))
    text = glyphjax.render_text(EASY.card, EASY.render(s))
    assert text.grid == "  01234\n0 ▉▉⬚✗⬚\n1 ⬚⬚⬚⬚⬚\n2 ⬚⬚⬚⬚⬚\n3 ⬚⬚⬚⬚⬚\n4 ⬚⬚⬚⬚⬚"
    assert text.hud == ("Step: 3 / 100    Correct: 1    Wrong: 2\n"
                        "Row clues (row: runs): 0: 3; 1: 1 1; 2: 1 1; 3: 0; 4: 5\n"
                        "Column clues (column: runs): 0: 1 1 1; 1: 2 1; 2: 1 1; 3: 1 1; 4: 1 1")
