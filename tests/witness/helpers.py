"""Play hand-made WITNESS levels through the JAX engine (one compiled step for every level)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.render.text import grid_strings
from glyphjax.witness.engine import EVENTS, Witness
from glyphjax.witness.layout import Level, game_params

MOVES = {"U": 0, "D": 1, "L": 2, "R": 3, "X": 4, "C": 5}  # directions with the identity mapping; X reset, C confirm


@functools.cache
def _env() -> Witness:
    return Witness("witness/test-fixture", game_params([Level(board=("SE", ".."), rules=())], (0, 1, 2, 3)), "fixture")


@functools.cache
def _compiled():
    env = _env()
    key = jax.random.PRNGKey(0)
    reset = jax.jit(lambda p: env.reset(key, p))
    step = jax.jit(lambda s, a, p: env.step(key, s, a, p))
    render = jax.jit(lambda s, p: env.render(s, p))
    return reset, step, render


def play(levels, moves: str, sigma=(0, 1, 2, 3)):
    """Play `moves` (letters of MOVES; with a non-identity sigma the letters are action indices
    A1..A4 = U, D, L, R) -> (final state, events, rewards, text of the current level's board)."""
    levels = [levels] if isinstance(levels, Level) else list(levels)
    params = game_params(levels, sigma)
    reset, step, render = _compiled()
    state = reset(params)
    events, rewards = [], []
    for m in moves:
        state, tr = step(state, jnp.int32(MOVES[m]), params)
        events.append(EVENTS[int(tr.event)])
        rewards.append(float(tr.reward))
    return state, events, rewards, board_text(state, params, levels)


def board_text(state, params, levels) -> str:
    _, _, render = _compiled()
    grid = np.asarray(render(state, params).grid)
    lv = levels[int(state.level)]
    rows = str(grid_strings(grid)[0]).split("\n")
    assert all(set(r[lv.cols:]) <= {"#"} for r in rows) and all(set(r) == {"#"} for r in rows[lv.rows:])
    return "\n".join(r[:lv.cols] for r in rows[:lv.rows])
