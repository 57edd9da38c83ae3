"""Battleship (solo): find a hidden fleet on a 10x10 sea by firing at cells.

Rules (catalogue §5 row 3): five ships of lengths 5, 4, 3, 3, 2 (17 cells) lie horizontally or
vertically, inside the board, never overlapping (touching is allowed). FIRE_i shoots cell
i = row * 10 + col: a hit or a miss is revealed; firing at a cell already shot is a no-op. When
every cell of a ship is hit the ship is sunk (its cells are drawn as sunk). Sinking the whole
fleet wins (terminates). Unshot cells look the same whether or not they hide a ship.

Placement: ship by ship (longest first), uniformly among the placements that fit the free cells
(Gumbel-max over a 2x10x10 placement mask: static shapes, always feasible for this fleet).

Reward (pattern A): +1/17 per ship cell hit; return in [0, 1] by construction (17 cells, each hit
once).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import codepoints, dilate, shift
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.core.sampling import random_cell
from glyphjax.suites.classics.common import cell_actions

SIZE = 10
ACTIONS, ACTION_DESCRIPTIONS = cell_actions("FIRE", SIZE, "fire at row {row}, column {col}")
FLEET = (5, 4, 3, 3, 2)
FLEET_CELLS = sum(FLEET)
UNKNOWN, MISS, HIT, SUNK = "≋", "◌", "✖", "⊠"
GLYPHS = {UNKNOWN: "unexplored sea (not fired at yet)", MISS: "miss (open water)",
          HIT: "hit on a ship that is still afloat", SUNK: "cell of a sunk ship"}
_TABLE = codepoints(UNKNOWN + MISS + HIT + SUNK)
EV_MISS, EV_HIT, EV_SUNK, EV_AGAIN, EV_WIN = 1, 2, 3, 4, 5
EVENTS = ("", "Miss.", "Hit!", "Hit! You sank a ship.", "You already fired at that cell.",
          "You sank the whole fleet. You win!")


@struct.dataclass
class BattleshipState(EnvState):
    ships: jax.Array  # int32[10, 10]: ship number 1..5 on each cell, 0 = water
    shot: jax.Array  # bool[10, 10]: cells fired at


def place_fleet(key: jax.Array, size: int = SIZE, fleet=FLEET) -> jax.Array:
    """int32[size, size] ship numbers (1..len(fleet)), placed one by one without overlap."""
    ships = jnp.zeros((size, size), jnp.int32)
    for n, length in enumerate(fleet):
        free = ships == 0
        ok_h = free
        ok_v = free
        for k in range(1, length):
            ok_h = ok_h & shift(free, 0, -k, False)  # free[r, c + k]
            ok_v = ok_v & shift(free, -k, 0, False)  # free[r + k, c]
        idx, _ = random_cell(jax.random.uniform(jax.random.fold_in(key, n)), jnp.stack([ok_h, ok_v]))
        vertical, r0, c0 = idx // (size * size), (idx // size) % size, idx % size
        rows = jnp.arange(size)[:, None]
        cols = jnp.arange(size)[None, :]
        along_h = (rows == r0) & (cols >= c0) & (cols < c0 + length)
        along_v = (cols == c0) & (rows >= r0) & (rows < r0 + length)
        ships = jnp.where(jnp.where(vertical == 1, along_v, along_h), n + 1, ships)
    return ships


def sunk_mask(ships: jax.Array, shot: jax.Array) -> jax.Array:
    """bool[10, 10]: cells of ships all of whose cells are hit."""
    ids = jnp.arange(1, len(FLEET) + 1)[:, None, None]
    on = ships[None] == ids
    sunk = jnp.all(~on | shot[None], axis=(1, 2))  # [5]
    return jnp.any(on & sunk[:, None, None], axis=0)


class Battleship(Env):
    def __init__(self, task_id: str = "classics/battleship", max_steps: int = 200):
        self.card = TaskCard(
            id=task_id,
            rules=("Solo Battleship on a 10x10 sea. A hidden fleet of five ships (lengths 5, 4, 3, 3 "
                   "and 2; 17 cells) lies horizontally or vertically, inside the board and without "
                   "overlapping (ships may touch). FIRE_i shoots at cell i = row * 10 + column: you "
                   "learn whether it is a hit or a miss. A ship whose cells are all hit is sunk. "
                   "Firing at a cell already shot does nothing. Sink the whole fleet to win."),
            actions=ACTIONS,
            action_descriptions=ACTION_DESCRIPTIONS,
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Hits: {hits} / 17    Ships sunk: {sunk} / 5",
            hud_fields=("hits", "sunk"),
            max_steps=max_steps,
            reward=("+1/17 for each ship cell hit (all 17 give 1.0 and end the episode). "
                    "Misses cost nothing. Return range [0, 1]."),
            events=EVENTS,
            success=(EV_WIN,),
            return_range=(0.0, 1.0),
            grid_labels=True,
        )

    def _reset(self, key, params):
        return BattleshipState(**init_state_fields(), ships=place_fleet(key),
                               shot=jnp.zeros((SIZE, SIZE), jnp.bool_))

    def _step(self, key, state: BattleshipState, action, params):
        a = jnp.clip(action, 0, SIZE * SIZE - 1)
        r, c = a // SIZE, a % SIZE
        fresh = (action >= 0) & ~state.shot[r, c]
        shot = state.shot.at[r, c].set(state.shot[r, c] | fresh)
        hit = fresh & (state.ships[r, c] > 0)
        ship = state.ships[r, c]
        ship_sunk = hit & jnp.all((state.ships != ship) | shot)
        won = jnp.all((state.ships == 0) | shot)
        event = jnp.select([won & hit, ship_sunk, hit, fresh, action >= 0],
                           [EV_WIN, EV_SUNK, EV_HIT, EV_MISS, EV_AGAIN], 0)
        reward = jnp.where(hit, 1.0 / FLEET_CELLS, 0.0)
        return state.replace(shot=shot), reward, won, event

    def _render(self, state: BattleshipState, params):
        ship = state.ships > 0
        codes = jnp.where(state.shot, jnp.where(ship, 2, 1), 0)
        codes = jnp.where(sunk_mask(state.ships, state.shot), 3, codes)
        hits = jnp.sum(state.shot & ship)
        sunk = sum(jnp.all((state.ships != i) | state.shot) for i in range(1, len(FLEET) + 1))
        return _TABLE[codes], (hits, sunk)

    @staticmethod
    def scripted_policy(key, state: BattleshipState, params):
        """Hunt and target: fire next to a hit of an unsunk ship if any, else at a random unshot
        cell of the checkerboard parity (then any unshot cell)."""
        open_hits = state.shot & (state.ships > 0) & ~sunk_mask(state.ships, state.shot)
        near = dilate(open_hits) & ~state.shot
        rows, cols = jnp.meshgrid(jnp.arange(SIZE), jnp.arange(SIZE), indexing="ij")
        parity = ((rows + cols) % 2 == 0) & ~state.shot
        target = jnp.where(jnp.any(near), near, jnp.where(jnp.any(parity), parity, ~state.shot))
        return random_cell(jax.random.uniform(key), target)[0]


register("classics/battleship", lambda: Battleship())
