"""Focused tasks on the full Craftax engine as data: start-state patches and reward counters.

A full-engine task starts from the package's own generated world (all nine floors) and patches
it: the player moves to a floor (onto that floor's up-ladder, where a descent would put them),
with preset inventory, vitals, learned spells and per-floor kill counts (8 kills open a floor's
ladder down), blocks placed next to them and mobs of that floor's types placed near them. It
pays like the Classic tasks (`rules.payout`): a weighted sum over progress counters derived from
state deltas (`FULL_COUNTERS`), capped per counter so the earned part lies in [0, 1], with an
optional death penalty in [0, 1] paid instead of that step's earnings.
"""

from __future__ import annotations

import dataclasses
from typing import Mapping

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from glyphjax.suites.craftax import engine
from glyphjax.suites.craftax.rules import pay_vectors, pool_kills

FULL_MOB_CLASSES = ("passive", "melee", "ranged")  # the package's MobType order
FULL_INVENTORY_FIELDS = ("wood", "stone", "coal", "iron", "diamond", "sapling", "pickaxe", "sword", "bow", "arrows",
                         "torches", "ruby", "sapphire", "books")
FULL_COUNTERS: tuple[str, ...] = (
    *[f"ach_{a.lower()}" for a in engine.FULL_ACHIEVEMENTS],
    *[f"killed_{c}" for c in FULL_MOB_CLASSES],
    "monsters_killed", "floors_gained", "boss_hits", "potions_drunk", "torches_placed", "spells_learned",
    "spells_cast", "attributes_raised", "turns_survived",
)
FULL_COUNTER = {name: i for i, name in enumerate(FULL_COUNTERS)}
_FULL_LEVELS = np.zeros(len(FULL_COUNTERS), bool)  # counters that are levels (max), not sums
_FULL_LEVELS[:len(engine.FULL_ACHIEVEMENTS)] = True
_FULL_LEVELS[[FULL_COUNTER["floors_gained"], FULL_COUNTER["spells_learned"], FULL_COUNTER["spells_cast"]]] = True
FULL_LEVELS = _FULL_LEVELS
MAX_FULL_FIXED = 4  # exact block placements per task
NUM_FLOORS = engine.FULL_STATIC.num_levels


@struct.dataclass
class FullTaskParams:
    """Traced description of one focused task on the full engine (see the module docstring)."""

    fparams: object  # the package's EnvParams
    level: jax.Array  # int32: floor the player starts on
    fixed: jax.Array  # int32[MAX_FULL_FIXED, 3]: (row offset, col offset, block); block 0 = unused
    mobs: jax.Array  # int32[3, 3]: per FULL_MOB_CLASSES (count, min dist, max dist), the floor's types
    inventory: jax.Array  # int32[len(FULL_INVENTORY_FIELDS)]
    potions: jax.Array  # int32[6]
    armour: jax.Array  # int32[4]: 0 none, 1 iron, 2 diamond
    vitals: jax.Array  # int32[5]: health, food, drink, energy, mana
    xp: jax.Array  # int32
    spells: jax.Array  # bool[2]: fireball, iceball learned
    kills: jax.Array  # int32[NUM_FLOORS]: monsters already killed per floor (>= 8 opens its ladder)
    weight: jax.Array  # float32[Q]
    cap: jax.Array  # int32[Q]
    all_at_once: jax.Array  # bool
    death_penalty: jax.Array  # float32 in [0, 1]


