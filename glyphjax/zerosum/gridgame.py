"""The grid-placement template (Tic-Tac-Toe seed): one kernel for every grid family.

Game: two seats place marks in turn on an n x n board, seat 0 first; an action is a canonical
cell `r * n + c`. The family's hooks (gamesmith.md §2.1) are rule clauses held as traced params
(`GridParams`), so one compiled program serves every rule and encoding variant of a board size:
- legal: the cell is valid (not blocked), empty, not forbidden on the first move, and with
  `gravity` supported (bottom row, or the cell below is taken or blocked);
- apply: the mover's mark goes on the cell (with `shared`, both seats place the same mark);
- outcome, checked after each move: a line of `k` of the mover's marks (of any marks if `shared`)
  along an enabled direction (`dirs`: row, column, diagonal, anti-diagonal; wrapping round the
  edges with `torus`) wins for the mover, or loses with `misere`; else, with `square = s > 0`,
  holding the four corners of an s x s square loses for the mover; else a position where the next
  seat has no legal move is a draw.

Reward (terminal, zero-sum): +1 to the winner, -1 to the loser, 0 each for a draw. An illegal move
(or no move) forfeits (`card.illegal = "forfeit"`, gamesmith.md §3: an invalid reply is a loss).
Each seat sees its own marks with the encoding's first glyph and the other seat's with the second;
neither seat has private information. max_steps = n * n plies, which the board can never exceed.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from glyphjax.core.grid import codepoints, shift
from glyphjax.core.sampling import hash32, uniform_true
from glyphjax.core.types import FORFEIT, Env, EnvState, TaskCard, init_state_fields
from glyphjax.zerosum.encoding import BLOCKED_GLYPH, EMPTY_GLYPH, Encoding
from glyphjax.zerosum.onehot import choose, flag, put, take

ONGOING, DRAW = -1, 2  # GridState.winner besides the winning seat 0 / 1
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # row, column, diagonal, anti-diagonal
EV_START, EV_START_2, EV_WIN, EV_LOSS, EV_DRAW, EV_MOVED, EV_OTHER_MOVED = 1, 2, 3, 4, 5, 6, 7
EV_ILLEGAL, EV_OTHER_ILLEGAL, EV_NO_MOVE, EV_OTHER_NO_MOVE = 8, 9, 10, 11
# Events are stored as seat 0 reads them; seat 1 reads SWAP[event].
SWAP = jnp.array([0, 2, 1, 4, 3, 5, 7, 6, 9, 8, 11, 10], jnp.int32)
EVENTS = ("", "You move first.", "The opponent moves first.", "The game is over: you win.",
          "The game is over: you lose.", "No legal move remains: the game is a draw.",
          "You placed a mark; the opponent moves next.", "The opponent placed a mark; your move.",
          "That cell is not a legal move: an illegal move forfeits the game. You lose.",
          "The opponent made an illegal move and forfeits. You win.",
          "You made no move: that forfeits the game. You lose.",
          "The opponent made no move and forfeits. You win.")


@struct.dataclass
class GridParams:
    """Traced rule clauses and encoding of one grid variant (shapes fixed by the board size n)."""

    k: jax.Array  # int32: line length that decides the game
    dirs: jax.Array  # bool[4]: which line directions count (DIRECTIONS order)
    torus: jax.Array  # bool: lines wrap round the board edges
    gravity: jax.Array  # bool: marks must rest on the bottom row or on a taken/blocked cell
    misere: jax.Array  # bool: completing a line loses instead of winning
    shared: jax.Array  # bool: both seats place the same mark (any k marks in a line count)
    square: jax.Array  # int32: s > 0: the mover holding the 4 corners of an s x s square loses
    valid: jax.Array  # bool[n, n]: cells of the board (False = blocked)
    first_forbidden: jax.Array  # bool[n, n]: cells the first move may not take
    glyphs: jax.Array  # uint32[4]: empty, own mark, other mark, blocked (the encoding's)
    display: jax.Array  # int32[n*n]: canonical cell shown at each display position


@struct.dataclass
class GridState(EnvState):
    board: jax.Array  # int8[n, n]: 0 empty, 1 seat 0's mark, 2 seat 1's mark
    mover: jax.Array  # int32: the seat to move
    last: jax.Array  # int32[2]: each seat's last cell (-1 = none yet)
    winner: jax.Array  # int32: ONGOING, 0 / 1 (the winning seat) or DRAW


def _moved(a: jax.Array, dr: int, dc: int, torus: jax.Array) -> jax.Array:
    """out[r, c] = a[r + dr, c + dc] of a bool mask, wrapping round the edges when `torus` (else
    False): one roll, and the cells whose source lies off the board masked out."""
    h, w = a.shape
    inside = np.zeros((h, w), bool)
    inside[max(0, -dr):h - max(0, dr), max(0, -dc):w - max(0, dc)] = True
    return jnp.roll(a, (-dr, -dc), axis=(0, 1)) & (torus | inside)


def has_line(mask: jax.Array, params: GridParams) -> jax.Array:
    """True if `mask` holds k in a row along an enabled direction (bool[n, n] -> bool). Boards of a
    side in LINE_TABLE_SIDES look the answer up in a table (`_line_lookup`), others shift."""
    if mask.shape[0] in LINE_TABLE_SIDES:
        return _line_lookup(mask, params)
    return _line_shifts(mask, params)


def _line_shifts(mask: jax.Array, params: GridParams) -> jax.Array:
    """has_line by shifting: along each direction, AND the mask with its 1..k-1 step shifts."""
    n = mask.shape[0]
    found = jnp.zeros((), jnp.bool_)
    for d, (dr, dc) in enumerate(DIRECTIONS):
        run, moved = mask, mask
        for j in range(1, n):
            moved = _moved(moved, dr, dc, params.torus)
            run = run & (moved | (j >= params.k))
        found = found | (params.dirs[d] & jnp.any(run))
    return found


LINE_TABLE_SIDES = (3,)  # static sides whose line check is one lookup over all 2^(n*n) boards


@functools.lru_cache(maxsize=None)
def line_table(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The line check of an n x n board as a table (pgx's precomputed lines, with every rule
    clause kept): a line class is (direction d, length L, wraps), wraps = every placement of its
    cells crosses an edge (counts on a torus only). -> (table uint32[2^(n*n)]: bit c set when the
    marks b, bit r*n+c = cell (r, c), fill a window of class c; and each class's d, L, wraps)."""
    classes = [(d, length, wraps) for d in range(4) for length in range(2, n + 1) for wraps in (False, True)]
    if len(classes) > 32:
        raise ValueError(f"{n}x{n}: {len(classes)} line classes do not fit a uint32 word")
    windows = {}  # (d, L, cell set) -> True while every placement seen wraps
    for d, (dr, dc) in enumerate(DIRECTIONS):
        for length in range(2, n + 1):
            for r in range(n):
                for c in range(n):
                    cells = [((r + j * dr) % n) * n + (c + j * dc) % n for j in range(length)]
                    wraps = not (0 <= r + (length - 1) * dr < n and 0 <= c + (length - 1) * dc < n)
                    key = (d, length, frozenset(cells))
                    windows[key] = windows.get(key, True) and wraps
    boards = np.arange(1 << (n * n), dtype=np.uint32)
    table = np.zeros(boards.shape, np.uint32)
    for (d, length, cells), wraps in windows.items():
        bits = np.uint32(sum(1 << c for c in cells))
        table |= np.where((boards & bits) == bits, np.uint32(1 << classes.index((d, length, wraps))), np.uint32(0))
    d, length, wraps = (np.array(x) for x in zip(*classes))
    return table, d.astype(np.int32), length.astype(np.int32), wraps


