"""Depth-limited minimax bots of the grid template: exact play on 3x3 Tic-Tac-Toe (checked against
a plain-Python solver written here) and immediate wins and blocks at depth 2 on hand-made boards."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.zerosum.minimax import minimax_policy

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def _winner(board: tuple[int, ...]) -> int:
    """1 / 2 for the mark owning a line, 0 otherwise (board: 9 cells, 0 empty)."""
    for a, b, c in LINES:
        if board[a] and board[a] == board[b] == board[c]:
            return board[a]
    return 0


@functools.cache
def _exact(board: tuple[int, ...], mark: int) -> int:
    """Game value (+1 / 0 / -1) for `mark` to move, by full minimax."""
    free = [i for i, v in enumerate(board) if v == 0]
    if not free:
        return 0
    best = -1
    for i in free:
        child = board[:i] + (mark,) + board[i + 1:]
        best = max(best, 1 if _winner(child) else -_exact(child, 3 - mark))
    return best


def _open_positions() -> list[tuple[tuple[int, ...], int]]:
    """Every position reachable in play with the game still open: (board, mark to move)."""
    seen, todo = set(), [((0,) * 9, 1)]
    while todo:
        board, mark = todo.pop()
        if (board, mark) in seen or _winner(board) or 0 not in board:
            continue
        seen.add((board, mark))
        todo += [(board[:i] + (mark,) + board[i + 1:], 3 - mark) for i in range(9) if board[i] == 0]
    return sorted(seen)


def _states(env, boards: np.ndarray, movers: np.ndarray):
    """Batched grid states with the given boards (int8[B, n, n]) and seats to move."""
    s0 = env.reset(glyphjax.reset_key(0))
    plies = (boards != 0).reshape(len(boards), -1).sum(axis=1)
    b = len(boards)
    states = jax.tree.map(lambda x: jnp.broadcast_to(x, (b,) + x.shape), s0)
    return states.replace(board=jnp.asarray(boards, jnp.int8), mover=jnp.asarray(movers, jnp.int32),
                          t=jnp.asarray(plies, jnp.int32))


@functools.cache
def _searcher(depth: int, sequential: bool):
    """Jitted minimax moves of a batch of states: vmapped, or one state after another
    (`lax.map`: each search stops at its own node count instead of the batch's largest)."""
    pol = minimax_policy(depth)
    if sequential:
        return jax.jit(lambda keys, states, params: jax.lax.map(lambda ks: pol(ks[0], ks[1], params), (keys, states)))
    return jax.jit(jax.vmap(pol, in_axes=(0, 0, None)))


def _moves(env, depth: int, states, sequential: bool = False) -> np.ndarray:
    keys = jax.random.split(jax.random.PRNGKey(0), states.board.shape[0])
    return np.asarray(_searcher(depth, sequential)(keys, states, env.default_params()))


def test_minimax__depth_9_keeps_the_exact_value_of_every_open_tictactoe_position():
    env = glyphjax.make("zerosum/tictactoe/base")
    positions = _open_positions()
    boards = np.array([b for b, _ in positions], np.int8).reshape(-1, 3, 3)
    marks = np.array([m for _, m in positions])
    moves = _moves(env, 9, _states(env, boards, marks - 1), sequential=True)
    bad = []
    for (board, mark), cell in zip(positions, moves):
        if not 0 <= cell < 9 or board[cell]:
            bad.append((board, mark, int(cell), "illegal"))
            continue
        child = board[:cell] + (mark,) + board[cell + 1:]
        got = 1 if _winner(child) else -_exact(child, 3 - mark)
        if got != _exact(board, mark):
            bad.append((board, mark, int(cell), f"value {got} != exact {_exact(board, mark)}"))
    assert len(positions) == 4520  # the open positions of Tic-Tac-Toe (5,478 states less 958 finished)
    assert not bad, f"{len(bad)} of {len(positions)} positions played suboptimally, e.g. {bad[:3]}"


# 5x5 four in a row (zerosum/connect4/base). Marks: 1 = seat 0, 2 = seat 1; seat 0 to move.
WIN_NOW = """
. . . . .
. 1 1 1 .
. 2 2 . .
. 2 . . .
. . . . .
"""  # seat 0 wins at (1,0) or (1,4)
BLOCK = """
. . . . .
2 2 2 . .
. 1 . . .
. . 1 . .
1 . . . .
"""  # seat 1 threatens (1,3); seat 0 must block there (no win of its own now)


def _board(text: str) -> np.ndarray:
    rows = [[0 if c == "." else int(c) for c in line.split()] for line in text.strip().splitlines()]
    return np.array(rows, np.int8)


def test_minimax__depth_2_wins_or_blocks_the_immediate_threat_on_four_in_a_row():
    env = glyphjax.make("zerosum/connect4/base")
    cases = ((WIN_NOW, {5, 9}), (BLOCK, {8}))
    boards = np.stack([_board(text) for text, _ in cases for _ in range(8)])
    moves = _moves(env, 2, _states(env, boards, np.zeros(len(boards), int))).reshape(len(cases), 8)
    for (text, want), got in zip(cases, moves):
        assert set(got.tolist()) <= want, f"depth-2 minimax chose cells {sorted(set(got.tolist()))}, want {want} on{text}"


def test_minimax__rejects_a_bad_depth_by_name():
    with pytest.raises(ValueError, match="depth must be an integer in 1..49"):
        minimax_policy(0)
