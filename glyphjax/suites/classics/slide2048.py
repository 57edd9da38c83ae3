"""2048 on a 3x3 board (task id classics/2048; module name slide2048 because a module name
cannot start with a digit).

Rules (catalogue §5 row 1): UP/DOWN/LEFT/RIGHT slide every tile as far as it goes; two equal tiles
that meet merge into one of double value, and a merged tile does not merge again in the same move
([2, 2, 4] LEFT -> [4, 4, _], not [8]; [2, 2, 2] LEFT -> [4, 2, _]). A move that changes nothing is
a no-op (no spawn). After a valid move a new tile appears on a random empty cell: 2 with
probability 0.9, 4 with 0.1. The game starts with two such tiles. Creating the 64 tile wins
(terminates); a board with no valid move ends the game (terminates, no penalty).

Reward (pattern B, milestones): +0.2 the first time a *merge* creates a tile of value >= 4, 8, 16,
32, 64 (a spawned 4 is not a creation by the player). Five milestones of 0.2 -> return in [0, 1]
by construction (a milestone is paid once; a merge skipping several is impossible since merges
only double).

Glyphs (one code point per cell): tiles are the parenthesized digits ⑴..⑹ standing
for the exponent: ⑴ = 2, ⑵ = 4, ⑶ = 8, ⑷ = 16, ⑸ = 32, ⑹ = 64 (the legend gives the value). They
never collide with plain digits (minesweeper counts). Empty cells are `·`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import DIR_NAMES, codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.core.sampling import random_cell
from glyphjax.suites.classics.common import FLOOR

SIZE = 3
GOAL_EXP = 6  # 2**6 = 64
TILES = "⑴⑵⑶⑷⑸⑹"
GLYPHS = {FLOOR: "empty floor", **{g: f"tile {2 ** (i + 1)}" for i, g in enumerate(TILES)}}
_TABLE = codepoints(FLOOR + TILES)
EV_MERGE, EV_WIN, EV_STUCK, EV_BLOCKED = 1, 2, 3, 4
EVENTS = ("", "Tiles merged.", "You made the 64 tile. You win!",
          "No move is possible. Game over.", "That move changes nothing.")


@struct.dataclass
class Slide2048State(EnvState):
    board: jax.Array  # int32[3, 3]: tile exponent (0 = empty, 1 = tile 2, ..., 6 = tile 64)
    best_merged: jax.Array  # int32: largest exponent created by a merge so far (0 = none)
    score: jax.Array  # int32: sum of the values of all merged tiles (classic 2048 score)


def slide_row_left(row: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """One row of exponents slid left -> (new row, largest merged exponent, merge score)."""
    n = row.shape[0]
    order = jnp.argsort(row == 0, stable=True)  # non-empty tiles first, in order
    v = row[order]
    best = jnp.int32(0)
    score = jnp.int32(0)
    for i in range(n - 1):  # static loop: a merged cell empties its partner, so no double merge
        m = (v[i] != 0) & (v[i] == v[i + 1])
        merged = v[i] + 1
        best = jnp.where(m, jnp.maximum(best, merged), best)
        score = score + jnp.where(m, jnp.left_shift(1, merged), 0)
        v = v.at[i].set(jnp.where(m, merged, v[i])).at[i + 1].set(jnp.where(m, 0, v[i + 1]))
    v = v[jnp.argsort(v == 0, stable=True)]
    return v, best, score


def slide(board: jax.Array, direction: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Board slid in direction (0 UP, 1 DOWN, 2 LEFT, 3 RIGHT) -> (board, best merged exp, score)."""
    views = jnp.stack([board.T, board.T[:, ::-1], board, board[:, ::-1]])
    rows = views[jnp.clip(direction, 0, 3)]
    new, best, score = jax.vmap(slide_row_left)(rows)
    back = jnp.stack([new.T, new[:, ::-1].T, new, new[:, ::-1]])[jnp.clip(direction, 0, 3)]
    return back, best.max(), score.sum()


def can_move(board: jax.Array) -> jax.Array:
    moved = jax.vmap(lambda d: jnp.any(slide(board, d)[0] != board))(jnp.arange(4))
    return jnp.any(moved)