def _line_lookup(mask: jax.Array, params: GridParams) -> jax.Array:
    """has_line as one table lookup (`line_table`): the same answer as `_line_shifts`."""
    n = mask.shape[0]
    table, d, length, wraps = line_table(n)
    bits = jnp.sum(jnp.where(mask.reshape(-1), np.left_shift(1, np.arange(n * n)).astype(np.int32), 0))
    on = params.dirs[d] & (params.k == length) & (params.torus | ~wraps)
    word = jnp.sum(jnp.where(on, np.left_shift(np.uint32(1), np.arange(len(d), dtype=np.uint32)), np.uint32(0)),
                   dtype=jnp.uint32)
    return (jnp.asarray(table)[bits] & word) != 0  # a gather: one read per board, not 2^(n*n)


def has_square(mask: jax.Array, params: GridParams) -> jax.Array:
    """True if `mask` holds the four corners of an s x s square, s = params.square (0 = off)."""
    n = mask.shape[0]
    found = jnp.zeros((), jnp.bool_)
    for s in range(2, n + 1):
        d = s - 1
        corners = mask & shift(mask, 0, -d, False) & shift(mask, -d, 0, False) & shift(mask, -d, -d, False)
        found = found | ((params.square == s) & jnp.any(corners))
    return found


def legal_cells(board: jax.Array, ply: jax.Array, params: GridParams) -> jax.Array:
    """bool[n*n]: the cells the seat to move may take (the legality hook)."""
    free = params.valid & (board == 0) & ~((ply == 0) & params.first_forbidden)
    support = shift((board != 0) | ~params.valid, -1, 0, True)  # cell below taken, or the floor
    return (free & (~params.gravity | support)).reshape(-1)


