"""Depth-limited alpha-beta negamax for the grid-placement template, as an array policy.

The search uses only the template's hooks over canonical cells (`legal_cells`, `outcome`), so it
plays every rule variant of a board size (misère, gravity, shared marks, squares, blocked cells).
It is a depth-first search with an explicit stack of `depth` frames inside one `lax.while_loop`:
jittable, vmappable, and its cost is the number of nodes it visits. Values are from the mover's
view: a game the mover's move at search depth d decides is worth ±(1 − 0.01·d) (sooner wins and
later losses are preferred), a draw 0, and a position at the depth limit scores the heuristic
`line_heuristic`, which lies in [−0.5, 0.5] so that a decided outcome always outranks it. A frame
that has a move winning at once takes it without searching its other moves. Moves are tried in
an order drawn from the policy key, so ties between equally valued moves are broken at random.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.zerosum.gridgame import DRAW, ONGOING, GridParams, GridState, _moved, _place, legal_cells, outcome

NO_MOVE = -1
MAX_DEPTH = 49  # 7 x 7 boards: a decided outcome is then always worth more than 0.5


def line_heuristic(board: jax.Array, mover: jax.Array, params: GridParams) -> jax.Array:
    """Value in [-0.5, 0.5] for `mover` of an undecided position: over the k-cell windows along
    the enabled directions, the squared mark counts of windows free of the other seat's marks,
    mover's minus the other's, normalised; negated under misère, 0 with shared marks."""
    n = board.shape[0]
    total = []
    for seat in (mover, 1 - mover):
        own, free = board == seat + 1, params.valid & (board != 2 - seat)
        score = jnp.float32(0.0)
        for d, (dr, dc) in enumerate(((0, 1), (1, 0), (1, 1), (1, -1))):
            count, clear = own.astype(jnp.float32), free
            m_own, m_free = own, free
            for j in range(1, n):
                m_own, m_free = _moved(m_own, dr, dc, params.torus), _moved(m_free, dr, dc, params.torus)
                count = count + jnp.where(j < params.k, m_own, False)
                clear = clear & (m_free | (j >= params.k))
            score = score + jnp.where(params.dirs[d], jnp.sum(jnp.where(clear, count * count, 0.0)), 0.0)
        total.append(score)
    mine, theirs = total
    h = 0.5 * (mine - theirs) / (mine + theirs + 1.0)
    return jnp.where(params.shared, 0.0, jnp.where(params.misere, -h, h)).astype(jnp.float32)


@struct.dataclass
class _Stack:
    """The search's frames: frame d holds the position d plies below the root."""

    board: jax.Array  # int8[D, n, n]
    out: jax.Array  # int32[D, n*n]: outcome of each move from this position (mover's move)
    legal: jax.Array  # bool[D, n*n]
    next: jax.Array  # int32[D]: next index into the move order to try
    alpha: jax.Array  # float32[D]
    beta: jax.Array  # float32[D]
    best: jax.Array  # float32[D]: best value found so far (mover's view)


def _win_value(d: jax.Array) -> jax.Array:
    return (1.0 - 0.01 * jnp.asarray(d, jnp.float32)).astype(jnp.float32)


def _move_values(out: jax.Array, mover: jax.Array, d: jax.Array) -> jax.Array:
    """float32[n*n]: value for the mover of each move whose outcome is decided (0 if ongoing)."""
    w = _win_value(d)
    return jnp.where(out == mover, w, jnp.where((out == DRAW) | (out == ONGOING), 0.0, -w))


def _frame(board, mover, ply, d, params):
    """(outcome of every move, legal mask, immediate-win value or -inf) of a position."""
    cells = jnp.arange(board.size)
    out = jax.vmap(lambda c: outcome(_place(board, c, mover), mover, ply, params))(cells)
    legal = legal_cells(board, ply, params)
    wins = legal & (out == mover)
    return out, legal, jnp.where(jnp.any(wins), _win_value(d), -jnp.inf), wins


