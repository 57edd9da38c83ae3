"""The single-agent Connect Four, Nim and Tron as they were before the two-seat games existed (the
AI inside `_step`, drawing from the step key): the reference `versus` must reproduce frame for
frame. Only the step/render logic is kept here; the rules helpers and cards are the suite's own."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.types import Env, EnvState, init_state_fields
from glyphjax.suites.classics import connectfour as c4
from glyphjax.suites.classics import nim, tron
from glyphjax.suites.classics.common import DIR_DELTAS, OPPOSITE, border_mask


@struct.dataclass
class BoardState(EnvState):
    board: jax.Array  # connect four: int32[6, 7]; nim: int32[3] piles
    other: jax.Array  # the AI's last move (column or action index; -1 none)


class LegacyConnectFour(Env):
    def __init__(self):
        self.card = c4.classic_card()
        self.table = c4.codepoints(c4.FLOOR + c4.YOU_DISC + c4.AI_DISC)

    def _reset(self, key, params):
        return BoardState(**{**init_state_fields(), "event": jnp.int32(c4.EV_START)},
                          board=jnp.zeros((c4.ROWS, c4.COLS), jnp.int32), other=jnp.int32(-1))

    def _step(self, key, state, action, params):
        board, valid = c4.drop(state.board, action, c4.YOU)
        valid = valid & (action >= 0)
        board = jnp.where(valid, board, state.board)
        you_won = valid & c4.four_in_a_row(board == c4.YOU)
        ai_turn = valid & ~you_won & ~jnp.all(board != 0)
        col = c4.ai_choice(key, board)
        board = jnp.where(ai_turn, c4.drop(board, col, c4.AI)[0], board)
        ai_won = ai_turn & c4.four_in_a_row(board == c4.AI)
        draw = valid & ~you_won & ~ai_won & jnp.all(board != 0)
        reward = jnp.where(you_won, 1.0, jnp.where(ai_won, -1.0, 0.0))
        event = jnp.select([you_won, ai_won, draw, ai_turn, action >= 0],
                           [c4.EV_WIN, c4.EV_LOSS, c4.EV_DRAW, c4.EV_MOVED, c4.EV_FULL], 0)
        return state.replace(board=board, other=jnp.where(ai_turn, col, state.other)), reward, \
            you_won | ai_won | draw, event

    def _render(self, state, params):
        return self.table[state.board], (state.other + 1,)


class LegacyNim(Env):
    def __init__(self, piles=(3, 5, 7), max_steps=100):
        self.rules = nim.NimGame("legacy", piles, 2 * max_steps)
        self.initial = piles
        self.card = nim.classic_card("classics/nim-easy", piles, max_steps)

    def _reset(self, key, params):
        return BoardState(**{**init_state_fields(), "event": jnp.int32(nim.EV_START)},
                          board=jnp.array(self.initial, jnp.int32), other=jnp.int32(-1))

    def _step(self, key, state, action, params):
        g = self.rules
        a = jnp.clip(action, 0, g.act_pile.shape[0] - 1)
        p, c = g.act_pile[a], g.act_count[a]
        valid = (action >= 0) & (c <= state.board[p])
        piles = state.board.at[p].add(jnp.where(valid, -c, 0))
        you_last = valid & (jnp.sum(piles) == 0)
        ai_turn = valid & ~you_last
        m = g.ai_move(key, piles)
        piles = jnp.where(ai_turn, piles.at[g.act_pile[m]].add(-g.act_count[m]), piles)
        ai_last = ai_turn & (jnp.sum(piles) == 0)
        reward = jnp.where(you_last, -1.0, jnp.where(ai_last, 1.0, 0.0))
        event = jnp.select([reward > 0, reward < 0, ai_turn, action >= 0],
                           [nim.EV_WIN, nim.EV_LOSS, nim.EV_AI, nim.EV_BAD], 0)
        return state.replace(board=piles, other=jnp.where(ai_turn, m, state.other)), reward, \
            you_last | ai_last, event

    def _render(self, state, params):
        codes = (jnp.arange(max(self.initial))[None, :] < state.board[:, None]).astype(jnp.int32)
        return nim._TABLE[codes], (state.board[0], state.board[1], state.board[2], state.other + 1)


@struct.dataclass
class LegacyTronState(EnvState):
    trail: jax.Array
    you: jax.Array
    you_dir: jax.Array
    ai: jax.Array
    ai_dir: jax.Array


class LegacyTron(Env):
    def __init__(self):
        self.card = tron.classic_card()
        self.table = tron.codepoints(tron.FLOOR + tron.WALL + tron.YOU_TRAIL + tron.AI_TRAIL
                                     + tron.YOU_HEAD + tron.AI_HEAD)

    def _reset(self, key, params):
        you, ai = jnp.array([7, 3], jnp.int32), jnp.array([7, 11], jnp.int32)
        trail = jnp.zeros((15, 15), jnp.int32).at[7, 3].set(1).at[7, 11].set(2)
        return LegacyTronState(**init_state_fields(), trail=trail, you=you, you_dir=jnp.int32(3), ai=ai,
                               ai_dir=jnp.int32(2))

    def _step(self, key, state, action, params):
        turn = (action >= 0) & (action != OPPOSITE[state.you_dir])
        you_dir = jnp.where(turn, jnp.clip(action, 0, 3), state.you_dir)
        ai_dir = tron.choose_heading(key, state.trail, state.ai, state.ai_dir, state.you, state.you_dir)
        you_next, ai_next = state.you + DIR_DELTAS[you_dir], state.ai + DIR_DELTAS[ai_dir]
        head_on = jnp.all(you_next == ai_next)
        you_crash = tron.blocked(state.trail, you_next) | head_on
        ai_crash = tron.blocked(state.trail, ai_next) | head_on
        trail = jnp.where(you_crash, state.trail, state.trail.at[you_next[0], you_next[1]].set(1))
        trail = jnp.where(ai_crash, trail, trail.at[ai_next[0], ai_next[1]].set(2))
        reward = jnp.where(ai_crash & ~you_crash, 1.0, jnp.where(you_crash & ~ai_crash, -1.0, 0.0))
        event = jnp.select([ai_crash & ~you_crash, you_crash & ~ai_crash, you_crash & ai_crash],
                           [tron.EV_WIN, tron.EV_LOSS, tron.EV_DRAW], 0)
        nxt = state.replace(trail=trail, you=jnp.where(you_crash, state.you, you_next), you_dir=you_dir,
                            ai=jnp.where(ai_crash, state.ai, ai_next), ai_dir=ai_dir)
        return nxt, reward, you_crash | ai_crash, event

    def _render(self, state, params):
        t = state.trail
        codes = jnp.where(border_mask(15), 1, jnp.where(t == 1, 2, jnp.where(t == 2, 3, 0)))
        codes = codes.at[state.you[0], state.you[1]].set(4).at[state.ai[0], state.ai[1]].set(5)
        return self.table[codes], (state.you_dir, state.ai_dir)