def outcome(board: jax.Array, mover: jax.Array, ply: jax.Array, params: GridParams) -> jax.Array:
    """The outcome hook after `mover` moved: ONGOING, the winning seat, or DRAW."""
    mine = board == (mover + 1)
    line = has_line(jnp.where(params.shared, board != 0, mine), params)
    square = has_square(mine, params)
    stuck = ~jnp.any(legal_cells(board, ply + 1, params))
    mover_wins = line & ~params.misere
    mover_loses = (line & params.misere) | (~line & square)
    return choose([mover_wins, mover_loses, stuck], [mover, 1 - mover, DRAW], ONGOING).astype(jnp.int32)


class GridGame(Env):
    """One variant of the grid template: the static board size n, traced `params`, and a card
    written on the host from the variant's rules text and encoding."""

    def __init__(self, task_id: str, n: int, params: GridParams, rules: str, encoding: Encoding):
        self.n, self.encoding = n, encoding
        self.scripted_policy = self.bot_policy  # eval's `scripted`: both seats play the reference bot
        self._params = jax.tree.map(jnp.asarray, params)
        own, other = encoding.marks_of(bool(params.shared))
        names = encoding.action_names(n)
        glyphs = {EMPTY_GLYPH: "an empty cell"}
        if bool(params.shared):
            glyphs[own] = "a mark (both players place this mark)"
        else:
            glyphs.update({own: "your mark", other: "the opponent's mark"})
        if not bool(np.all(np.asarray(params.valid))):
            glyphs[BLOCKED_GLYPH] = "a blocked cell (no mark may go there)"
        self.card = TaskCard(
            id=task_id, rules=rules, actions=names,
            action_descriptions=tuple(f"place your mark on cell {a}" for a in names),
            glyphs=glyphs, hud="Step: {step} / {max_steps}    Opponent's last move: {other_last}",
            hud_fields=("other_last",), hud_enums={"other_last": ("none", *names)},
            max_steps=n * n,
            reward="+1 if you win, -1 if you lose, 0 for a draw; an illegal move: -1 to its "
                   "player, +1 to the other.",
            events=EVENTS, num_players=2, illegal=FORFEIT, zero_sum=True,
            success=(EV_WIN, EV_OTHER_ILLEGAL, EV_OTHER_NO_MOVE))

    def default_params(self) -> GridParams:
        return self._params

    def static_config(self):
        return ("zerosum-grid", self.n)

    def _reset(self, key, params):
        n = self.n
        return GridState(**{**init_state_fields(), "event": jnp.int32(EV_START)},
                         board=jnp.zeros((n, n), jnp.int8), mover=jnp.int32(0),
                         last=jnp.full((2,), -1, jnp.int32), winner=jnp.int32(ONGOING))

    def _to_play(self, state):
        return state.mover

    def _legal(self, state, params):
        return legal_cells(state.board, state.t, params)

    def _step(self, key, state: GridState, action, params):
        n, mover = self.n, state.mover
        cell = jnp.clip(action, 0, n * n - 1)
        ok = (action >= 0) & flag(legal_cells(state.board, state.t, params), cell)
        board = _place(state.board, cell, mover)
        winner = outcome(board, mover, state.t, params)
        seats = jnp.arange(2)
        reward = jnp.where((winner == 0) | (winner == 1), jnp.where(seats == winner, 1.0, -1.0), 0.0)
        seen = choose([action < 0, ~ok, winner == mover, winner == 1 - mover, winner == DRAW],
                          [EV_NO_MOVE, EV_ILLEGAL, EV_WIN, EV_LOSS, EV_DRAW], EV_MOVED)  # as the mover reads it
        event = jnp.where(mover == 0, seen, take(SWAP, seen))
        nxt = state.replace(board=board, mover=1 - mover, last=put(state.last, mover, cell),
                            winner=winner)
        return nxt, reward, winner != ONGOING, event

    def _seat_event(self, state, seat):
        return jnp.where(seat == 0, state.event, take(SWAP, state.event))

    def _render(self, state: GridState, params, seat):
        codes = jnp.where(state.board == 0, 0, jnp.where(state.board == seat + 1, 1, 2))
        codes = jnp.where(params.valid, codes, 3).reshape(-1)[params.display]
        return params.glyphs[codes].reshape(self.n, self.n), (state.last[1 - seat] + 1,)

    def value(self, state: GridState, params, seat) -> jax.Array:
        """V(s) for `seat` (see `grid_value`)."""
        return grid_value(state, params, seat)

    def fill(self, state: GridState, params) -> jax.Array:
        """float32: occupied share of the valid cells (the fingerprint's board fill)."""
        taken = jnp.sum((state.board != 0) & params.valid)
        return (taken / jnp.maximum(jnp.sum(params.valid), 1)).astype(jnp.float32)

    def bot_policy(self, key: jax.Array, state: GridState, params) -> jax.Array:
        """Reference bot (ours, gamesmith.md §4): a move that wins now, else one taking a cell
        where the other seat would win now, else a random legal move that does not lose at once."""
        n, mover = self.n, state.mover
        legal = legal_cells(state.board, state.t, params)
        cells = jnp.arange(n * n)

        def result(cell, who):
            board = state.board.reshape(-1).at[cell].set((who + 1).astype(jnp.int8)).reshape(n, n)
            return outcome(board, who, state.t, params)
        mine = jax.vmap(lambda c: result(c, mover))(cells)
        theirs = jax.vmap(lambda c: result(c, 1 - mover))(cells)
        wins, blocks = legal & (mine == mover), legal & (theirs == 1 - mover)
        safe = legal & (mine != 1 - mover)
        pick = choose([jnp.any(wins), jnp.any(blocks), jnp.any(safe)], [wins, blocks, safe], legal)
        return jnp.where(jnp.any(legal), uniform_true(pick, jax.random.uniform(key)), -1).astype(jnp.int32)

    def minimax_policy(self, depth: int):
        """The depth-limited alpha-beta bot (`glyphjax.zerosum.minimax`), shared by every variant."""
        from glyphjax.zerosum.minimax import minimax_policy
        return minimax_policy(depth)

    def chance(self, state: GridState) -> jax.Array:
        """int32[0]: grid games have no chance outcomes."""
        return jnp.zeros((0,), jnp.int32)

    def canonical_view(self, state: GridState, seat, params) -> jax.Array:
        """int32[n*n]: the board as `seat` knows it in canonical cells (0 empty, 1 own, 2 other,
        3 blocked) — what the independent re-implementation is compared on."""
        codes = jnp.where(state.board == 0, 0, jnp.where(state.board == seat + 1, 1, 2))
        return jnp.where(params.valid, codes, 3).reshape(-1).astype(jnp.int32)


