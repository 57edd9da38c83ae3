"""Start states of focused Classic tasks: an arena built from a task's traced params.

The arena is a 64x64 Classic map filled with one base block, the player at its centre facing up,
with exact block placements, random block scatters in distance rings and mobs placed on free
cells near the player. Everything else (vitals, inventory, time of day) comes from the params;
the remaining fields are those of a fresh package world (`generate_world`'s defaults).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from craftax.craftax_classic.constants import Action, Achievement
from craftax.craftax_classic.envs.craftax_state import EnvState, Inventory, Mobs
from craftax.craftax_classic.game_logic import calculate_light_level

from glyphjax.suites.craftax import engine
from glyphjax.suites.craftax.rules import ARENA_RADIUS, MOB_KINDS, SCATTER_MAX_COUNT, ClassicTaskParams

SIZE = engine.CLASSIC_STATIC.map_size
CENTER = (SIZE[0] // 2, SIZE[1] // 2)
_SPAN = 2 * ARENA_RADIUS + 1
_WALKABLE = (engine.Block.GRASS.value, engine.Block.SAND.value, engine.Block.PATH.value)


def _ring(lo: jax.Array, hi: jax.Array) -> jax.Array:
    """bool[SPAN, SPAN]: cells of the arena window at Chebyshev distance lo..hi from the centre."""
    d = jnp.abs(jnp.arange(_SPAN) - ARENA_RADIUS)
    cheb = jnp.maximum(d[:, None], d[None])
    return (cheb >= lo) & (cheb <= hi)


def pick_cells(key: jax.Array, allowed: jax.Array, count: jax.Array, k: int) -> tuple[jax.Array, jax.Array]:
    """Up to `count` (<= k) distinct random cells of a 2-D grid where `allowed`: ((row, col)
    int32[k, 2], chosen mask bool[k])."""
    width = allowed.shape[1]
    score = jnp.where(allowed, jax.random.uniform(key, allowed.shape), -1.0).ravel()
    best, idx = jax.lax.top_k(score, k)
    chosen = (best >= 0) & (jnp.arange(k) < count)
    return jnp.stack([idx // width, idx % width], axis=1), chosen


def _blocks(key: jax.Array, p: ClassicTaskParams) -> jax.Array:
    """The arena window's block ids after the fixed placements and the scatters."""
    win = jnp.full((_SPAN, _SPAN), p.base, jnp.int32)
    rows = jnp.where(p.fixed[:, 2] > 0, p.fixed[:, 0] + ARENA_RADIUS, _SPAN)
    win = win.at[rows, p.fixed[:, 1] + ARENA_RADIUS].set(p.fixed[:, 2], mode="drop")
    keys = jax.random.split(key, p.scatter.shape[0])
    for i in range(p.scatter.shape[0]):
        block, count, lo, hi = p.scatter[i, 0], p.scatter[i, 1], p.scatter[i, 2], p.scatter[i, 3]
        cells, chosen = pick_cells(keys[i], _ring(lo, hi) & (win == p.base), count, SCATTER_MAX_COUNT)
        r = jnp.where(chosen, cells[:, 0], _SPAN)
        win = win.at[r, cells[:, 1]].set(block, mode="drop")
    return win


def _mob_pool(key, win, taken, row, size, health) -> tuple[Mobs, jax.Array]:
    """A mob pool with row = (count, min dist, max dist) mobs on free walkable cells."""
    free = jnp.isin(win, jnp.array(_WALKABLE)) & ~taken & _ring(jnp.maximum(row[1], 1), row[2])
    cells, chosen = pick_cells(key, free, row[0], size)
    pos = cells - ARENA_RADIUS + jnp.array(CENTER)
    pool = Mobs(position=jnp.where(chosen[:, None], pos, 0).astype(jnp.int32),
                health=jnp.where(chosen, health, 0).astype(jnp.int32), mask=chosen,
                attack_cooldown=jnp.zeros((size,), jnp.int32))
    taken = taken.at[jnp.where(chosen, cells[:, 0], _SPAN), cells[:, 1]].set(True, mode="drop")
    return pool, taken


def classic_arena(key: jax.Array, p: ClassicTaskParams) -> EnvState:
    """The start state of a focused Classic task (see the module docstring)."""
    k_blocks, k_mobs, k_rng = jax.random.split(key, 3)
    win = _blocks(k_blocks, p)
    full = jnp.full(SIZE, p.base, jnp.int32)
    full = jax.lax.dynamic_update_slice(full, win, (CENTER[0] - ARENA_RADIUS, CENTER[1] - ARENA_RADIUS))
    static, cp = engine.CLASSIC_STATIC, p.cparams
    taken = jnp.zeros((_SPAN, _SPAN), bool).at[ARENA_RADIUS, ARENA_RADIUS].set(True)
    pools = {}
    for i, (kind, size, health) in enumerate(zip(MOB_KINDS, (static.max_zombies, static.max_cows, static.max_skeletons),
                                                 (cp.zombie_health, cp.cow_health, cp.skeleton_health))):
        pools[kind], taken = _mob_pool(jax.random.fold_in(k_mobs, i), win, taken, p.mobs[i], size, health)
    # inactive cow slots hold full health, as in the package's generate_world
    pools["cow"] = pools["cow"].replace(health=jnp.where(pools["cow"].mask, pools["cow"].health, cp.cow_health))
    mob_map = jnp.zeros(SIZE, bool)
    for pool in pools.values():
        mob_map = mob_map.at[pool.position[:, 0], pool.position[:, 1]].max(pool.mask)
    inv = Inventory(**{n: p.inventory[i] for i, n in enumerate(engine.CLASSIC_INVENTORY)})
    n_arrows, n_plants = static.max_arrows, static.max_growing_plants
    arrows = Mobs(position=jnp.zeros((n_arrows, 2), jnp.int32), health=jnp.zeros((n_arrows,), jnp.int32),
                  mask=jnp.zeros((n_arrows,), bool), attack_cooldown=jnp.zeros((n_arrows,), jnp.int32))
    state = EnvState(
        map=full, mob_map=mob_map, player_position=jnp.array(CENTER, jnp.int32),
        player_direction=jnp.int32(Action.UP.value), player_health=p.vitals[0], player_food=p.vitals[1],
        player_drink=p.vitals[2], player_energy=p.vitals[3], is_sleeping=jnp.bool_(False),
        player_recover=jnp.float32(0), player_hunger=jnp.float32(0), player_thirst=jnp.float32(0),
        player_fatigue=jnp.float32(0), inventory=inv, zombies=pools["zombie"], cows=pools["cow"],
        skeletons=pools["skeleton"], arrows=arrows, arrow_directions=jnp.ones((n_arrows, 2), jnp.int32),
        growing_plants_positions=jnp.zeros((n_plants, 2), jnp.int32),
        growing_plants_age=jnp.zeros((n_plants,), jnp.int32), growing_plants_mask=jnp.zeros((n_plants,), bool),
        light_level=calculate_light_level(p.start_time, cp), achievements=jnp.zeros((len(Achievement),), bool),
        state_rng=k_rng, timestep=p.start_time)
    return engine.strong(state)
