"""Minesweeper: 8x8 board, 10 hidden mines, REVEAL_i with zero-flood.

Rules (catalogue §5 row 18): REVEAL_i (i = row * 8 + col) uncovers a cell. A safe cell shows how
many of its 8 neighbours hold a mine; uncovering a 0 also uncovers its neighbours, repeatedly
(flood). Revealing an uncovered cell is a no-op. Uncovering a mine loses (terminates; all mines
are then shown). Uncovering all 54 safe cells wins (terminates). No flags (the reference has none).

First-click safety (our choice): mines are laid at the first REVEAL, uniformly among the cells
outside the clicked cell's 3x3 neighbourhood, so the first reveal is always a 0 and opens a region
(Windows guarantees only a safe cell; a guaranteed opening removes the pure-guess start).

Flood: the 0 cells 8-connected to the uncovered 0 (`core.grid.flood` to its fixed point) and their
8 neighbours (one dilation); static shapes.

Reward (pattern D): +1/54 per safe cell uncovered (flood included), -1 on a mine and nothing else
that turn. The return is (safe cells uncovered)/54 - [hit a mine]: at most 1 (all safe cells),
at least -1 (a mine with nothing uncovered, since progress is never negative).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import codepoints, dilate, flood, neighbour_count
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.core.sampling import random_cell, random_cells
from glyphjax.suites.classics.common import cell_actions

SIZE = 8
ACTIONS, ACTION_DESCRIPTIONS = cell_actions("REVEAL", SIZE, "uncover the cell at row {row}, column {col}")
MINES = 10
SAFE = SIZE * SIZE - MINES
HIDDEN, MINE, BOOM = "▩", "✹", "✸"
COUNTS = "012345678"
GLYPHS = {HIDDEN: "hidden cell", MINE: "mine (shown after the game is lost)",
          BOOM: "the mine you uncovered",
          **{d: f"uncovered safe cell with {d} mine{'s' if d != '1' else ''} among its 8 neighbours"
             for d in COUNTS}}
_TABLE = codepoints(COUNTS + HIDDEN + MINE + BOOM)
EV_OPEN, EV_AGAIN, EV_BOOM, EV_WIN = 1, 2, 3, 4
EVENTS = ("", "Safe.", "That cell is already uncovered.", "BOOM! You uncovered a mine. Game over.",
          "Every safe cell is uncovered. You win!")


@struct.dataclass
class MinesweeperState(EnvState):
    mines: jax.Array  # bool[8, 8] (all False until the first reveal lays them)
    revealed: jax.Array  # bool[8, 8]
    laid: jax.Array  # bool: mines have been laid
    exploded: jax.Array  # int32: cell of the mine uncovered (-1 = none)


def flood_reveal(revealed: jax.Array, cell_mask: jax.Array, mines: jax.Array) -> jax.Array:
    """Uncover `cell_mask` (safe) and, from its 0 cells, the 8-connected region of 0 cells and
    every neighbour of it (what repeated "uncover the neighbours of an uncovered 0" reaches)."""
    zero = (neighbour_count(mines, eight=True) == 0) & ~mines
    start = cell_mask & ~mines
    opened = flood(start & zero, zero, eight=True)
    return revealed | start | (dilate(opened, eight=True) & ~mines)


def lay_mines(key: jax.Array, first: jax.Array) -> jax.Array:
    """10 mines outside the 3x3 neighbourhood of the first cell (flat index)."""
    r, c = first // SIZE, first % SIZE
    rows, cols = jnp.meshgrid(jnp.arange(SIZE), jnp.arange(SIZE), indexing="ij")
    near = (jnp.abs(rows - r) <= 1) & (jnp.abs(cols - c) <= 1)
    idx, _ = random_cells(jax.random.uniform(key, (SIZE * SIZE,)), ~near, MINES)
    return jnp.zeros((SIZE * SIZE,), jnp.bool_).at[idx].set(True).reshape(SIZE, SIZE)


class Minesweeper(Env):
    def __init__(self, task_id: str = "classics/minesweeper", max_steps: int = 200):
        self.card = TaskCard(
            id=task_id,
            rules=("Minesweeper on an 8x8 board with 10 hidden mines. REVEAL_i uncovers cell "
                   "i = row * 8 + column. A safe cell shows the number of mines among its 8 "
                   "neighbours; uncovering a 0 automatically uncovers all its neighbours, and so on. "
                   "Uncovering a mine loses. Uncover all 54 safe cells to win. The mines are laid "
                   "when you make your first reveal, never in the 3x3 block around that first "
                   "cell, so the first reveal always opens an area. There are no flags."),
            actions=ACTIONS,
            action_descriptions=ACTION_DESCRIPTIONS,
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Mines: 10    Safe cells uncovered: {safe} / 54",
            hud_fields=("safe",),
            max_steps=max_steps,
            reward=("+1/54 for each safe cell uncovered (including cells opened by the flood; all "
                    "54 give 1.0 and end the episode); -1 for uncovering a mine, which ends the "
                    "episode. Return range [-1, 1]."),
            events=EVENTS,
            success=(EV_WIN,),
            grid_labels=True,
        )

    def _reset(self, key, params):
        z = jnp.zeros((SIZE, SIZE), jnp.bool_)
        return MinesweeperState(**init_state_fields(), mines=z, revealed=z,
                                laid=jnp.zeros((), jnp.bool_), exploded=jnp.int32(-1))

    def _step(self, key, state: MinesweeperState, action, params):
        a = jnp.clip(action, 0, SIZE * SIZE - 1)
        acting = action >= 0
        mines = jnp.where(acting & ~state.laid, lay_mines(key, a), state.mines)
        r, c = a // SIZE, a % SIZE
        fresh = acting & ~state.revealed[r, c]
        boom = fresh & mines[r, c]
        cell = (jnp.arange(SIZE * SIZE) == a).reshape(SIZE, SIZE) & fresh & ~boom
        revealed = flood_reveal(state.revealed, cell, mines)
        gained = jnp.sum(revealed) - jnp.sum(state.revealed)
        won = jnp.sum(revealed) >= SAFE
        reward = jnp.where(boom, -1.0, gained.astype(jnp.float32) / SAFE)
        event = jnp.select([boom, won, fresh, acting], [EV_BOOM, EV_WIN, EV_OPEN, EV_AGAIN], 0)
        nxt = state.replace(mines=mines, revealed=revealed, laid=state.laid | acting,
                            exploded=jnp.where(boom, a, state.exploded))
        return nxt, reward, boom | won, event

    def _render(self, state: MinesweeperState, params):
        counts = neighbour_count(state.mines, eight=True)
        lost = state.exploded >= 0
        codes = jnp.where(state.revealed, counts, 9)
        codes = jnp.where(lost & state.mines, 10, codes)
        flat = codes.reshape(-1)
        flat = flat.at[jnp.maximum(state.exploded, 0)].set(
            jnp.where(lost, 11, flat[jnp.maximum(state.exploded, 0)]))
        return _TABLE[flat.reshape(SIZE, SIZE)], (jnp.sum(state.revealed),)

    @staticmethod
    def scripted_policy(key, state: MinesweeperState, params):
        """Uncover a uniformly random hidden cell (a no-logic baseline)."""
        return random_cell(jax.random.uniform(key), ~state.revealed)[0]


register("classics/minesweeper", lambda: Minesweeper())
