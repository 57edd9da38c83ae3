"""Connect Four against a scripted AI on the classic 7-column x 6-row board.

Rules (catalogue §5 row 5): DROP_c drops your disc into column c; it falls to the lowest empty
cell. A full column (or no action) is a no-op: nothing happens and the AI does not move. You move
first; after each of your valid drops the AI drops one disc. Four in a row horizontally,
vertically or diagonally wins; a full board with no four is a draw.

Scripted AI (deterministic given the step key): win now if it can, else block a column where you
would win next, else a uniformly random non-full column (ties among winning/blocking columns are
broken by the same key).

Reward (pattern C, terminal): +1 if you connect four, -1 if the AI does, 0 for a draw or a
truncated game. One terminal reward -> return in [-1, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._boards import shift
from glyphjax.suites.classics.common import FLOOR, codepoints

ROWS, COLS = 6, 7
YOU, AI = 1, 2
YOU_DISC, AI_DISC = "◍", "◈"
GLYPHS = {FLOOR: "empty floor", YOU_DISC: "your disc", AI_DISC: "the AI's disc"}
_TABLE = codepoints(FLOOR + YOU_DISC + AI_DISC)
EV_START, EV_FULL, EV_WIN, EV_LOSS, EV_DRAW, EV_MOVED = 1, 2, 3, 4, 5, 6
EVENTS = ("", "You play ◍ and move first; the AI plays ◈.", "That column is full. Nothing happens.",
          "Four in a row. You win!", "The AI connected four. You lose.",
          "The board is full. Draw.", "The AI dropped a disc.")


@struct.dataclass
class ConnectFourState(EnvState):
    board: jax.Array  # int32[6, 7]: 0 empty, 1 you, 2 AI; row 0 is the top
    ai_col: jax.Array  # int32: column of the AI's last drop (-1 = none yet)


def four_in_a_row(mask: jax.Array) -> jax.Array:
    """True if the bool[6, 7] mask holds four in a row in any of the four directions."""
    found = jnp.zeros((), jnp.bool_)
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        line = mask
        for k in range(1, 4):
            line = line & shift(mask, -k * dr, -k * dc, False)  # mask[r + k dr, c + k dc]
        found = found | jnp.any(line)
    return found


def drop(board: jax.Array, col: jax.Array, who) -> tuple[jax.Array, jax.Array]:
    """Board with `who`'s disc dropped in col -> (board, valid). Invalid (full) leaves it as is."""
    c = jnp.clip(col, 0, COLS - 1)
    column = board[:, c]
    empty = column == 0
    row = jnp.max(jnp.where(empty, jnp.arange(ROWS), -1))
    valid = row >= 0
    new = board.at[jnp.maximum(row, 0), c].set(jnp.where(valid, who, board[jnp.maximum(row, 0), c]))
    return new, valid


def ai_choice(key: jax.Array, board: jax.Array) -> jax.Array:
    """Win if possible, else block, else random legal column (-1 if the board is full)."""
    cols = jnp.arange(COLS)
    legal = board[0] == 0
    ai_wins = jax.vmap(lambda c: four_in_a_row(drop(board, c, AI)[0] == AI))(cols) & legal
    you_win = jax.vmap(lambda c: four_in_a_row(drop(board, c, YOU)[0] == YOU))(cols) & legal
    pick = jnp.where(jnp.any(ai_wins), ai_wins, jnp.where(jnp.any(you_win), you_win, legal))
    score = jnp.where(pick, jax.random.uniform(key, (COLS,)), -1.0)
    return jnp.where(jnp.any(legal), jnp.argmax(score), -1).astype(jnp.int32)


class ConnectFour(Env):
    def __init__(self, task_id: str = "classics/connectfour", max_steps: int = 42):
        self.card = TaskCard(
            id=task_id,
            rules=("Connect Four on a board of 7 columns and 6 rows against a scripted AI. "
                   "DROP_c drops your disc (◍) into column c (0-6, numbered above the grid); it "
                   "falls to the lowest empty cell. You move first; after each of your drops the AI "
                   "drops one disc (◈). The AI wins if it can, otherwise blocks your immediate "
                   "win, otherwise plays a random column. Four discs in a row horizontally, "
                   "vertically or diagonally win; a full board is a draw. Dropping into a full "
                   "column does nothing."),
            actions=tuple(f"DROP_{c}" for c in range(COLS)),
            action_descriptions=tuple(f"drop your disc into column {c}" for c in range(COLS)),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    AI's last move: column {ai_col}",
            hud_fields=("ai_col",),
            hud_enums={"ai_col": ("none", *(str(c) for c in range(COLS)))},
            max_steps=max_steps,
            reward="+1 if you win, -1 if the AI wins, 0 for a draw or when time runs out.",
            events=EVENTS,
            success=(EV_WIN,),
            grid_labels=True,
        )

    def _reset(self, key, params):
        return ConnectFourState(**{**init_state_fields(), "event": jnp.int32(EV_START)},
                                board=jnp.zeros((ROWS, COLS), jnp.int32), ai_col=jnp.int32(-1))

    def _step(self, key, state: ConnectFourState, action, params):
        board, valid = drop(state.board, action, YOU)
        valid = valid & (action >= 0)
        board = jnp.where(valid, board, state.board)
        you_won = valid & four_in_a_row(board == YOU)
        full1 = jnp.all(board != 0)
        ai_turn = valid & ~you_won & ~full1
        col = ai_choice(key, board)
        board2, _ = drop(board, col, AI)
        board = jnp.where(ai_turn, board2, board)
        ai_won = ai_turn & four_in_a_row(board == AI)
        draw = valid & ~you_won & ~ai_won & jnp.all(board != 0)
        reward = jnp.where(you_won, 1.0, jnp.where(ai_won, -1.0, 0.0))
        event = jnp.select([you_won, ai_won, draw, ai_turn, action >= 0],
                           [EV_WIN, EV_LOSS, EV_DRAW, EV_MOVED, EV_FULL], 0)
        nxt = state.replace(board=board, ai_col=jnp.where(ai_turn, col, state.ai_col))
        return nxt, reward, you_won | ai_won | draw, event

    def _render(self, state: ConnectFourState, params):
        return _TABLE[state.board], (state.ai_col + 1,)

    @staticmethod
    def scripted_policy(key, state: ConnectFourState, params):
        """The AI's own rule from your side: win, else block, else random."""
        flipped = jnp.where(state.board == 0, 0, 3 - state.board)
        return ai_choice(key, flipped)


register("classics/connectfour", lambda: ConnectFour())
