"""Start states of focused full-engine tasks: the package's world, patched by a task's params.

The world (all nine floors, ladders, chests, light) is the package's own `reset_env`; the patch
moves the player to the task's floor (onto its up-ladder, as a descent would; the overworld keeps
the package's start cell), sets inventory, vitals, xp, learned spells and per-floor kill counts,
places blocks at offsets from the player and mobs of the floor's own types on free cells in
Chebyshev rings around them.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from craftax.craftax.constants import FLOOR_MOB_MAPPING, MOB_TYPE_HEALTH_MAPPING, SOLID_BLOCK_MAPPING, BlockType

from glyphjax.suites.craftax import engine
from glyphjax.suites.craftax.arena import pick_cells
from glyphjax.suites.craftax.full_rules import FULL_INVENTORY_FIELDS, FullTaskParams

_POOLS = ("passive_mobs", "melee_mobs", "ranged_mobs")  # FULL_MOB_CLASSES order


def _free_cells(game, lvl: jax.Array, pos: jax.Array, lo: jax.Array, hi: jax.Array) -> jax.Array:
    """bool[H, W]: cells of floor `lvl` a land mob may stand on, mob-free, not the player's,
    at Chebyshev distance lo..hi from `pos`."""
    blocks = game.map[lvl]
    ground = ~SOLID_BLOCK_MAPPING[blocks] & (blocks != BlockType.WATER.value) & (blocks != BlockType.LAVA.value)
    rows, cols = jnp.arange(blocks.shape[0]), jnp.arange(blocks.shape[1])
    cheb = jnp.maximum(jnp.abs(rows - pos[0])[:, None], jnp.abs(cols - pos[1])[None])
    return ground & ~game.mob_map[lvl] & (cheb >= jnp.maximum(lo, 1)) & (cheb <= hi)


def _place_mobs(key: jax.Array, game, p: FullTaskParams, lvl: jax.Array, pos: jax.Array):
    """`game` with p.mobs[c] = (count, lo, hi) mobs of floor `lvl`'s type for class c added."""
    for c, name in enumerate(_POOLS):
        pool = getattr(game, name)
        size = pool.mask.shape[1]
        count, lo, hi = p.mobs[c, 0], p.mobs[c, 1], p.mobs[c, 2]
        cells, chosen = pick_cells(jax.random.fold_in(key, c), _free_cells(game, lvl, pos, lo, hi), count, size)
        type_id = FLOOR_MOB_MAPPING[lvl, c]
        at = lambda a, new: a.at[lvl].set(jnp.where(chosen.reshape((-1,) + (1,) * (new.ndim - 1)), new, a[lvl]))  # noqa: E731
        pool = pool.replace(
            position=at(pool.position, cells.astype(jnp.int32)),
            health=at(pool.health, jnp.full((size,), MOB_TYPE_HEALTH_MAPPING[type_id, c], jnp.float32)),
            mask=at(pool.mask, jnp.ones((size,), bool)),
            attack_cooldown=at(pool.attack_cooldown, jnp.zeros((size,), jnp.int32)),
            type_id=at(pool.type_id, jnp.full((size,), type_id, jnp.int32)))
        mob_map = game.mob_map.at[lvl, jnp.where(chosen, cells[:, 0], game.mob_map.shape[1]), cells[:, 1]].set(
            True, mode="drop")
        game = game.replace(**{name: pool}, mob_map=mob_map)
    return game


def full_arena(key: jax.Array, p: FullTaskParams):
    """The start state of a focused full-engine task (see the module docstring)."""
    k_world, k_mobs = jax.random.split(key)
    game = engine.full_world(k_world, p.fparams)
    lvl = p.level
    pos = jnp.where(lvl > 0, game.up_ladders[lvl], game.player_position).astype(jnp.int32)
    rows = jnp.where(p.fixed[:, 2] > 0, pos[0] + p.fixed[:, 0], game.map.shape[1])
    floor = game.map[lvl].at[rows, pos[1] + p.fixed[:, 1]].set(p.fixed[:, 2], mode="drop")
    inv = game.inventory.replace(**{n: p.inventory[i] for i, n in enumerate(FULL_INVENTORY_FIELDS)},
                                 potions=p.potions, armour=p.armour)
    game = game.replace(
        map=game.map.at[lvl].set(floor), player_level=lvl, player_position=pos, inventory=inv,
        player_health=p.vitals[0].astype(jnp.float32), player_food=p.vitals[1], player_drink=p.vitals[2],
        player_energy=p.vitals[3], player_mana=p.vitals[4], player_xp=p.xp, learned_spells=p.spells,
        monsters_killed=jnp.maximum(game.monsters_killed, p.kills))
    return engine.strong(_place_mobs(k_mobs, game, p, lvl, pos))
