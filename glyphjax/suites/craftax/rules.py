"""Focused-task data: what a task's start state holds and what it pays, as traced arrays.

A task's reward is a weighted sum over *progress counters* that the step derives from Craftax
state deltas (`CLASSIC_COUNTERS`): cumulative inventory gains, achievement flags, kills per mob
type, turns survived, food and water gained, ripe plants eaten, stone blocks around the player. Each counter j
has a weight w_j and a cap c_j; the task pays w_j for each unit of counter j up to c_j
("incremental"), or 1 once when every capped counter is full ("all at once"). The goal is reached
when every counter with c_j > 0 is at its cap; the episode then ends. Host-side checks make
sum_j w_j c_j = 1, so the earned part of the return lies in [0, 1]; a task with a death penalty
pays -penalty (<= 1) on the step the player dies instead of that step's earnings, so every
return lies in [-1, 1] by construction.
"""

from __future__ import annotations

import dataclasses
from typing import Mapping

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from glyphjax.suites.craftax import engine

MOB_KINDS = ("zombie", "cow", "skeleton")
CLASSIC_COUNTERS: tuple[str, ...] = (
    *[f"got_{n}" for n in engine.CLASSIC_INVENTORY],
    *[f"ach_{a.lower()}" for a in engine.CLASSIC_ACHIEVEMENTS],
    *[f"killed_{m}" for m in MOB_KINDS],
    "turns_survived", "food_gained", "drink_gained", "plants_eaten", "stone_around",
)
COUNTER = {name: i for i, name in enumerate(CLASSIC_COUNTERS)}
MAX_FIXED = 8  # exact block placements per task
MAX_SCATTER = 8  # random block scatters per task
SCATTER_MAX_COUNT = 24  # blocks per scatter row
ARENA_RADIUS = 12  # scatters and mobs lie within this Chebyshev distance of the start


@struct.dataclass
class ClassicTaskParams:
    """Traced description of one focused task on the Classic engine (see the module docstring)."""

    cparams: object  # the package's EnvParams (spawn chances, day length)
    base: jax.Array  # int32: block that fills the arena
    fixed: jax.Array  # int32[MAX_FIXED, 3]: (row offset, col offset, block); block 0 = unused
    scatter: jax.Array  # int32[MAX_SCATTER, 4]: (block, count, min dist, max dist); count 0 = unused
    mobs: jax.Array  # int32[3, 3]: per MOB_KINDS (count, min dist, max dist)
    inventory: jax.Array  # int32[12] in engine.CLASSIC_INVENTORY order
    vitals: jax.Array  # int32[4]: health, food, drink, energy
    start_time: jax.Array  # int32: Craftax timestep at reset (sets the time of day)
    weight: jax.Array  # float32[Q]
    cap: jax.Array  # int32[Q]
    all_at_once: jax.Array  # bool: pay 1 once at the goal instead of per unit
    death_penalty: jax.Array  # float32 in [0, 1]