def glyph_table(encoding: Encoding, shared: bool) -> np.ndarray:
    """uint32[4] code points of (empty, own, other, blocked) for an encoding."""
    own, other = encoding.marks_of(shared)
    return np.asarray(codepoints(EMPTY_GLYPH + own + other + BLOCKED_GLYPH), np.uint32)


PLAYOUTS = 16  # gamesmith.md §2.1: mean outcome of 16 random playouts


def _place(board: jax.Array, cell: jax.Array, who: jax.Array) -> jax.Array:
    """The board with `who`'s mark on canonical cell `cell` (a select, not a scatter)."""
    n = board.shape[0]
    return put(board.reshape(-1), cell, (who + 1).astype(jnp.int8)).reshape(n, n)


def _seat_score(winner: jax.Array, seat: jax.Array) -> jax.Array:
    """+1 / -1 / 0 of an outcome (ONGOING counts 0) from `seat`'s view."""
    return jnp.where(winner == seat, 1.0, jnp.where((winner == 0) | (winner == 1), -1.0, 0.0))


def forced_value(board, mover, ply, params) -> tuple[jax.Array, jax.Array]:
    """Depth-2 minimax with unknown leaves (gamesmith.md §3, ours) -> (decided, value for the
    mover): a win now; every move losing at once or allowing an immediate loss; every move a draw."""
    cells = jnp.arange(board.size)
    legal = legal_cells(board, ply, params)

    def first(c):
        b1 = _place(board, c, mover)
        o1 = outcome(b1, mover, ply, params)
        replies = legal_cells(b1, ply + 1, params)
        o2 = jax.vmap(lambda d: outcome(_place(b1, d, 1 - mover), 1 - mover, ply + 1, params))(cells)
        allows_loss = (o1 == ONGOING) & jnp.any(replies & (o2 == 1 - mover))
        return o1, allows_loss
    o1, allows_loss = jax.vmap(first)(cells)
    win = jnp.any(legal & (o1 == mover))
    loses = jnp.all(~legal | (o1 == 1 - mover) | allows_loss)
    draws = jnp.all(~legal | (o1 == DRAW))
    decided = win | loses | draws
    return decided, jnp.where(win, 1.0, jnp.where(loses, -1.0, 0.0))


