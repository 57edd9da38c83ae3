"""Tetris in a 6-wide x 10-tall well.

Rules (catalogue §5 row 28): the 7 tetrominoes (I, O, T, S, Z, J, L), chosen uniformly at random.
Each turn your action is applied first (LEFT/RIGHT shift one column, ROTATE_CW/ROTATE_CCW turn
the piece 90 degrees about its bounding box with no wall kicks, NOOP nothing; a blocked move is a
no-op), then gravity moves the piece down one row. A piece that cannot fall locks in place;
HARD_DROP drops it to the bottom and locks it at once. Full rows are cleared and the rows above
fall. A new piece then appears at the top (columns 1-4); if it does not fit, the game is over
(top-out, terminates with no penalty). Clearing 5 lines wins (terminates).

Reward (pattern A, capped): +0.2 per line cleared, counting at most 5 lines in all (a double that
passes 5 is trimmed). Return in [0, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from glyphjax.core.grid import codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics.common import FLOOR

ROWS, COLS = 10, 6
WIN_LINES = 5
ACTIONS = ("LEFT", "RIGHT", "ROTATE_CW", "ROTATE_CCW", "HARD_DROP", "NOOP")
LEFT, RIGHT, ROT_CW, ROT_CCW, HARD_DROP, NOOP = range(6)
PIECE_NAMES = ("I", "O", "T", "S", "Z", "J", "L")
# spawn orientation in its bounding box (box size n): list of (row, col)
_BASE = {
    "I": (4, [(1, 0), (1, 1), (1, 2), (1, 3)]),
    "O": (2, [(0, 0), (0, 1), (1, 0), (1, 1)]),
    "T": (3, [(0, 1), (1, 0), (1, 1), (1, 2)]),
    "S": (3, [(0, 1), (0, 2), (1, 0), (1, 1)]),
    "Z": (3, [(0, 0), (0, 1), (1, 1), (1, 2)]),
    "J": (3, [(0, 0), (1, 0), (1, 1), (1, 2)]),
    "L": (3, [(0, 2), (1, 0), (1, 1), (1, 2)]),
}


def _shape_table() -> np.ndarray:
    """int32[7, 4 rotations, 4 cells, 2] offsets; rotation CW maps (r, c) -> (c, n - 1 - r)."""
    table = np.zeros((7, 4, 4, 2), np.int32)
    for k, name in enumerate(PIECE_NAMES):
        n, cells = _BASE[name]
        cur = np.array(cells)
        for rot in range(4):
            table[k, rot] = cur
            cur = np.stack([cur[:, 1], n - 1 - cur[:, 0]], axis=1)
    return table


SHAPES = jnp.asarray(_shape_table())
SPAWN_ROW = jnp.asarray([-min(r for r, _ in _BASE[n][1]) for n in PIECE_NAMES], jnp.int32)
SPAWN_COL = jnp.asarray([(COLS - _BASE[n][0]) // 2 for n in PIECE_NAMES], jnp.int32)
LOCKED, ACTIVE = "▓", "◼"
_TABLE = codepoints(FLOOR + LOCKED + ACTIVE)
EV_LINE, EV_TOPOUT, EV_WIN, EV_LOCK = 1, 2, 3, 4
EVENTS = ("", "You cleared a line!", "The new piece does not fit: the well is full. Game over.",
          "5 lines cleared. You win!", "The piece locked in place.")


@struct.dataclass
class TetrisState(EnvState):
    well: jax.Array  # bool[10, 6] locked blocks
    piece: jax.Array  # int32 kind 0..6
    rot: jax.Array  # int32 0..3
    pos: jax.Array  # int32[2] row, col of the bounding box's top-left corner
    next_piece: jax.Array  # int32
    lines: jax.Array  # int32 lines cleared


def piece_cells(piece, rot, pos) -> jax.Array:
    """int32[4, 2] well coordinates of the piece's blocks."""
    return SHAPES[piece, rot % 4] + pos[None, :]


def fits(well: jax.Array, piece, rot, pos) -> jax.Array:
    cells = piece_cells(piece, rot, pos)
    r, c = cells[:, 0], cells[:, 1]
    inside = (r >= 0) & (r < ROWS) & (c >= 0) & (c < COLS)
    free = ~well[jnp.clip(r, 0, ROWS - 1), jnp.clip(c, 0, COLS - 1)]
    return jnp.all(inside & free)


