"""Connect Four on the classic 7-column x 6-row board: a two-seat game and the Classics task
against a scripted AI (`versus` of the two).

Rules (catalogue §5 row 5): seats alternate, seat 0 first. DROP_c drops the mover's disc into
column c; it falls to the lowest empty cell. Four in a row horizontally, vertically or diagonally
wins; a full board with no four is a draw. A full column is not a legal move.

Two-seat game (`classics/connectfour-2p`, zero-sum): an illegal move (a full column, or no
readable move) forfeits: the mover -1, the other seat +1 (so a seat about to lose cannot stall the
game into a draw by truncation). Each seat sees its own discs as ◍ and the other seat's as ◎.
Reward (terminal): +1 to the seat that connects four, -1 to the other; 0 each for a draw.

Scripted AI (`ai_policy`, deterministic given its key) for the seat to move: win now if it can,
else block a column where the other seat would win next, else a uniformly random non-full column
(ties among winning/blocking columns are broken by the same key).

Classics task (`classics/connectfour`): you are seat 0 against the AI, drawn from the step key.
A full column (or no action) is a no-op: nothing happens and the AI does not move. Reward
(pattern C, terminal): +1 if you connect four, -1 if the AI does, 0 for a draw or a truncated
game. One terminal reward -> return in [-1, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import codepoints, shift
from glyphjax.core.registry import register
from glyphjax.core.types import FORFEIT, NOOP, Env, EnvState, TaskCard, init_state_fields
from glyphjax.core.versus import versus
from glyphjax.suites.classics.common import FLOOR

ROWS, COLS = 6, 7
YOU, AI = 1, 2  # board codes of seat 0 and seat 1 (the AI's seat in the Classics task)
YOU_DISC, AI_DISC, OPPONENT_DISC = "◍", "◈", "◎"
EV_START, EV_FULL, EV_WIN, EV_LOSS, EV_DRAW, EV_MOVED = 1, 2, 3, 4, 5, 6
EV_START_2, EV_OTHER_FULL, EV_DROPPED, EV_NO_MOVE, EV_OTHER_NO_MOVE = 7, 8, 9, 10, 11
# Events are stored as seat 0 reads them; seat 1 reads SWAP[event] (the same thing, seen from
# the other side).
SWAP = jnp.array([0, EV_START_2, EV_OTHER_FULL, EV_LOSS, EV_WIN, EV_DRAW, EV_DROPPED, EV_START,
                  EV_FULL, EV_MOVED, EV_OTHER_NO_MOVE, EV_NO_MOVE], jnp.int32)


@struct.dataclass
class ConnectFourState(EnvState):
    board: jax.Array  # int32[6, 7]: 0 empty, 1 seat 0, 2 seat 1; row 0 is the top
    mover: jax.Array  # int32: the seat to move
    last_col: jax.Array  # int32[2]: column of each seat's last drop (-1 = none yet)


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
    """Move for the player whose discs are AI (2) against YOU (1): win if possible, else block,
    else random legal column (-1 if the board is full)."""
    cols = jnp.arange(COLS)
    legal = board[0] == 0
    ai_wins = jax.vmap(lambda c: four_in_a_row(drop(board, c, AI)[0] == AI))(cols) & legal
    you_win = jax.vmap(lambda c: four_in_a_row(drop(board, c, YOU)[0] == YOU))(cols) & legal
    pick = jnp.where(jnp.any(ai_wins), ai_wins, jnp.where(jnp.any(you_win), you_win, legal))
    score = jnp.where(pick, jax.random.uniform(key, (COLS,)), -1.0)
    return jnp.where(jnp.any(legal), jnp.argmax(score), -1).astype(jnp.int32)


def ai_policy(key: jax.Array, state: ConnectFourState, params=None) -> jax.Array:
    """The scripted AI playing the seat to move of the two-seat game."""
    mover = state.mover
    relabelled = jnp.where(state.board == 0, 0, jnp.where(state.board == mover + 1, AI, YOU))
    return ai_choice(key, relabelled)


def _events(other: str, disc: str, illegal: str) -> tuple[str, ...]:
    """Messages in the order of the EV_ constants; `other` names the other seat ("the AI"), `disc`
    is its disc."""
    other_cap = other[0].upper() + other[1:]
    if illegal == FORFEIT:
        full = "That column is full: an illegal move forfeits the game. You lose."
        other_full = f"{other_cap} chose a full column and forfeits. You win!"
    else:
        full = "That column is full. Nothing happens."
        other_full = f"{other_cap} chose a full column; nothing happens."
    return ("", f"You play {YOU_DISC} and move first; {other} plays {disc}.", full,
            "Four in a row. You win!", f"{other_cap} connected four. You lose.",
            "The board is full. Draw.", f"{other_cap} dropped a disc.",
            f"You play {YOU_DISC} and move second; {other} plays {disc} and moves first.", other_full,
            f"You dropped a disc; {other} moves next.",
            "You made no move: that forfeits the game. You lose.",
            f"{other_cap} made no move and forfeits. You win!")


class ConnectFourGame(Env):
    """Two-seat Connect Four. `other`/`other_disc` name and draw the other seat (seat-relative)."""

    def __init__(self, task_id: str, max_steps: int, illegal: str = FORFEIT,
                 other: str = "the opponent", other_disc: str = OPPONENT_DISC):
        self.table = codepoints(FLOOR + YOU_DISC + other_disc)
        other_cap = other[0].upper() + other[1:]
        lose = ("forfeits the game (you lose)" if illegal == FORFEIT else "does nothing and you move again")
        self.card = TaskCard(
            id=task_id,
            rules=("Connect Four for two players on a board of 7 columns and 6 rows. DROP_c drops "
                   f"your disc ({YOU_DISC}) into column c (0-6, numbered above the grid); it falls "
                   f"to the lowest empty cell. The players drop in turn; {other}'s discs are "
                   f"{other_disc}. Four discs in a row horizontally, vertically or diagonally win; a "
                   f"full board is a draw. Dropping into a full column, or making no move, {lose}."),
            actions=tuple(f"DROP_{c}" for c in range(COLS)),
            action_descriptions=tuple(f"drop your disc into column {c}" for c in range(COLS)),
            glyphs={FLOOR: "empty floor", YOU_DISC: "your disc", other_disc: f"{other}'s disc"},
            hud="Step: {step} / {max_steps}    " + other_cap + "'s last move: column {other_col}",
            hud_fields=("other_col",),
            hud_enums={"other_col": ("none", *(str(c) for c in range(COLS)))},
            max_steps=max_steps,
            reward="+1 if you connect four, -1 if the other player does, 0 for a draw or when time runs out"
                   + (("; an illegal move: -1 to its player, +1 to the other." if illegal == FORFEIT else ".")),
            events=_events(other, other_disc, illegal),
            grid_labels=True, num_players=2, illegal=illegal, zero_sum=True,
            success=(EV_WIN,) + ((EV_OTHER_FULL, EV_OTHER_NO_MOVE) if illegal == FORFEIT else ()),  # seat 0 won
        )

    scripted_policy = staticmethod(ai_policy)

    def _reset(self, key, params):
        return ConnectFourState(**{**init_state_fields(), "event": jnp.int32(EV_START)},
                                board=jnp.zeros((ROWS, COLS), jnp.int32), mover=jnp.int32(0),
                                last_col=jnp.full((2,), -1, jnp.int32))

    def _to_play(self, state):
        return state.mover

    def _legal(self, state, params):
        return state.board[0] == 0

    def _step(self, key, state: ConnectFourState, action, params):
        mover = state.mover
        board, _ = drop(state.board, action, mover + 1)
        won = four_in_a_row(board == mover + 1)
        draw = ~won & jnp.all(board != 0)
        seats = jnp.arange(2)
        reward = jnp.where(won, jnp.where(seats == mover, 1.0, -1.0), 0.0)
        no_move = EV_NO_MOVE if self.card.illegal == FORFEIT else 0
        seen = jnp.select([action < 0, state.board[0, jnp.clip(action, 0, COLS - 1)] != 0, won, draw],
                          [no_move, EV_FULL, EV_WIN, EV_DRAW], EV_DROPPED)  # as the mover reads it
        event = jnp.where(mover == 0, seen, SWAP[seen])
        nxt = state.replace(board=board, mover=1 - mover, last_col=state.last_col.at[mover].set(action))
        return nxt, reward, won | draw, event

    def _seat_event(self, state, seat):
        return jnp.where(seat == 0, state.event, SWAP[state.event])

    def _render(self, state: ConnectFourState, params, seat):
        codes = jnp.where(state.board == 0, 0, jnp.where(state.board == seat + 1, 1, 2))
        return self.table[codes], (state.last_col[1 - seat] + 1,)


def classic_card(task_id: str = "classics/connectfour", max_steps: int = 42) -> TaskCard:
    """The card of the Classics task (you against the scripted AI)."""
    return TaskCard(
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
        glyphs={FLOOR: "empty floor", YOU_DISC: "your disc", AI_DISC: "the AI's disc"},
        hud="Step: {step} / {max_steps}    AI's last move: column {ai_col}",
        hud_fields=("ai_col",),
        hud_enums={"ai_col": ("none", *(str(c) for c in range(COLS)))},
        max_steps=max_steps,
        reward="+1 if you win, -1 if the AI wins, 0 for a draw or when time runs out.",
        events=_events("the AI", AI_DISC, NOOP)[:EV_MOVED + 1],
        success=(EV_WIN,),
        grid_labels=True,
    )


def connectfour_vs_ai(task_id: str = "classics/connectfour", max_steps: int = 42) -> Env:
    """You (seat 0) against the scripted AI; full columns are no-ops, as the rules say."""
    game = ConnectFourGame(f"{task_id}:game", 2 * max_steps, illegal=NOOP, other="the AI",
                           other_disc=AI_DISC)
    return versus(game, ai_policy, 0, card=classic_card(task_id, max_steps), scripted=ai_policy)


register("classics/connectfour", lambda: connectfour_vs_ai())
register("classics/connectfour-2p", lambda: ConnectFourGame("classics/connectfour-2p", 2 * ROWS * COLS))
