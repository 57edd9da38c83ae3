"""Match-3 on an 8x8 board of 6 gem types.

Rules (catalogue §5 row 15): SWAP_r_c_DIR swaps the gem at (r, c) with its neighbour in DIR; it
applies only if afterwards one of the two swapped gems lies in a horizontal or vertical line of 3+
equal gems (otherwise, or off the board, a no-op). All gems in lines of 3+ are cleared, the gems
above fall down, and new random gems drop in from the top; new lines formed by the fall clear too
(cascades), up to CASCADE_ROUNDS = 12 rounds per move (a static bound on a `while_loop` that
stops when no line is left; a 13th cascade is vanishingly rare and would simply clear on the next
move). If no swap can make a match, the board is replaced by a fresh one without lines (no reward;
`replacement_board`: a loop-free construction, see there). Start boards have no line of 3
(generation that never repeats the colour completing a line to the left or above, one
anti-diagonal at a time). The step's random gems (refills, replacement board) come from an integer
hash of the step key, the round and the cell (`random_kinds`), not from Threefry draws.

Reward (pattern A, capped): +1/100 per gem cleared by the player's swap itself; gems cleared by
cascades pay 0. Total capped at 1.0 (the last reward is trimmed); reaching 100 gems wins and ends
the episode. Return in [0, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import DIR_DELTAS, DIR_NAMES, codepoints, shift
from glyphjax.core.registry import register
from glyphjax.core.sampling import hash32, key_words
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields

SIZE = 8
KINDS = 6
TARGET = 100
CASCADE_ROUNDS = 12
GEMS = "♥♦✿♠♪✦"
GEM_NAMES = ("heart", "diamond", "flower", "spade", "note", "star")
_TABLE = codepoints(GEMS)
EV_MATCH, EV_NOMATCH, EV_SHUFFLE, EV_WIN = 1, 2, 3, 4
EVENTS = ("", "Your swap made a match.", "That swap makes no line of 3. Nothing happens.",
          "No swap could make a match: the board was replaced by a fresh one.",
          "You matched 100 gems. You win!")


@struct.dataclass
class Match3State(EnvState):
    board: jax.Array  # int32[8, 8] gem kinds 0..5
    gems: jax.Array  # int32: gems cleared by your swaps (capped at 100 for the reward)


def line_mask(board: jax.Array) -> jax.Array:
    """bool[8, 8]: cells in a horizontal or vertical line of >= 3 equal gems (-1 = empty, never)."""
    def starts(a):  # [r, c]: a[r, c], a[r, c+1], a[r, c+2] equal gems (c < width - 2)
        return (a[:, :-2] >= 0) & (a[:, :-2] == a[:, 1:-1]) & (a[:, 1:-1] == a[:, 2:])

    def spread(h):  # mark the three cells of each start
        return (jnp.pad(h, ((0, 0), (0, 2))) | jnp.pad(h, ((0, 0), (1, 1))) | jnp.pad(h, ((0, 0), (2, 0))))
    return spread(starts(board)) | spread(starts(board.T)).T


def swap(board: jax.Array, action: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """-> (board after the swap, in-bounds flag, bool mask of the two swapped cells)."""
    a = jnp.clip(action, 0, SIZE * SIZE * 4 - 1)
    r, c, d = a // (4 * SIZE), (a // 4) % SIZE, a % 4
    r2, c2 = r + DIR_DELTAS[d, 0], c + DIR_DELTAS[d, 1]
    ok = (action >= 0) & (r2 >= 0) & (r2 < SIZE) & (c2 >= 0) & (c2 < SIZE)
    r2, c2 = jnp.clip(r2, 0, SIZE - 1), jnp.clip(c2, 0, SIZE - 1)
    rows, cols = jnp.meshgrid(jnp.arange(SIZE), jnp.arange(SIZE), indexing="ij")
    at1, at2 = (rows == r) & (cols == c), (rows == r2) & (cols == c2)  # one-hot masks, no scatter
    g1, g2 = jnp.sum(jnp.where(at1, board, 0)), jnp.sum(jnp.where(at2, board, 0))
    swapped = jnp.where(at1, g2, jnp.where(at2, g1, board))
    return jnp.where(ok, swapped, board), ok, at1 | at2


def swap_makes_match(board: jax.Array, action: jax.Array) -> jax.Array:
    new, ok, cells = swap(board, action)
    return ok & jnp.any(line_mask(new) & cells)


_BELOW = jnp.arange(SIZE)[None, :] > jnp.arange(SIZE)[:, None]  # [r, r2]: r2 is below r


def collapse(board: jax.Array, cleared: jax.Array, refill: jax.Array) -> jax.Array:
    """Remove cleared gems, let the rest fall (column order kept), fill the emptied top cells from
    `refill` (int32[8, 8] random kinds).

    Each gem falls by the number of empty cells below it (a masked sum with a constant triangular
    mask: XLA's cumsum on CPU is a slow scan), placed with a one-hot sum instead of a sort
    (elementwise: fast under vmap)."""
    gem, col = ~cleared.T, board.T  # [c, r]: columns as rows, so the sums run over the last axis
    below = jnp.sum(_BELOW[None, :, :] & cleared.T[:, None, :], axis=-1)  # [c, r]: empties below r
    dest = jnp.arange(SIZE)[None, :] + below  # [c, r_src]
    hit = (dest[:, None, :] == jnp.arange(SIZE)[None, :, None]) & gem[:, None, :]  # [c, r_out, r_src]
    fallen = jnp.sum(jnp.where(hit, col[:, None, :] + 1, 0), axis=-1).T - 1  # -1 where no gem lands
    return jnp.where(fallen < 0, refill, fallen)


_CELLS = jnp.arange(SIZE * SIZE, dtype=jnp.uint32).reshape(SIZE, SIZE) * jnp.uint32(0x9E3779B9)


def random_kinds(words: jax.Array, i) -> jax.Array:
    """int32[8, 8] random kinds for draw i (refill round or replacement board) of a step, from the
    step key's two words: an integer hash of (key, i, cell). A Threefry draw of 64 words per round
    would cost more than the rest of the step on CPU; a hash costs a few integer operations."""
    base = hash32(words[0] ^ hash32(words[1] + jnp.asarray(i, jnp.uint32)))
    return (hash32(base + _CELLS) % KINDS).astype(jnp.int32)


def fresh_board(key: jax.Array) -> jax.Array:
    """A board with no line of 3 from 64 random start kinds (`board_from_kinds`; the kinds are the
    key's hash, `random_kinds`, like the step's refills)."""
    return board_from_kinds(random_kinds(key_words(key), 0))


def board_from_kinds(start: jax.Array) -> jax.Array:
    """A board with no line of 3: each cell takes its start kind (int32[8, 8] in 0..5), or the next
    kind (cyclically) that does not complete a line to its left or above (at most two kinds are
    ever banned).

    Cells depend only on their left and upper neighbours, so anti-diagonals r + c = k are filled
    in 15 vectorised steps (a wavefront) instead of 64 sequential cells."""
    rows, cols = jnp.meshgrid(jnp.arange(SIZE), jnp.arange(SIZE), indexing="ij")

    def body(k, b):
        left1, left2 = shift(b, 0, 1, -1), shift(b, 0, 2, -1)
        up1, up2 = shift(b, 1, 0, -1), shift(b, 2, 0, -1)
        ban1 = jnp.where((left1 >= 0) & (left1 == left2), left1, -1)
        ban2 = jnp.where((up1 >= 0) & (up1 == up2), up1, -1)
        # a random start kind, then the next kinds in cyclic order: at most two are banned
        pick = start
        for j in (1, 2):
            cand = (start + j) % KINDS
            bad = (pick == ban1) | (pick == ban2)
            pick = jnp.where(bad, cand, pick)
        return jnp.where(rows + cols == k, pick, b)
    return jax.lax.fori_loop(0, 2 * SIZE - 1, body, jnp.full((SIZE, SIZE), -1, jnp.int32))


_DIAG3 = (jnp.arange(SIZE)[:, None] + jnp.arange(SIZE)[None, :]) % 3


def replacement_board(kinds: jax.Array) -> jax.Array:
    """The board that replaces a dead one, without a line of 3 and without a loop: cells with
    (row + column) % 3 == 0 take one of the kinds 0-2, those with remainder 1 one of the kinds
    3-5, the rest any kind (from `kinds`, random int32[8, 8] in 0..5). Every 3 consecutive cells
    of a row or column hold one cell of each remainder, so never 3 equal gems."""
    return jnp.where(_DIAG3 == 0, kinds % 3, jnp.where(_DIAG3 == 1, 3 + kinds % 3, kinds))


# A swap makes a line iff, for some triple of cells in a row, two hold the same gem and a gem of
# that kind sits next to the third cell (outside the triple): (pair, pair, sources) offsets.
_HORIZONTAL_PATTERNS = (
    ((0, 0), (0, 1), ((0, 3), (-1, 2), (1, 2))),
    ((0, 1), (0, 2), ((0, -1), (-1, 0), (1, 0))),
    ((0, 0), (0, 2), ((-1, 1), (1, 1))),
)


_PATTERNS = _HORIZONTAL_PATTERNS + tuple(
    (p[::-1], q[::-1], tuple(o[::-1] for o in src)) for p, q, src in _HORIZONTAL_PATTERNS)


def has_move(board: jax.Array) -> jax.Array:
    """Some swap makes a line: the local patterns above (both orientations), evaluated for all
    cells at once on static slices of one padded board (elementwise: no gathers, no per-swap board
    copies). Equal to trying all swaps on a board without lines (a test checks it)."""
    pad = 3  # the largest offset in the patterns
    padded = jnp.pad(board, pad, constant_values=-1)

    def at(o):  # at(o)[r, c] = board[r + dr, c + dc] (-1 outside)
        return padded[pad + o[0]:pad + o[0] + SIZE, pad + o[1]:pad + o[1] + SIZE]
    found = jnp.zeros(board.shape, jnp.bool_)
    for p, q, src in _PATTERNS:
        gem = at(p)
        near = at(src[0]) == gem
        for o in src[1:]:
            near = near | (at(o) == gem)
        found = found | ((gem == at(q)) & (gem >= 0) & near)
    return jnp.any(found)


def has_move_brute(board: jax.Array) -> jax.Array:
    """Reference: try every swap (right or down from each cell covers all swaps)."""
    cells = jnp.arange(SIZE * SIZE)
    acts = jnp.concatenate([cells * 4 + 1, cells * 4 + 3])  # DOWN and RIGHT
    return jnp.any(jax.vmap(lambda a: swap_makes_match(board, a))(acts))


class Match3(Env):
    def __init__(self, task_id: str = "classics/match3", max_steps: int = 200):
        names = [f"SWAP_{r}_{c}_{d}" for r in range(SIZE) for c in range(SIZE) for d in DIR_NAMES]
        self.card = TaskCard(
            id=task_id,
            rules=("Match-3 on an 8x8 board of 6 gem types. SWAP_r_c_DIR swaps the gem at row r, "
                   "column c with its neighbour in direction DIR; the swap happens only if it puts "
                   "one of the two gems in a horizontal or vertical line of 3 or more equal gems "
                   "(otherwise nothing happens). Lines are cleared, gems above fall down and new "
                   "random gems fill the top; lines formed by falling gems clear too (cascades). "
                   "If no swap can make a line, the board is replaced by a new one. Match 100 gems "
                   "with your own swaps to win."),
            actions=tuple(names),
            action_descriptions=tuple(
                f"swap the gem at row {r}, column {c} with the one {d.lower()} of it"
                for r in range(SIZE) for c in range(SIZE) for d in ("above", "below", "left", "right")),
            glyphs={g: f"{n} gem" for g, n in zip(GEMS, GEM_NAMES)},
            hud="Step: {step} / {max_steps}    Gems matched by your swaps: {gems} / 100",
            hud_fields=("gems",),
            max_steps=max_steps,
            reward=("+1/100 for each gem in the lines your swap makes; gems cleared by cascades pay "
                    "nothing. The total is capped at 1.0 (100 gems), which wins and ends the "
                    "episode. Return range [0, 1]."),
            events=EVENTS,
            success=(EV_WIN,),
            return_range=(0.0, 1.0),
            grid_labels=True,
        )

    def _reset(self, key, params):
        return Match3State(**init_state_fields(), board=fresh_board(key), gems=jnp.int32(0))

    def _step(self, key, state: Match3State, action, params):
        new, ok, cells = swap(state.board, action)
        lines = line_mask(new)
        valid = ok & jnp.any(lines & cells)
        made = jnp.where(valid, jnp.sum(lines), 0).astype(jnp.int32)
        words = key_words(key)
        board = collapse(new, lines, random_kinds(words, 0))

        def cascade(c):  # stops as soon as no line is left (under vmap: the batch's worst board)
            i, b, m = c
            b = collapse(b, m, random_kinds(words, i))
            return i + 1, b, line_mask(b)
        _, board, _ = jax.lax.while_loop(lambda c: (c[0] <= CASCADE_ROUNDS) & jnp.any(c[2]), cascade,
                                         (jnp.int32(1), board, line_mask(board)))
        board = jnp.where(valid, board, state.board)
        stuck = ~has_move(board)
        board = jnp.where(stuck, replacement_board(random_kinds(words, CASCADE_ROUNDS + 1)), board)
        gems = jnp.minimum(state.gems + made, TARGET)
        reward = (gems - state.gems).astype(jnp.float32) / TARGET
        won = gems >= TARGET
        event = jnp.select([won, stuck, valid, action >= 0], [EV_WIN, EV_SHUFFLE, EV_MATCH, EV_NOMATCH], 0)
        return state.replace(board=board, gems=gems), reward, won, event

    def _render(self, state: Match3State, params):
        return _TABLE[state.board], (state.gems,)

    @staticmethod
    def scripted_policy(key, state: Match3State, params):
        """A uniformly random swap among those that make a line."""
        acts = jnp.arange(SIZE * SIZE * 4)
        good = jax.vmap(lambda a: swap_makes_match(state.board, a))(acts)
        score = jnp.where(good, jax.random.uniform(key, acts.shape), -1.0)
        return jnp.argmax(score).astype(jnp.int32)


register("classics/match3", lambda: Match3())
