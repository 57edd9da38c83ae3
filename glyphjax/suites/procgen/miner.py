"""Miner: dig through dirt for every diamond, then leave by the exit (Boulder Dash rules).

Level: an n x n mine (easy n in 10..14, hard 14..20) walled around, filled with dirt, some empty
cells (never right under a boulder, so every boulder rests until you dig), boulders (1 cell in 8,
hard 1 in 6) and 3-5 (hard 5-8) diamonds; you, the exit and the diamonds on random cells joined by
a path that digs under no boulder (so no boulder ever falls into it). Each turn you move one cell
(digging the dirt you walk into; boulders and walls block you), then every boulder or diamond with
empty space under it falls one row. One that fell last turn and finds you under it kills you. The
exit opens once every diamond is taken.
Reward: +0.8 / D per diamond (D = diamonds in the level), +0.2 on leaving by the open exit (the
episode ends); dying pays -1 minus everything earned (the return is then exactly -1). Range [-1, 1].
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.grid import flood, shift
from glyphjax.suites.procgen.engine import (WALK_ACTIONS, WALK_DESCRIPTIONS, Game, ProcgenState,
                                            cell_at, fresh_state, walk_target)

S = 20
EMPTY_C, DIRT_C, BOULDER_C, DIAMOND_C, WALL_C, EXIT_C, YOU_C, OUT_C = range(8)
FALLING_BOULDER_C, FALLING_DIAMOND_C = 8, 9  # drawn as boulder / diamond
DIRT, BOULDER, DIAMOND, WALL, EXIT = "▓", "●", "◇", "█", "⌂"
DIAMOND_SHARE, EXIT_SHARE = 0.8, 0.2
MAX_DIAMONDS = 8
_RR, _CC = np.meshgrid(np.arange(S), np.arange(S), indexing="ij")


def miner_generate(draws, hard, level) -> ProcgenState:
    n = draws.randint(jnp.where(hard, 14, 10), jnp.where(hard, 21, 15))
    in_level = (_RR < n) & (_CC < n)
    inner = (_RR > 0) & (_CC > 0) & (_RR < n - 1) & (_CC < n - 1)
    u = draws.uniform((S, S))
    boulder = inner & (u < jnp.where(hard, 1 / 6, 1 / 8))
    under = shift(boulder, 1, 0, False)  # cells right under a boulder
    empty = inner & (u > 0.9) & ~under  # every boulder rests: none falls before you dig
    world = jnp.where(in_level, jnp.where(inner, DIRT_C, WALL_C), OUT_C)
    world = jnp.where(boulder, BOULDER_C, jnp.where(empty, EMPTY_C, world))
    # Dig only where no boulder is disturbed (never the cell under one): such a path stays open
    # whatever you do, so every diamond and the exit drawn on it can be reached.
    safe = inner & ~boulder & ~under
    first, _ = draws.cell(safe)
    you = (_RR * S + _CC) == first
    reach = flood(you, safe)
    sealed = jnp.sum(reach) < MAX_DIAMONDS + 2  # a start boxed in by boulders: the level keeps none
    world = jnp.where(sealed & boulder, DIRT_C, world)
    reach = jnp.where(sealed, inner, reach)
    picks, _ = draws.cells(reach & ~you, MAX_DIAMONDS + 1)
    n_diamonds = draws.randint(jnp.where(hard, 5, 3), jnp.where(hard, 9, 6))
    flat = world.reshape(-1)
    flat = flat.at[first].set(EMPTY_C).at[picks[0]].set(EXIT_C)
    flat = flat.at[picks[1:]].set(jnp.where(jnp.arange(MAX_DIAMONDS) < n_diamonds, DIAMOND_C, flat[picks[1:]]))
    start = jnp.stack([first // S, first % S])
    return fresh_state(flat.reshape(S, S), start, level, total=n_diamonds)


def _settle(world: jax.Array, you: jax.Array) -> jax.Array:
    """Boulders and diamonds above empty space (not you) fall one row; the rest stop falling."""
    boulder = (world == BOULDER_C) | (world == FALLING_BOULDER_C)
    diamond = (world == DIAMOND_C) | (world == FALLING_DIAMOND_C)
    room = (world == EMPTY_C) & ~you
    falls = (boulder | diamond) & shift(room, -1, 0, False)
    landed_b, landed_d = shift(falls & boulder, 1, 0, False), shift(falls & diamond, 1, 0, False)
    world = jnp.where(falls, EMPTY_C, world)
    world = jnp.where(boulder & ~falls, BOULDER_C, jnp.where(diamond & ~falls, DIAMOND_C, world))
    return jnp.where(landed_b, FALLING_BOULDER_C, jnp.where(landed_d, FALLING_DIAMOND_C, world))


def miner_step(state: ProcgenState, action, params):
    world = state.world.astype(jnp.int32)
    target = walk_target(state.pos, action)
    code = cell_at(world, target[0], target[1], OUT_C)
    is_diamond = (code == DIAMOND_C) | (code == FALLING_DIAMOND_C)
    exit_open = state.items == state.total
    can = (code == EMPTY_C) | (code == DIRT_C) | is_diamond | ((code == EXIT_C) & exit_open)
    pos = jnp.where(can, target, state.pos)
    won = can & (code == EXIT_C)
    world = world.at[pos[0], pos[1]].set(jnp.where(can & ~won, EMPTY_C, world[pos[0], pos[1]]))
    above = cell_at(world, pos[0] - 1, pos[1], OUT_C)
    crushed = ~won & ((above == FALLING_BOULDER_C) | (above == FALLING_DIAMOND_C))
    you = (_RR == pos[0]) & (_CC == pos[1])
    world = _settle(world, you)
    got = can & is_diamond
    share = DIAMOND_SHARE / jnp.maximum(state.total, 1).astype(jnp.float32)
    gain = jnp.where(got, share, 0.0) + jnp.where(won, EXIT_SHARE, 0.0)
    reward = jnp.where(crushed, -1.0 - state.earned, gain)
    nxt = state.replace(world=world.astype(jnp.int8), pos=pos.astype(jnp.int32),
                        items=state.items + got.astype(jnp.int32),
                        earned=state.earned + jnp.where(crushed, 0.0, gain))
    return nxt, reward.astype(jnp.float32), crushed | won, jnp.select([won, crushed, got], [1, 2, 3], 0)


def miner_progress(state: ProcgenState) -> jax.Array:
    """Diamonds taken first, then nearness (Manhattan) to the closest thing still to reach."""
    w = state.world
    want = jnp.where(state.items == state.total, w == EXIT_C, (w == DIAMOND_C) | (w == FALLING_DIAMOND_C))
    dist = jnp.abs(_RR - state.pos[0]) + jnp.abs(_CC - state.pos[1])
    return 64 * state.items - jnp.min(jnp.where(want, dist, 2 * S))


def miner_paint(state: ProcgenState) -> jax.Array:
    w = state.world.astype(jnp.int32)
    return jnp.where(w == FALLING_BOULDER_C, BOULDER_C, jnp.where(w == FALLING_DIAMOND_C, DIAMOND_C, w))


MINER = Game(
    name="miner", world=(S, S), view=(20, 20), cells=" " + DIRT + BOULDER + DIAMOND + WALL + EXIT,
    glyphs={DIRT: "dirt (you dig through it)", BOULDER: "boulder (falls; blocks you)",
            DIAMOND: "diamond (collect it)", WALL: "wall", EXIT: "exit (opens once every diamond is taken)"},
    actions=WALK_ACTIONS, descriptions=WALK_DESCRIPTIONS,
    rules=("A mine seen from the side. Moving into dirt digs it; boulders and walls block you. "
           "After you move, every boulder or diamond with empty space under it falls one row; one "
           "that fell last turn and finds you under it kills you. Take every diamond, then leave by "
           "the exit."),
    reward=("+0.8 / D per diamond taken (D = diamonds in the level), +0.2 on leaving by the exit "
            "(the episode ends); dying pays -1 minus everything earned so far (the return is then "
            "exactly -1). Return range [-1, 1]."),
    events=("", "You left the mine. You win!", "A falling rock crushed you. Game over.", "You took a diamond."),
    success=(1,), generate=miner_generate, step=miner_step, paint=miner_paint,
    draws=3 + 2 * S * S, hud="Diamonds: {items} / {total}", return_range=(-1.0, 1.0),
    progress=miner_progress, centred=False, hard_notes="mines of 14-20 cells a side (easy 10-14), more boulders, 5-8 diamonds (easy 3-5).")