def clear_lines(well: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Remove full rows, shift the rest down -> (well, number of rows cleared)."""
    full = jnp.all(well, axis=1)
    order = jnp.argsort(~full, stable=True)  # full rows first (to the top), others keep order
    moved = well[order]
    n = jnp.sum(full)
    moved = jnp.where((jnp.arange(ROWS) < n)[:, None], False, moved)
    return moved, n.astype(jnp.int32)


class Tetris(Env):
    def __init__(self, task_id: str = "classics/tetris", max_steps: int = 300):
        self.card = TaskCard(
            id=task_id,
            rules=("Tetris in a well 6 columns wide and 10 rows tall. Each turn your action is "
                   "applied, then the falling piece (◼) drops one row. LEFT/RIGHT shift it one "
                   "column, ROTATE_CW/ROTATE_CCW turn it 90 degrees (no wall kicks), HARD_DROP drops "
                   "it straight to the bottom and locks it, NOOP does nothing; a blocked move does "
                   "nothing. A piece that cannot fall any further locks (▓). Full rows are cleared "
                   "and everything above falls. The next piece appears at the top; if it does not "
                   "fit, the game is over. Clear 5 lines to win."),
            actions=ACTIONS,
            action_descriptions=("shift the piece one column left", "shift the piece one column right",
                                 "rotate the piece clockwise", "rotate the piece counter-clockwise",
                                 "drop the piece to the bottom and lock it", "do nothing (the piece still falls)"),
            glyphs={FLOOR: "empty floor", LOCKED: "locked block", ACTIVE: "falling piece"},
            hud="Step: {step} / {max_steps}    Lines: {lines} / 5    Piece: {piece}    Next: {next}",
            hud_fields=("lines", "piece", "next"),
            hud_enums={"piece": PIECE_NAMES, "next": PIECE_NAMES},
            max_steps=max_steps,
            reward=("+0.2 per line cleared, at most 5 lines in all (5 lines = 1.0 wins and ends the "
                    "episode). Topping out ends the episode with no penalty. Return range [0, 1]."),
            events=EVENTS,
            success=(EV_WIN,),
            return_range=(0.0, 1.0),
        )

    def _reset(self, key, params):
        k1, k2 = jax.random.split(key)
        piece = jax.random.randint(k1, (), 0, 7, dtype=jnp.int32)
        return TetrisState(**init_state_fields(), well=jnp.zeros((ROWS, COLS), jnp.bool_),
                           piece=piece, rot=jnp.int32(0),
                           pos=jnp.stack([SPAWN_ROW[piece], SPAWN_COL[piece]]),
                           next_piece=jax.random.randint(k2, (), 0, 7, dtype=jnp.int32),
                           lines=jnp.int32(0))

    def _step(self, key, state: TetrisState, action, params):
        well, piece = state.well, state.piece
        dcol = jnp.where(action == LEFT, -1, jnp.where(action == RIGHT, 1, 0))
        drot = jnp.where(action == ROT_CW, 1, jnp.where(action == ROT_CCW, 3, 0))
        pos_try = state.pos + jnp.stack([0, dcol])
        rot_try = (state.rot + drot) % 4
        ok = fits(well, piece, rot_try, pos_try)
        pos = jnp.where(ok, pos_try, state.pos)
        rot = jnp.where(ok, rot_try, state.rot)
        # gravity (or hard drop): fall while the piece fits, one row or all the way
        falls = jax.vmap(lambda d: fits(well, piece, rot, pos + jnp.stack([d, 0])))(jnp.arange(1, ROWS + 1))
        depth = jnp.argmin(jnp.concatenate([falls, jnp.array([False])]))  # rows it can fall
        hard = action == HARD_DROP
        drop = jnp.where(hard, depth, jnp.minimum(depth, 1))
        lock = hard | (depth == 0)
        pos = pos + jnp.stack([drop, 0])

        cells = piece_cells(piece, rot, pos)
        placed = well.at[cells[:, 0], cells[:, 1]].set(True)
        cleared_well, n = clear_lines(placed)
        new_piece = state.next_piece
        spawn_pos = jnp.stack([SPAWN_ROW[new_piece], SPAWN_COL[new_piece]])
        topout = lock & ~fits(cleared_well, new_piece, 0, spawn_pos)
        n = jnp.where(lock, n, 0)
        lines = state.lines + n
        reward = 0.2 * (jnp.minimum(lines, WIN_LINES) - jnp.minimum(state.lines, WIN_LINES)).astype(jnp.float32)
        won = lines >= WIN_LINES
        nxt = state.replace(
            well=jnp.where(lock, cleared_well, well),
            piece=jnp.where(lock, new_piece, piece),
            rot=jnp.where(lock, 0, rot),
            pos=jnp.where(lock, spawn_pos, pos),
            next_piece=jnp.where(lock, jax.random.randint(key, (), 0, 7, dtype=jnp.int32), state.next_piece),
            lines=lines)
        event = jnp.select([won, topout, n > 0, lock], [EV_WIN, EV_TOPOUT, EV_LINE, EV_LOCK], 0)
        return nxt, reward, won | topout, event

    def _render(self, state: TetrisState, params):
        codes = state.well.astype(jnp.int32)
        cells = piece_cells(state.piece, state.rot, state.pos)
        # after a top-out the new piece overlaps locked blocks: draw locked blocks over it
        show = ~state.well[cells[:, 0], cells[:, 1]] | ~state.done
        codes = codes.at[cells[:, 0], cells[:, 1]].set(jnp.where(show, 2, codes[cells[:, 0], cells[:, 1]]))
        return _TABLE[codes], (state.lines, state.piece, state.next_piece)

    @staticmethod
    def scripted_policy(key, state: TetrisState, params):
        """Random among LEFT/RIGHT/ROTATE_CW/NOOP with an occasional HARD_DROP (a weak baseline)."""
        return jax.random.choice(key, jnp.array([LEFT, RIGHT, ROT_CW, NOOP, HARD_DROP]),
                                 p=jnp.array([0.25, 0.25, 0.2, 0.2, 0.1])).astype(jnp.int32)


register("classics/tetris", lambda: Tetris())
