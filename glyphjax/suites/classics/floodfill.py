"""Flood Fill (Flood-It): recolour the top-left region to absorb its neighbours until the board
is one colour, within the move budget.

Reference (catalogue §4, §5 row 8): 8x8 / 12x12 boards, 6 colours, budget T = 25 / 35 turns
(the episode's max_steps), actions COLOR_0..COLOR_5.

Generation, fillable within the budget by construction (all randomness from one hashed `Draws`):
a uniformly random board is drawn and the greedy solver (each move picks the colour that absorbs the most cells, ties to the lowest colour)
is run on it in JAX (a while_loop of at most T moves over the board's same-colour components,
labelled once: see `greedy_moves`); if greedy does not fill it within T moves, a
layered board is used instead: each cell gets a random 0/1 weight, its layer is the
weight-shortest-path distance from the top-left corner (<= 2n-2 < T), and layer k is painted the
k-th colour of a random sequence with no colour repeated twice in a row, so playing the sequence
fills the board in at most 2n-2 moves.

Reward: +absorbed/A for each move, where A = n*n - (size of the starting top-left region), so the
return is the fraction of the cells outside the starting region absorbed: 1.0 exactly when the
board is filled (which ends the episode), always in [0, 1] by construction. Choosing the current
colour and NO_ACTION change nothing.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import DIR_OFFSETS, codepoints, dilate, flood, shift
from glyphjax.core.registry import register
from glyphjax.core.sampling import Draws
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields

COLOURS = "⓪①②③④⑤"
N_COLOURS = 6
GLYPHS = {g: f"cell of colour {i}" for i, g in enumerate(COLOURS)}
_TABLE = codepoints(COLOURS)
EV_FILLED = 1
EVENTS = ("", "The whole board is one colour. You win!")


def region_after(colours: jax.Array, region: jax.Array, c: jax.Array) -> jax.Array:
    """The top-left region after recolouring it to colour c."""
    return flood(region, region | (colours == c))


def components(colours: jax.Array) -> jax.Array:
    """int32[n, n]: per cell, the smallest flat index in its same-colour 4-connected component
    (min-label propagation in a while_loop until nothing changes)."""
    n = colours.shape[0]
    big = n * n
    lab0 = jnp.arange(n * n, dtype=jnp.int32).reshape(n, n)
    same = [shift(colours, dr, dc, -1) == colours for dr, dc in DIR_OFFSETS]

    def body(c):
        lab, _ = c
        new = lab
        for (dr, dc), sm in zip(DIR_OFFSETS, same):
            new = jnp.minimum(new, jnp.where(sm, shift(lab, dr, dc, big), big))
        return new, lab

    return jax.lax.while_loop(lambda c: jnp.any(c[0] != c[1]), body, (lab0, jnp.full_like(lab0, -1)))[0]


def greedy_moves(colours: jax.Array, budget: int) -> jax.Array:
    """Moves the greedy solver needs to fill the board (budget + 1 if it fails within budget).

    Cells outside your region keep their starting colours, so recolouring to c absorbs exactly the
    colour-c components (labelled once, `components`) that touch the region: each move is one
    dilation, one scatter over component labels and a gather, not a flood per colour. A
    while_loop over moves that stops when the board is filled (under vmap: the batch's slowest)."""
    n = colours.shape[0]
    lab = components(colours).reshape(-1)
    flat = colours.reshape(-1)
    region0 = lab == lab[0]

    def cond(carry):
        region, i = carry
        return ~region.all() & (i < budget)

    def body(carry):
        region, i = carry
        r2 = region.reshape(n, n)
        touch = dilate(r2).reshape(-1) & ~region
        gained = jnp.zeros((n * n,), jnp.bool_).at[lab].max(touch)[lab] & ~region  # touching components
        sizes = jnp.sum(gained[None, :] & (flat[None, :] == jnp.arange(N_COLOURS)[:, None]), axis=1)
        c = jnp.argmax(sizes)  # ties to the lowest colour
        return region | (gained & (flat == c)), i + 1

    region, moves = jax.lax.while_loop(cond, body, (region0, jnp.int32(0)))
    return jnp.where(region.all(), moves, budget + 1)


def layered_board(draws: Draws, n: int) -> jax.Array:
    """A board fillable in <= 2n-2 moves: colour = sequence[layer], layers from random 0/1 weights."""
    w = draws.bernoulli(0.6, (n, n)).astype(jnp.int32).at[0, 0].set(0)
    big = 10_000
    dist = jnp.full((n, n), big, jnp.int32).at[0, 0].set(0)

    def body(_, dist):
        nb = jnp.minimum(jnp.minimum(shift(dist, 1, 0, big), shift(dist, -1, 0, big)),
                         jnp.minimum(shift(dist, 0, 1, big), shift(dist, 0, -1, big)))
        return jnp.minimum(dist, nb + w)

    dist = jax.lax.fori_loop(0, 2 * n, body, dist)
    steps = draws.randint(1, N_COLOURS, (2 * n,))
    seq = jnp.cumsum(steps) % N_COLOURS  # consecutive colours always differ
    return seq[jnp.clip(dist, 0, 2 * n - 1)].astype(jnp.int32)


@struct.dataclass
class FloodState(EnvState):
    colours: jax.Array  # int32[n, n]
    region: jax.Array  # bool[n, n]: the top-left region
    to_absorb: jax.Array  # int32: n*n minus the starting region size


class FloodFill(Env):
    def __init__(self, task_id: str, size: int, max_steps: int):
        self.size = size
        self.card = TaskCard(
            id=task_id,
            rules=(f"Flood-It on a {size}x{size} board of {N_COLOURS} colours. Your region is the group of "
                   "cells connected (up/down/left/right) to the top-left cell that share its colour. "
                   "COLOR_k recolours your whole region to colour k; it then absorbs every neighbouring "
                   f"cell of colour k (and their connected same-coloured cells). Make the whole board one "
                   f"colour within {max_steps} moves. Every board can be filled within the budget."),
            actions=tuple(f"COLOR_{k}" for k in range(N_COLOURS)),
            action_descriptions=tuple(f"recolour your region to colour {k} ({COLOURS[k]})" for k in range(N_COLOURS)),
            glyphs=GLYPHS,
            hud="Moves: {step} / {max_steps}    Region: {region} / " + str(size * size) + " cells",
            hud_fields=("region",),
            max_steps=max_steps,
            reward=("+(cells absorbed)/(cells outside the starting region) on each move, so filling the "
                    "whole board totals exactly 1.0 (and ends the episode). Return range [0, 1]."),
            events=EVENTS,
            success=(EV_FILLED,),
            return_range=(0.0, 1.0),
        )

    def _reset(self, key, params):
        n = self.size
        draws = Draws.hashed(key, 2 * n * n + 2 * n)  # no Threefry kernel (compile time)
        board = draws.randint(0, N_COLOURS, (n, n))
        ok = greedy_moves(board, self.card.max_steps) <= self.card.max_steps
        board = jnp.where(ok, board, layered_board(draws, n))
        region = flood(jnp.zeros((n, n), jnp.bool_).at[0, 0].set(True), board == board[0, 0])
        return FloodState(**init_state_fields(), colours=board, region=region,
                          to_absorb=jnp.maximum(n * n - region.sum(), 1).astype(jnp.int32))

    def _step(self, key, state: FloodState, action, params):
        acting = action >= 0
        c = jnp.clip(action, 0, N_COLOURS - 1)
        colours = jnp.where(state.region & acting, c, state.colours)
        region = jnp.where(acting, region_after(colours, state.region, c), state.region)
        gained = region.sum() - state.region.sum()
        filled = region.all()
        reward = gained.astype(jnp.float32) / state.to_absorb
        return state.replace(colours=colours, region=region), reward, filled, jnp.where(filled, EV_FILLED, 0)

    def _render(self, state: FloodState, params):
        return _TABLE[state.colours], (state.region.sum(),)

    @staticmethod
    def scripted_policy(key, state: FloodState, params):
        """Greedy: the colour that absorbs the most cells (ties to the lowest colour)."""
        sizes = jax.vmap(lambda c: region_after(state.colours, state.region, c).sum())(jnp.arange(N_COLOURS))
        return jnp.argmax(sizes).astype(jnp.int32)


FLOODFILL_VARIANTS = {"easy": (8, 25), "hard": (12, 35)}

for _name, (_size, _steps) in FLOODFILL_VARIANTS.items():
    register(f"classics/floodfill-{_name}",
             lambda n=_name, s=_size, t=_steps: FloodFill(f"classics/floodfill-{n}", s, t))
