"""A test-only two-seat game with hidden information, registered only while a test uses it.

`testseats/secret-ttt`: tic-tac-toe on a 3x3 board, seat 0 plays X and moves first, seat 1 plays
O. Each seat also holds a private secret digit (0-9, drawn at reset) that only its own view shows
(HUD "Secret: d"), so a test can check that one seat's text never carries the other's secret.
CELL_k marks cell k (row-major). Marking an occupied cell or sending no action is illegal: a
no-op (card.illegal = "noop", enforced by the Env shell), and the same seat moves again (so
`to_play` is not simply t mod 2). Reward (zero-sum, terminal):
+1 to the seat that completes a line, -1 to the other; a full board without a line pays 0.
"""

from __future__ import annotations

import contextlib

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core import registry
from glyphjax.core.types import NOOP, Env, EnvState, TaskCard, init_state_fields

TASK_ID = "testseats/secret-ttt"
EMPTY, CROSS, NOUGHT = "·", "X", "O"
_TABLE = jnp.array([ord(EMPTY), ord(CROSS), ord(NOUGHT)], jnp.uint32)
_LINES = jnp.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]])
EVENTS = ("", "Marked.", "Illegal move (a taken cell or no action): nothing happened.", "Three in a row.", "Board full: draw.")


@struct.dataclass
class SecretTTTState(EnvState):
    board: jax.Array  # int32[9]: 0 empty, 1 X (seat 0), 2 O (seat 1)
    mover: jax.Array  # int32: the seat to move
    secret: jax.Array  # int32[2]: each seat's private digit


class SecretTicTacToe(Env):
    def __init__(self):
        self.card = TaskCard(
            id=TASK_ID, rules="Tic-tac-toe. Seat 0 is X and moves first, seat 1 is O. Your secret is yours alone.",
            actions=tuple(f"CELL_{k}" for k in range(9)),
            action_descriptions=tuple(f"mark row {k // 3}, column {k % 3}" for k in range(9)),
            glyphs={EMPTY: "empty cell", CROSS: "seat 0's mark", NOUGHT: "seat 1's mark"},
            hud="Step: {step} / {max_steps}    You: {mark}    Secret: {secret}",
            hud_fields=("mark", "secret"), hud_enums={"mark": (CROSS, NOUGHT)}, max_steps=12,
            reward="+1 for three in a row, -1 when the other seat makes three in a row, 0 for a draw.",
            events=EVENTS, num_players=2, illegal=NOOP, zero_sum=True)

    def _reset(self, key, params):
        return SecretTTTState(**init_state_fields(), board=jnp.zeros((9,), jnp.int32), mover=jnp.int32(0),
                              secret=jax.random.randint(key, (2,), 0, 10, jnp.int32))

    def _to_play(self, state: SecretTTTState) -> jax.Array:
        return state.mover

    def _legal(self, state: SecretTTTState, params) -> jax.Array:
        return state.board == 0

    def _step(self, key, state, action, params):
        """A legal mark (the shell turns any other action into a no-op with this step's event)."""
        mark = state.mover + 1
        board = jnp.where(jnp.arange(9) == action, mark, state.board)
        won = jnp.any(jnp.all(board[_LINES] == mark, axis=1))
        full = jnp.all(board != 0)
        r = jnp.where(won, jnp.where(state.mover == 0, 1.0, -1.0), 0.0)
        taken = state.board[jnp.clip(action, 0, 8)] != 0
        event = jnp.where(taken | (action < 0), 2, jnp.where(won, 3, jnp.where(full, 4, 1)))
        nxt = state.replace(board=board, mover=1 - state.mover)
        return nxt, jnp.stack([r, -r]), won | full, event

    def _render(self, state: SecretTTTState, params, seat):
        """The board (public) and the HUD of `seat`: its mark and its own secret only."""
        return _TABLE[state.board.reshape(3, 3)], (seat, state.secret[seat])

    @staticmethod
    def first_free_cell(key, state, params):
        """Scripted array player: the lowest-numbered empty cell."""
        return jnp.argmax(state.board == 0).astype(jnp.int32)


@contextlib.contextmanager
def registered_secret_ttt():
    """Register the game for the duration of a test, then remove it (so registry-wide tests
    elsewhere never see it)."""
    with registry.registered(TASK_ID, SecretTicTacToe) as env:
        yield env
