"""Maze and Heist: walk a perfect maze (`core.maze`, a depth-first spanning tree) to its prize.

Maze: you start in the bottom-left cell of an n x n-cell maze (easy n in 3..9, hard 5..12) and
the cheese is on a random other cell. Reward +1 on reaching it (the episode ends); nothing else.
Heist: a maze of n in 4..9 (hard 6..12) cells with 1-3 coloured locks on the one path from you
to the gem; the key of lock k lies where you can reach it with keys 1..k-1 (so every level is
solvable by construction). Walking into a lock whose key you hold opens it (you keep the key);
walking onto a key takes it. Reward +1 on reaching the gem (the episode ends); nothing else.
Both: moving into a wall does nothing; return range [0, 1].
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.grid import bfs_distances, flood
from glyphjax.core.maze import dfs_spanning_tree, tree_to_maze
from glyphjax.suites.procgen.engine import (WALK_ACTIONS, WALK_DESCRIPTIONS, Game, ProcgenState,
                                            cell_at, fresh_state, walk_target)

M = 12  # static lattice: at most 12 x 12 maze cells
SIZE = 2 * M + 1  # world side (cells at odd coordinates)
WALL_GLYPH = "█"
_RR, _CC = np.meshgrid(np.arange(SIZE), np.arange(SIZE), indexing="ij")
_CELL_SITE = (_RR % 2 == 1) & (_CC % 2 == 1)


def maze_level(draws, n: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """An n x n-cell perfect maze in the static SIZE x SIZE world -> (open bool, in_level bool,
    start cell int32[2] = the bottom-left maze cell)."""
    ij = np.arange(M)
    active = (ij[:, None] < n) & (ij[None, :] < n)
    right, down = dfs_spanning_tree(None, M, M, u=draws.uniform((2 * M * M - 1, 4)), active=active)
    side = 2 * n + 1
    in_level = (_RR < side) & (_CC < side)
    return tree_to_maze(right, down) & in_level, in_level, jnp.stack([2 * n - 1, jnp.int32(1)])


def _onehot(cell: jax.Array) -> jax.Array:
    return (_RR == cell[0]) & (_CC == cell[1])


def _cell(flat: jax.Array) -> jax.Array:
    return jnp.stack([flat // SIZE, flat % SIZE]).astype(jnp.int32)


# --- maze -----------------------------------------------------------------------------------------
MZ_EMPTY, MZ_WALL, MZ_CHEESE, MZ_OUT = 0, 1, 2, 4  # 3 = you (engine)
CHEESE = "◆"


def maze_generate(draws, hard, level) -> ProcgenState:
    n = draws.randint(jnp.where(hard, 5, 3), jnp.where(hard, 13, 10))
    open_, in_level, start = maze_level(draws, n)
    goal, _ = draws.cell(open_ & _CELL_SITE & ~_onehot(start))
    world = jnp.where(in_level, jnp.where(open_, MZ_EMPTY, MZ_WALL), MZ_OUT)
    world = world.reshape(-1).at[goal].set(MZ_CHEESE).reshape(SIZE, SIZE)
    return fresh_state(world, start, level, total=1)


def maze_step(state: ProcgenState, action, params):
    target = walk_target(state.pos, action)
    code = cell_at(state.world, target[0], target[1], MZ_OUT)
    can = (code != MZ_WALL) & (code != MZ_OUT)
    won = code == MZ_CHEESE
    nxt = state.replace(pos=jnp.where(can, target, state.pos), items=won.astype(jnp.int32))
    return nxt, won.astype(jnp.float32), won, jnp.where(won, 1, 0)


MAZE = Game(
    name="maze", world=(SIZE, SIZE), view=(12, 20), cells=" " + WALL_GLYPH + CHEESE,
    glyphs={WALL_GLYPH: "wall", CHEESE: "cheese (the goal)"},
    actions=WALK_ACTIONS, descriptions=WALK_DESCRIPTIONS,
    rules=("A maze seen from above. You start in its bottom-left cell; find the cheese. Moving "
           "into a wall does nothing; exactly one path leads anywhere."),
    reward="+1 on reaching the cheese (the episode ends); nothing else. Return range [0, 1].",
    events=("", "You found the cheese. You win!"), success=(1,),
    generate=maze_generate, step=maze_step, paint=lambda s: s.world.astype(jnp.int32),
    draws=2 + 4 * (2 * M * M - 1), hud="", plan_key=lambda s: s.pos,
    hard_notes="mazes of 5-12 cells a side (easy: 3-9).")


# --- heist ----------------------------------------------------------------------------------------
H_EMPTY, H_WALL, H_GEM = 0, 1, 2
H_KEY0, H_LOCK0 = 3, 6  # keys 3..5, locks 6..8 (red, green, blue)
H_OUT = 10  # 9 = you (engine)
N_LOCKS = 3
GEM = "♦"
KEY_GLYPHS, LOCK_GLYPHS = "rgb", "RGB"
COLOURS = ("red", "green", "blue")


def _locks_and_keys(draws, open_, start, gem, n_locks):
    """Locks on the start-gem path at increasing distance, each key reachable before its lock
    -> (world codes int32[SIZE, SIZE] of keys and locks, 0 elsewhere; number of locks placed)."""
    d_start = bfs_distances(open_, _onehot(start))
    d_gem = bfs_distances(open_, _onehot(gem))
    length = d_start[gem[0], gem[1]]
    path = open_ & (d_start + d_gem == length)
    k_count = jnp.clip(jnp.minimum(n_locks, length - 2), 0, N_LOCKS)
    locks = []
    for k in range(N_LOCKS):
        at = 2 + ((length - 2) * k) // jnp.maximum(k_count, 1)
        locks.append(path & (d_start == at) & (k < k_count))
    codes = jnp.zeros((SIZE, SIZE), jnp.int32)
    taken = _onehot(start) | _onehot(gem) | locks[0] | locks[1] | locks[2]
    for k in range(N_LOCKS):
        closed = locks[k]
        for j in range(k + 1, N_LOCKS):
            closed = closed | locks[j]
        region = flood(_onehot(start), open_ & ~closed) & ~taken
        flat, found = draws.cell(region)
        key = (_RR * SIZE + _CC == flat) & found & (k < k_count)
        taken = taken | key
        codes = jnp.where(key, H_KEY0 + k, jnp.where(locks[k], H_LOCK0 + k, codes))
    return codes, k_count


def heist_generate(draws, hard, level) -> ProcgenState:
    n = draws.randint(jnp.where(hard, 6, 4), jnp.where(hard, 13, 10))
    open_, in_level, start = maze_level(draws, n)
    d_start = bfs_distances(open_, _onehot(start))
    far = open_ & _CELL_SITE & (2 * d_start >= jnp.max(jnp.where(open_, d_start, 0)))
    gem = _cell(draws.cell(far & ~_onehot(start))[0])
    codes, k_count = _locks_and_keys(draws, open_, start, gem, draws.randint(1, N_LOCKS + 1))
    world = jnp.where(in_level, jnp.where(open_, codes, H_WALL), H_OUT)
    world = jnp.where(_onehot(gem), H_GEM, world)
    return fresh_state(world, start, level, total=k_count)


def heist_step(state: ProcgenState, action, params):
    target = walk_target(state.pos, action)
    code = cell_at(state.world, target[0], target[1], H_OUT)
    is_key = (code >= H_KEY0) & (code < H_KEY0 + N_LOCKS)
    is_lock = (code >= H_LOCK0) & (code < H_LOCK0 + N_LOCKS)
    unlock = is_lock & ((state.keys >> (code - H_LOCK0)) & 1 == 1)
    can = (code == H_EMPTY) | (code == H_GEM) | is_key | unlock
    won = code == H_GEM
    tr, tc = jnp.clip(target[0], 0, SIZE - 1), jnp.clip(target[1], 0, SIZE - 1)
    world = state.world.at[tr, tc].set(jnp.where(is_key | unlock, H_EMPTY, state.world[tr, tc]).astype(jnp.int8))
    keys = jnp.where(is_key, state.keys | (1 << (code - H_KEY0)), state.keys)
    nxt = state.replace(pos=jnp.where(can, target, state.pos), world=world, keys=keys.astype(jnp.int32),
                        items=state.items + is_key.astype(jnp.int32))
    event = jnp.select([won, unlock, is_key], [3, 2, 1], 0)
    return nxt, won.astype(jnp.float32), won, event


HEIST = Game(
    name="heist", world=(SIZE, SIZE), view=(12, 20),
    cells=" " + WALL_GLYPH + GEM + KEY_GLYPHS + LOCK_GLYPHS,
    glyphs={WALL_GLYPH: "wall", GEM: "the gem (the goal)",
            **{k: f"{c} key" for k, c in zip(KEY_GLYPHS, COLOURS)},
            **{k: f"{c} lock (opens for the {c} key)" for k, c in zip(LOCK_GLYPHS, COLOURS)}},
    actions=WALK_ACTIONS, descriptions=WALK_DESCRIPTIONS,
    rules=("A maze seen from above with coloured locks between you and the gem. Walk onto a key "
           "to take it; walking into a lock whose key you hold opens it (you keep the key); "
           "without the key a lock is a wall. Reach the gem."),
    reward="+1 on reaching the gem (the episode ends); nothing else. Return range [0, 1].",
    events=("", "You picked up a key.", "You opened a lock.", "You stole the gem. You win!"),
    success=(3,), generate=heist_generate, step=heist_step,
    paint=lambda s: s.world.astype(jnp.int32), draws=8 + 4 * (2 * M * M - 1),
    plan_key=lambda s: (s.pos, s.keys),  # a held key opens its lock whether or not it did yet
    hud="Keys picked up: {items} / {total}    Keys held: {keys}",
    hard_notes="mazes of 6-12 cells a side (easy: 4-9).")