@dataclasses.dataclass(frozen=True)
class ClassicTask:
    """Host-side declaration of a focused Classic task (becomes ClassicTaskParams)."""

    name: str
    summary: str  # start state and goal, for the card
    reward: str  # exactly what the code pays, for the card
    pay: Mapping[str, int]  # counter -> cap (weights: 1/total units, or all at once)
    base: str = "GRASS"
    fixed: tuple[tuple[int, int, str], ...] = ()
    scatter: tuple[tuple[str, int, int, int], ...] = ()
    mobs: Mapping[str, tuple[int, int, int]] = dataclasses.field(default_factory=dict)
    inventory: Mapping[str, int] = dataclasses.field(default_factory=dict)
    vitals: tuple[int, int, int, int] = (9, 9, 9, 9)
    start_time: int = 0
    all_at_once: bool = False
    death_penalty: float = 0.0
    open_ended: bool = False  # no success outcome (score as much as you can)
    spawns: bool = False  # the package's random mob spawning (cows, zombies, skeletons)

    def params(self) -> ClassicTaskParams:
        weight, cap = pay_vectors(self.name, self.pay, CLASSIC_COUNTERS, self.all_at_once, self.death_penalty)
        fixed = np.zeros((MAX_FIXED, 3), np.int32)
        for i, (dr, dc, block) in enumerate(self.fixed):
            fixed[i] = (dr, dc, engine.Block[block].value)
        scatter = np.zeros((MAX_SCATTER, 4), np.int32)
        for i, (block, count, lo, hi) in enumerate(self.scatter):
            if not 0 < count <= SCATTER_MAX_COUNT or not 1 <= lo <= hi <= ARENA_RADIUS:
                raise ValueError(f"craftax/{self.name}: scatter row {block, count, lo, hi} out of range")
            scatter[i] = (engine.Block[block].value, count, lo, hi)
        mobs = np.zeros((len(MOB_KINDS), 3), np.int32)
        for kind, row in self.mobs.items():
            mobs[MOB_KINDS.index(kind)] = row
        inv = np.array([self.inventory.get(n, 0) for n in engine.CLASSIC_INVENTORY], np.int32)
        off = {} if self.spawns else dict(spawn_cow_chance=0.0, spawn_zombie_base_chance=0.0,
                                          spawn_zombie_night_chance=0.0, spawn_skeleton_chance=0.0)
        return ClassicTaskParams(
            cparams=engine.classic_params(max_timesteps=1 << 30, **off), base=jnp.int32(engine.Block[self.base].value),
            fixed=jnp.asarray(fixed), scatter=jnp.asarray(scatter), mobs=jnp.asarray(mobs), inventory=jnp.asarray(inv),
            vitals=jnp.asarray(self.vitals, jnp.int32), start_time=jnp.int32(self.start_time),
            weight=jnp.asarray(weight), cap=jnp.asarray(cap), all_at_once=jnp.bool_(self.all_at_once),
            death_penalty=jnp.float32(self.death_penalty))


def pay_vectors(task: str, pay: Mapping[str, int], counters: tuple[str, ...], all_at_once: bool,
                death_penalty: float) -> tuple[np.ndarray, np.ndarray]:
    """(weight float32[Q], cap int32[Q]) of a task paying `pay` = {counter: cap} over `counters`:
    1/sum(caps) per unit, or all weights 0 when it pays 1 once at the goal (sum w_j c_j = 1)."""
    index = {name: i for i, name in enumerate(counters)}
    weight, cap = np.zeros(len(counters), np.float32), np.zeros(len(counters), np.int32)
    total = sum(pay.values())
    for name, c in pay.items():
        if name not in index or c <= 0:
            raise ValueError(f"craftax/{task}: bad counter {name!r}={c}; counters: {counters}")
        cap[index[name]] = c
        weight[index[name]] = 0.0 if all_at_once else 1.0 / total
    if not 0.0 <= death_penalty <= 1.0:
        raise ValueError(f"craftax/{task}: death_penalty must lie in [0, 1], got {death_penalty}")
    return weight, cap


def classic_counters(before, after, action: jax.Array) -> jax.Array:
    """int32[Q]: how much each progress counter grew on a step from game state `before` to `after`
    (achievement entries: the flag itself, combined with max)."""
    inv_b = jnp.stack([getattr(before.inventory, n) for n in engine.CLASSIC_INVENTORY])
    inv_a = jnp.stack([getattr(after.inventory, n) for n in engine.CLASSIC_INVENTORY])
    kills = [pool_kills(pool_b, pool_a, before.player_position) for pool_b, pool_a in
             ((before.zombies, after.zombies), (before.cows, after.cows), (before.skeletons, after.skeletons))]
    alive = after.player_health > 0
    facing = before.player_position + jnp.asarray(_DIRECTIONS)[jnp.clip(before.player_direction, 0, 4)]
    fr, fc = jnp.clip(facing[0], 0, before.map.shape[0] - 1), jnp.clip(facing[1], 0, before.map.shape[1] - 1)
    ripe = engine.Block.RIPE_PLANT.value
    ate_plant = (before.map[fr, fc] == ripe) & (after.map[fr, fc] != ripe)
    return jnp.concatenate([
        jnp.maximum(inv_a - inv_b, 0), after.achievements.astype(jnp.int32), jnp.stack(kills).astype(jnp.int32),
        jnp.stack([alive, jnp.maximum(after.player_food - before.player_food, 0),
                   jnp.maximum(after.player_drink - before.player_drink, 0), ate_plant,
                   stone_around(after)]).astype(jnp.int32)])