def search(board: jax.Array, mover: jax.Array, ply: jax.Array, params: GridParams, depth: int,
           order: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Alpha-beta negamax to `depth` plies -> (best cell, its value for `mover`); moves are tried
    in `order` (a permutation of the cells). NO_MOVE when there is no legal move."""
    n2 = board.size
    out0, legal0, win0, wins0 = _frame(board, mover, ply, 0, params)
    first_win = order[jnp.argmax(wins0[order])]
    stack = _Stack(board=jnp.broadcast_to(board, (depth,) + board.shape), out=jnp.zeros((depth, n2), jnp.int32).at[0].set(out0),
                   legal=jnp.zeros((depth, n2), bool).at[0].set(legal0),
                   next=jnp.zeros((depth,), jnp.int32).at[0].set(jnp.where(win0 > -jnp.inf, n2, 0)),
                   alpha=jnp.full((depth,), -jnp.inf).at[0].set(win0), beta=jnp.full((depth,), jnp.inf),
                   best=jnp.full((depth,), -jnp.inf).at[0].set(win0))
    carry = (jnp.int32(0), stack, jnp.where(win0 > -jnp.inf, first_win, NO_MOVE), jnp.zeros((depth,), jnp.int32))

    def step(carry):
        sp, st, root_move, took = carry
        d_mover = jnp.where(sp % 2 == 0, mover, 1 - mover)
        cand = st.legal[sp][order] & (jnp.arange(n2) >= st.next[sp])
        live = jnp.any(cand) & (st.alpha[sp] < st.beta[sp])
        j = jnp.argmax(cand)
        c = order[j]
        o = st.out[sp, c]
        child = _place(st.board[sp], c, d_mover)
        decided = (o != ONGOING) | (sp + 1 >= depth)
        v_decided = jnp.where(o != ONGOING, _move_values(st.out[sp], d_mover, sp)[c],
                              -line_heuristic(child, 1 - d_mover, params))
        # a value to fold into frame `at` for move `move`: a decided child, or a finished frame
        finished_v = -st.best[sp]
        value = jnp.where(live, v_decided, finished_v)
        at = jnp.where(live, sp, sp - 1)
        move = jnp.where(live, c, took[jnp.maximum(sp, 0)])
        fold = (~live | decided) & (at >= 0)
        at_c = jnp.maximum(at, 0)
        better = fold & (value > st.best[at_c])
        st = st.replace(best=st.best.at[at_c].set(jnp.where(better, value, st.best[at_c])),
                        alpha=st.alpha.at[at_c].set(jnp.where(fold, jnp.maximum(st.alpha[at_c], value),
                                                               st.alpha[at_c])),
                        next=st.next.at[sp].set(jnp.where(live, j + 1, st.next[sp])))
        root_move = jnp.where(better & (at == 0), move, root_move)
        # push the undecided child as frame sp + 1
        push = live & ~decided
        d1 = jnp.minimum(sp + 1, depth - 1)
        out1, legal1, win1, _ = _frame(child, 1 - d_mover, ply + sp + 1, d1, params)
        pushed = st.replace(board=st.board.at[d1].set(child), out=st.out.at[d1].set(out1),
                            legal=st.legal.at[d1].set(legal1),
                            next=st.next.at[d1].set(jnp.where(win1 > -jnp.inf, n2, 0)),
                            alpha=st.alpha.at[d1].set(jnp.maximum(-st.beta[sp], win1)),
                            beta=st.beta.at[d1].set(-st.alpha[sp]), best=st.best.at[d1].set(win1))
        st = jax.tree.map(lambda a, b: jnp.where(push, a, b), pushed, st)
        took = jnp.where(push, took.at[d1].set(c), took)
        sp = jnp.where(push, sp + 1, jnp.where(live, sp, sp - 1))
        return sp, st, root_move, took

    sp, st, root_move, _ = jax.lax.while_loop(lambda c: c[0] >= 0, step, carry)
    return root_move.astype(jnp.int32), st.best[0]


@functools.cache
def minimax_policy(depth: int):
    """The array policy `(key, state, params) -> cell` searching `depth` plies (1..MAX_DEPTH) for
    the seat to move; one function per depth, so every grid variant shares its compiles."""
    if not isinstance(depth, int) or isinstance(depth, bool) or not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"minimax depth must be an integer in 1..{MAX_DEPTH}, got {depth!r}")

    def act(key: jax.Array, state: GridState, params: GridParams) -> jax.Array:
        order = jax.random.permutation(key, state.board.size)
        cell, _ = search(state.board, state.mover, state.t, params, depth, order)
        return cell
    return act