def playout_value(board, mover, ply, params, seat) -> jax.Array:
    """Mean outcome for `seat` of PLAYOUTS uniformly random legal playouts, keyed by a hash of
    the position (so V is a deterministic function of what the seat sees)."""
    n2 = board.size
    words = jnp.concatenate([board.reshape(-1).astype(jnp.uint32), jnp.stack([mover, ply]).astype(jnp.uint32)])
    h = jax.lax.fori_loop(0, words.shape[0], lambda i, acc: hash32(acc * jnp.uint32(31) + words[i]), jnp.uint32(7))
    key = jax.random.fold_in(jax.random.PRNGKey(0), h)

    def one(k):
        def body(i, carry):
            b, who, t, winner = carry
            legal = legal_cells(b, t, params)
            live = (winner == ONGOING) & jnp.any(legal)
            c = uniform_true(legal, jax.random.uniform(jax.random.fold_in(k, i)))
            b2 = _place(b, c, who)
            w2 = outcome(b2, who, t, params)
            return (jnp.where(live, b2, b), jnp.where(live, 1 - who, who), t + live, jnp.where(live, w2, winner))
        _, _, _, winner = jax.lax.fori_loop(0, n2, body, (board, mover, ply, jnp.int32(ONGOING)))
        return _seat_score(winner, seat)
    return jnp.mean(jax.vmap(one)(jax.random.split(key, PLAYOUTS)))


def grid_value(state: GridState, params: GridParams, seat) -> jax.Array:
    """V(s) for `seat` (gamesmith.md §2.1): the outcome if the game is over or decided within two
    plies, else the mean of 16 seeded random playouts. Grid games have no hidden state."""
    decided, v_mover = forced_value(state.board, state.mover, state.t, params)
    v_seat = jnp.where(state.mover == seat, v_mover, -v_mover)
    playouts = playout_value(state.board, state.mover, state.t, params, seat)
    over = _seat_score(state.winner, seat)
    return jnp.where(state.done, over, jnp.where(decided, v_seat, playouts)).astype(jnp.float32)