def spawn(key: jax.Array, board: jax.Array) -> jax.Array:
    """A 2 (p 0.9) or 4 (p 0.1) on a uniformly random empty cell (no-op on a full board)."""
    k1, k2 = jax.random.split(key)
    idx, any_free = random_cell(jax.random.uniform(k1), board == 0)
    exp = jnp.where(jax.random.uniform(k2) < 0.1, 2, 1)
    flat = board.reshape(-1)
    flat = flat.at[idx].set(jnp.where(any_free, exp, flat[idx]))
    return flat.reshape(board.shape)


class Slide2048(Env):
    def __init__(self, task_id: str = "classics/2048", max_steps: int = 200):
        self.card = TaskCard(
            id=task_id,
            rules=("2048 on a 3x3 board. UP/DOWN/LEFT/RIGHT slide all tiles as far as possible in "
                   "that direction; two tiles of equal value that collide merge into one tile of "
                   "double value, and a tile made by a merge does not merge again in the same move "
                   "(2,2,4 slid left gives 4,4,empty). A move that changes nothing does nothing. "
                   "After every move that changes the board a new tile appears on a random empty "
                   "cell (2 with probability 0.9, 4 with probability 0.1). Make the 64 tile to win; "
                   "the game ends when no move is possible. Tiles are drawn as parenthesized numbers (n) "
                   "standing for the value 2^n (see the legend)."),
            actions=DIR_NAMES,
            action_descriptions=tuple(f"slide all tiles {d.lower()}" for d in DIR_NAMES),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Score: {score}    Largest tile made by a merge: {best}",
            hud_fields=("score", "best"),
            max_steps=max_steps,
            reward=("+0.2 the first time a merge creates a tile of 4, 8, 16, 32 and 64 each "
                    "(five milestones, total at most 1.0). Making 64 wins and ends the episode; "
                    "getting stuck ends it with no penalty. Return range [0, 1]."),
            events=EVENTS,
            success=(EV_WIN,),
            return_range=(0.0, 1.0),
        )

    def _reset(self, key, params):
        k1, k2 = jax.random.split(key)
        board = spawn(k2, spawn(k1, jnp.zeros((SIZE, SIZE), jnp.int32)))
        return Slide2048State(**init_state_fields(), board=board, best_merged=jnp.int32(0),
                              score=jnp.int32(0))

    def _step(self, key, state: Slide2048State, action, params):
        acting = action >= 0
        new, best, gained = slide(state.board, action)
        moved = acting & jnp.any(new != state.board)
        board = jnp.where(moved, spawn(key, new), state.board)
        best_merged = jnp.where(moved, jnp.maximum(state.best_merged, best), state.best_merged)
        # milestones 4..64 are exponents 2..6: count newly passed ones
        passed = lambda b: jnp.clip(b - 1, 0, 5)  # noqa: E731
        reward = 0.2 * (passed(best_merged) - passed(state.best_merged)).astype(jnp.float32)
        won = best_merged >= GOAL_EXP
        stuck = moved & ~won & ~can_move(board)
        event = jnp.select([won, stuck, moved & (best > 0), acting & ~moved],
                           [EV_WIN, EV_STUCK, EV_MERGE, EV_BLOCKED], 0)
        nxt = state.replace(board=board, best_merged=best_merged,
                            score=state.score + jnp.where(moved, gained, 0))
        return nxt, reward, won | stuck, event

    def _render(self, state: Slide2048State, params):
        best = jnp.where(state.best_merged > 0, jnp.left_shift(1, state.best_merged), 0)
        return _TABLE[jnp.clip(state.board, 0, GOAL_EXP)], (state.score, best)

    @staticmethod
    def scripted_policy(key, state: Slide2048State, params):
        """Corner strategy: the first valid move in the order LEFT, UP, RIGHT, DOWN."""
        moved = jax.vmap(lambda d: jnp.any(slide(state.board, d)[0] != state.board))(jnp.arange(4))
        pref = jnp.array([2, 0, 3, 1])
        return pref[jnp.argmax(moved[pref])].astype(jnp.int32)


register("classics/2048", lambda: Slide2048("classics/2048", 200))