@dataclasses.dataclass(frozen=True)
class FullTask:
    """Host-side declaration of a focused full-engine task (becomes FullTaskParams)."""

    name: str
    summary: str  # start state and goal, for the card
    reward: str  # exactly what the code pays, for the card
    pay: Mapping[str, int]  # counter -> cap
    level: int = 0
    fixed: tuple[tuple[int, int, str], ...] = ()
    mobs: Mapping[str, tuple[int, int, int]] = dataclasses.field(default_factory=dict)
    inventory: Mapping[str, int] = dataclasses.field(default_factory=dict)
    potions: tuple[int, ...] = (0,) * 6
    armour: tuple[int, ...] = (0,) * 4
    vitals: tuple[int, int, int, int, int] = (9, 9, 9, 9, 9)
    xp: int = 0
    spells: tuple[bool, bool] = (False, False)
    open_floors: tuple[int, ...] = ()  # floors whose ladder down starts open (8 kills preset)
    all_at_once: bool = False
    death_penalty: float = 0.0

    def params(self) -> FullTaskParams:
        weight, cap = pay_vectors(self.name, self.pay, FULL_COUNTERS, self.all_at_once, self.death_penalty)
        if not 0 <= self.level < NUM_FLOORS:
            raise ValueError(f"craftax/{self.name}: level must lie in 0..{NUM_FLOORS - 1}, got {self.level}")
        fixed = np.zeros((MAX_FULL_FIXED, 3), np.int32)
        for i, (dr, dc, block) in enumerate(self.fixed):
            fixed[i] = (dr, dc, engine.full_constants.BlockType[block].value)
        mobs = np.zeros((len(FULL_MOB_CLASSES), 3), np.int32)
        for cls, row in self.mobs.items():
            mobs[FULL_MOB_CLASSES.index(cls)] = row
        unknown = set(self.inventory) - set(FULL_INVENTORY_FIELDS)
        if unknown:
            raise ValueError(f"craftax/{self.name}: unknown inventory {sorted(unknown)}; known: {FULL_INVENTORY_FIELDS}")
        kills = np.zeros(NUM_FLOORS, np.int32)
        kills[list(self.open_floors)] = engine.FULL_CLEAR_KILLS
        return FullTaskParams(
            fparams=engine.full_params(max_timesteps=1 << 30), level=jnp.int32(self.level), fixed=jnp.asarray(fixed),
            mobs=jnp.asarray(mobs),
            inventory=jnp.asarray([self.inventory.get(n, 0) for n in FULL_INVENTORY_FIELDS], jnp.int32),
            potions=jnp.asarray(self.potions, jnp.int32), armour=jnp.asarray(self.armour, jnp.int32),
            vitals=jnp.asarray(self.vitals, jnp.int32), xp=jnp.int32(self.xp), spells=jnp.asarray(self.spells, bool),
            kills=jnp.asarray(kills), weight=jnp.asarray(weight), cap=jnp.asarray(cap),
            all_at_once=jnp.bool_(self.all_at_once), death_penalty=jnp.float32(self.death_penalty))


def _kills(before, after) -> jax.Array:
    """int32[3]: mobs per FULL_MOB_CLASSES killed on a step (`rules.pool_kills`: gone with health
    <= 0, or their slot refilled by a spawn in the same step)."""
    pools = ((before.passive_mobs, after.passive_mobs), (before.melee_mobs, after.melee_mobs),
             (before.ranged_mobs, after.ranged_mobs))
    return jnp.stack([pool_kills(b, a, before.player_position) for b, a in pools]).astype(jnp.int32)


def full_counters(before, after, params: FullTaskParams) -> jax.Array:
    """int32[Q]: how much each FULL_COUNTERS entry grew on a step from `before` to `after`
    (level entries: the level itself, combined with max)."""
    inv_b, inv_a = before.inventory, after.inventory
    attrs = lambda g: g.player_dexterity + g.player_strength + g.player_intelligence  # noqa: E731
    ach = after.achievements
    cast = ach[engine.FULL_ACHIEVEMENTS.index("CAST_FIREBALL")] | ach[engine.FULL_ACHIEVEMENTS.index("CAST_ICEBALL")]
    extra = jnp.stack([
        jnp.sum(jnp.maximum(after.monsters_killed - before.monsters_killed, 0)),
        jnp.maximum(after.player_level - params.level, 0),
        jnp.maximum(after.boss_progress - before.boss_progress, 0),
        jnp.sum(jnp.maximum(inv_b.potions - inv_a.potions, 0)),
        jnp.maximum(inv_b.torches - inv_a.torches, 0),
        jnp.sum(after.learned_spells.astype(jnp.int32)), cast,
        jnp.maximum(attrs(after) - attrs(before), 0),
        (after.player_health > 0).astype(jnp.int32),
    ]).astype(jnp.int32)
    return jnp.concatenate([after.achievements.astype(jnp.int32), _kills(before, after), extra])
