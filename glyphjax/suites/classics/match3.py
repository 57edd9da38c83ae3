"""Match-3 on an 8x8 board of 6 gem types.

Rules (catalogue §5 row 15): SWAP_r_c_DIR swaps the gem at (r, c) with its neighbour in DIR; it
applies only if afterwards one of the two swapped gems lies in a horizontal or vertical line of 3+
equal gems (otherwise, or off the board, a no-op). All gems in lines of 3+ are cleared, the gems
above fall down, and new random gems drop in from the top; new lines formed by the fall clear too
(cascades), up to CASCADE_ROUNDS = 12 rounds per move (a static bound; a 13th cascade is
vanishingly rare and would simply clear on the next move). If no swap can make a match, the board
is replaced by a fresh one (no reward). Start boards have no line of 3 (generation that never
repeats the colour completing a line to the left or above, one anti-diagonal at a time).

Reward (pattern A, capped): +1/100 per gem cleared by the player's swap itself; gems cleared by
cascades pay 0. Total capped at 1.0 (the last reward is trimmed); reaching 100 gems wins and ends
the episode. Return in [0, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._boards import shift
from glyphjax.suites.classics.common import DIR_DELTAS, DIR_NAMES, codepoints

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
    out = jnp.zeros(board.shape, jnp.bool_)
    for dr, dc in ((0, 1), (1, 0)):
        start = (board >= 0) & (board == shift(board, -dr, -dc, -1)) & (board == shift(board, -2 * dr, -2 * dc, -1))
        out = out | start | shift(start, dr, dc, False) | shift(start, 2 * dr, 2 * dc, False)
    return out


def swap(board: jax.Array, action: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """-> (board after the swap, in-bounds flag, bool mask of the two swapped cells)."""
    a = jnp.clip(action, 0, SIZE * SIZE * 4 - 1)
    r, c, d = a // (4 * SIZE), (a // 4) % SIZE, a % 4
    r2, c2 = r + DIR_DELTAS[d, 0], c + DIR_DELTAS[d, 1]
    ok = (action >= 0) & (r2 >= 0) & (r2 < SIZE) & (c2 >= 0) & (c2 < SIZE)
    r2, c2 = jnp.clip(r2, 0, SIZE - 1), jnp.clip(c2, 0, SIZE - 1)
    g1, g2 = board[r, c], board[r2, c2]
    swapped = board.at[r, c].set(g2).at[r2, c2].set(g1)
    cells = jnp.zeros(board.shape, jnp.bool_).at[r, c].set(True).at[r2, c2].set(True)
    return jnp.where(ok, swapped, board), ok, cells


def swap_makes_match(board: jax.Array, action: jax.Array) -> jax.Array:
    new, ok, cells = swap(board, action)
    return ok & jnp.any(line_mask(new) & cells)


def collapse(board: jax.Array, cleared: jax.Array, refill: jax.Array) -> jax.Array:
    """Remove cleared gems, let the rest fall (column order kept), fill the emptied top cells from
    `refill` (int32[8, 8] random kinds).

    Each gem falls by the number of empty cells below it (a reverse cumulative sum), placed with
    a one-hot sum instead of a sort (elementwise: fast under vmap)."""
    gem = ~cleared
    empty = cleared.astype(jnp.int32)
    below = jnp.cumsum(empty[::-1], axis=0)[::-1] - empty  # empties strictly below each cell
    dest = jnp.arange(SIZE)[:, None] + below  # [r_src, c]
    hit = (dest[:, None, :] == jnp.arange(SIZE)[None, :, None]) & gem[:, None, :]  # [r_src, r_out, c]
    fallen = jnp.sum(jnp.where(hit, board[:, None, :] + 1, 0), axis=0) - 1  # -1 where no gem lands
    return jnp.where(fallen < 0, refill, fallen)


_POW6 = jnp.array([6 ** k for k in range(10)], jnp.uint32)


def refill_kinds(words: jax.Array, i) -> jax.Array:
    """Random kinds for refill round i from uint32 words [2, 8, 8]: base-6 digit i % 10 of word
    i // 10 (PRNG output is the cost on CPU, so one word serves ten rounds; bias < 2%)."""
    w = words[i // 10]
    return ((w // _POW6[i % 10]) % KINDS).astype(jnp.int32)


def fresh_board(key: jax.Array) -> jax.Array:
    """A board with no line of 3: each cell takes a random kind, or the next kind (cyclically) that
    does not complete a line to its left or above (at most two kinds are ever banned).

    Cells depend only on their left and upper neighbours, so anti-diagonals r + c = k are filled
    in 15 vectorised steps (a wavefront) instead of 64 sequential cells."""
    start = jax.random.randint(key, (SIZE, SIZE), 0, KINDS, dtype=jnp.int32)
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


# A swap makes a line iff, for some triple of cells in a row, two hold the same gem and a gem of
# that kind sits next to the third cell (outside the triple): (pair, pair, sources) offsets.
_HORIZONTAL_PATTERNS = (
    ((0, 0), (0, 1), ((0, 3), (-1, 2), (1, 2))),
    ((0, 1), (0, 2), ((0, -1), (-1, 0), (1, 0))),
    ((0, 0), (0, 2), ((-1, 1), (1, 1))),
)


def _pattern_tables():
    """Static index tables for `has_move`: the distinct offsets the patterns use, and per pattern
    (both orientations) the offset numbers of the pair and of up to 3 sources (missing sources
    point at a sentinel plane that never equals a gem)."""
    pats = [(p, q, src) for p, q, src in _HORIZONTAL_PATTERNS]
    pats += [(p[::-1], q[::-1], tuple(o[::-1] for o in src)) for p, q, src in _HORIZONTAL_PATTERNS]
    offsets = sorted({o for p, q, src in pats for o in (p, q, *src)})
    num = {o: i for i, o in enumerate(offsets)}
    sentinel = len(offsets)
    pair = [[num[p], num[q]] for p, q, _ in pats]
    srcs = [[num[o] for o in src] + [sentinel] * (3 - len(src)) for _, _, src in pats]
    return offsets, pair, srcs


_OFFSETS, _PAIR_IDX, _SRC_IDX = _pattern_tables()
_PAD = 3  # the largest offset in the patterns


def has_move(board: jax.Array) -> jax.Array:
    """Some swap makes a line: local patterns, evaluated for all cells and patterns at once from
    one gather of shifted board copies (no per-swap board copies; one small program).
    Equal to trying all swaps on a board without lines (a test checks it)."""
    padded = jnp.pad(board, _PAD, constant_values=-1)
    rr = jnp.arange(SIZE)[None, :, None] + _PAD + jnp.array([o[0] for o in _OFFSETS])[:, None, None]
    cc = jnp.arange(SIZE)[None, None, :] + _PAD + jnp.array([o[1] for o in _OFFSETS])[:, None, None]
    at = padded[rr, cc]  # [offset, r, c] = board[r + dr, c + dc] (-1 outside)
    at = jnp.concatenate([at, jnp.full((1, SIZE, SIZE), -2, board.dtype)])  # sentinel plane
    pair_idx, src_idx = jnp.array(_PAIR_IDX), jnp.array(_SRC_IDX)
    p, q = at[pair_idx[:, 0]], at[pair_idx[:, 1]]  # [pattern, r, c]
    pair = (p == q) & (p >= 0)
    near = jnp.any(at[src_idx] == p[:, None], axis=1)
    return jnp.any(pair & near)


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
        k_fall, k_shuffle = jax.random.split(key)
        words = jax.random.bits(k_fall, (2, SIZE, SIZE), jnp.uint32)  # 20 refill rounds
        board = collapse(new, lines, refill_kinds(words, 0))

        def cascade(i, b):
            m = line_mask(b)
            return jnp.where(jnp.any(m), collapse(b, m, refill_kinds(words, i + 1)), b)
        board = jax.lax.fori_loop(0, CASCADE_ROUNDS, cascade, board)
        board = jnp.where(valid, board, state.board)
        stuck = ~has_move(board)
        board = jnp.where(stuck, fresh_board(k_shuffle), board)
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