NEAR = 12  # cells: the package despawns mobs 14 (L1) from the player; each can move 1 a step


def pool_kills(before, after, player_position: jax.Array) -> jax.Array:
    """int32: mobs of one pool (Classic [N] or full-game [floors, N] slots) killed on a step. A slot
    alive before counts when its mob is gone with health <= 0, or when the package refilled the
    freed slot with a newly spawned mob in the same step (it spawns into the first free slot): the
    slot's mob then jumped more than one cell, although the old one was within NEAR of the player
    (a far mob's slot is freed by despawning, which is no kill)."""
    jump = jnp.sum(jnp.abs(after.position - before.position), axis=-1)
    near = jnp.sum(jnp.abs(before.position - player_position), axis=-1) < NEAR
    died = ~after.mask & (after.health <= 0)
    refilled = after.mask & (jump > 1) & near
    return jnp.sum(before.mask & (died | refilled)).astype(jnp.int32)


_DIRECTIONS = np.array([[0, 0], [0, -1], [0, 1], [-1, 0], [1, 0]], np.int32)
_ACH = slice(COUNTER["ach_" + engine.CLASSIC_ACHIEVEMENTS[0].lower()],
             COUNTER["ach_" + engine.CLASSIC_ACHIEVEMENTS[-1].lower()] + 1)
_LEVELS = np.zeros(len(CLASSIC_COUNTERS), bool)  # counters that are levels (max), not sums
_LEVELS[_ACH] = True
_LEVELS[COUNTER["stone_around"]] = True


def stone_around(game) -> jax.Array:
    """int32: how many of the player's four neighbours are stone blocks."""
    near = game.player_position[None] + jnp.asarray(_DIRECTIONS[1:])
    inside = jnp.all((near >= 0) & (near < jnp.array(game.map.shape)), axis=1)
    blocks = game.map[jnp.clip(near[:, 0], 0, game.map.shape[0] - 1), jnp.clip(near[:, 1], 0, game.map.shape[1] - 1)]
    return jnp.sum(inside & (blocks == engine.Block.STONE.value))


def advance(progress: jax.Array, grew: jax.Array, levels: np.ndarray = _LEVELS) -> jax.Array:
    """Counters after a step: sums add, levels (`levels`; Classic: achievements, stone around)
    take the max."""
    return jnp.where(jnp.asarray(levels), jnp.maximum(progress, grew), progress + grew)


def payout(p: ClassicTaskParams, before: jax.Array, after: jax.Array, died: jax.Array):
    """-> (reward, goal reached) for progress counters going from `before` to `after`."""
    capped_b, capped_a = jnp.minimum(before, p.cap), jnp.minimum(after, p.cap)
    used = p.cap > 0
    goal = jnp.all(~used | (capped_a >= p.cap)) & jnp.any(used)
    was_goal = jnp.all(~used | (capped_b >= p.cap)) & jnp.any(used)
    earned = jnp.sum(p.weight * (capped_a - capped_b).astype(jnp.float32))
    earned = jnp.where(p.all_at_once, jnp.where(goal & ~was_goal, 1.0, 0.0), earned)
    return jnp.where(died, -p.death_penalty, earned).astype(jnp.float32), goal & ~died
