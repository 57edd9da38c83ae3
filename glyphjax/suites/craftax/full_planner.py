"""A planned array policy for the focused full-engine tasks (their scripted baseline).

It reads what the task pays (its params' caps) and the state of the player's floor, then: uses
an inventory action the task wants (read a book, cast a spell, drink a potion, raise an
attribute), otherwise walks by BFS over the whole floor (mining stone-like blocks in the way when
its pickaxe can) to the nearest thing it still needs (a mob of a wanted class, the necromancer
when it is vulnerable, a chest, an enchantment table, a cell for a torch, the ladder down) and
acts on it; a monster next to it is hit first. Not an oracle: a baseline that shows each task
can be solved.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from craftax.craftax.constants import SOLID_BLOCK_MAPPING, BlockType, ItemType

from glyphjax.core.grid import UNREACHED, bfs_distances, dilate
from glyphjax.suites.craftax import engine
from glyphjax.suites.craftax.full_rules import FULL_COUNTER, FULL_MOB_CLASSES

A = {name: i for i, name in enumerate(engine.FULL_ACTIONS)}
_MOVES = np.array([(0, -1), (0, 1), (-1, 0), (1, 0)], np.int32)  # LEFT, RIGHT, UP, DOWN = actions 1..4
MAX_ROUTE = 128  # BFS rings per step (a 48 x 48 floor)
_MINE_ANY = np.zeros(len(engine.FULL_BLOCKS), bool)  # minable with a wood pickaxe
_MINE_ANY[[BlockType.STONE.value, BlockType.COAL.value]] = True
_MINE_IRON = _MINE_ANY.copy()  # with a stone pickaxe
_MINE_IRON[BlockType.IRON.value] = True
_TORCH_OK = np.zeros(len(engine.FULL_BLOCKS), bool)  # the package's CAN_PLACE_ITEM_BLOCKS
_TORCH_OK[[BlockType.GRASS.value, BlockType.SAND.value, BlockType.PATH.value, BlockType.FIRE_GRASS.value,
           BlockType.ICE_GRASS.value]] = True


def _need(params, progress, *names) -> jax.Array:
    """Whether the task still wants any of the named counters."""
    out = jnp.bool_(False)
    for name in names:
        i = FULL_COUNTER[name]
        out = out | ((params.cap[i] > 0) & (progress[i] < params.cap[i]))
    return out


def _neighbours(grid: jax.Array, pos: jax.Array, fill) -> jax.Array:
    """grid values at the four neighbours of `pos` (LEFT, RIGHT, UP, DOWN); `fill` outside."""
    cells = pos[None] + jnp.asarray(_MOVES)
    inside = jnp.all((cells >= 0) & (cells < jnp.array(grid.shape)), axis=1)
    vals = grid[jnp.clip(cells[:, 0], 0, grid.shape[0] - 1), jnp.clip(cells[:, 1], 0, grid.shape[1] - 1)]
    return jnp.where(inside, vals, fill)


def _approach(walk, mine, bridge, target, game, act, stand_on):
    """Action toward the nearest `target` cell: stand next to it, face it and `act` (or, with
    `stand_on`, stand on it and `act`); mines a minable cell in the way and bridges water in
    the way with stone (placed, then mined to a path). -1 if unreachable."""
    pos, facing = game.player_position, game.player_direction - 1
    route = walk | mine | bridge
    dist = bfs_distances(route, jnp.where(stand_on, target, dilate(target)) & route, max_steps=MAX_ROUTE)
    here = dist[pos[0], pos[1]]
    move = jnp.argmin(_neighbours(dist, pos, UNREACHED))
    near = _neighbours(target, pos, False)
    face_ok = near[jnp.clip(facing, 0, 3)] & (facing >= 0)
    arrive = jnp.where(stand_on | face_ok, act, A["LEFT"] + jnp.argmax(near))
    blocked = _neighbours(mine & ~walk, pos, False)[move]
    water = _neighbours(bridge, pos, False)[move]
    work = jnp.where(water, A["PLACE_STONE"], A["DO"])
    step = jnp.where((blocked | water) & (facing == move), work, A["LEFT"] + move)
    return jnp.where(here >= UNREACHED, -1, jnp.where(here == 0, arrive, step))


def _mob_cells(pool, lvl, shape) -> jax.Array:
    """bool[H, W]: cells of the live mobs of one pool on floor `lvl`."""
    pos, mask = pool.position[lvl], pool.mask[lvl]
    return jnp.zeros(shape, bool).at[jnp.where(mask, pos[:, 0], shape[0]), pos[:, 1]].set(True, mode="drop")


def _inventory_action(params, prog, game) -> jax.Array:
    """An inventory action the task wants now, or -1."""
    inv, learned = game.inventory, game.learned_spells
    action = jnp.int32(-1)
    cast = _need(params, prog, "spells_cast", "ach_cast_fireball", "ach_cast_iceball") & (game.player_mana >= 2)
    action = jnp.where(cast & learned[1], A["CAST_ICEBALL"], action)
    action = jnp.where(cast & learned[0], A["CAST_FIREBALL"], action)
    learn = _need(params, prog, "spells_learned", "ach_learn_fireball", "ach_learn_iceball") | (cast & ~jnp.any(learned))
    action = jnp.where(learn & (inv.books > 0) & ~jnp.all(learned), A["READ_BOOK"], action)
    colour = jnp.argmax(inv.potions > 0)
    drink = _need(params, prog, "potions_drunk", "ach_drink_potion") & jnp.any(inv.potions > 0)
    action = jnp.where(drink, A["DRINK_POTION_RED"] + colour, action)
    raise_ = _need(params, prog, "attributes_raised") & (game.player_xp > 0)
    return jnp.where(raise_, A["LEVEL_UP_STRENGTH"] + (game.player_strength >= 5), action)


def full_planner(key, state, params):
    """(key, task state, FullTaskParams) -> int32 action (see the module docstring)."""
    game, prog = state.game, state.progress
    lvl, inv = game.player_level, game.inventory
    blocks, items = game.map[lvl], game.item_map[lvl]
    shape = blocks.shape
    pools = [_mob_cells(getattr(game, f"{c}_mobs"), lvl, shape) for c in FULL_MOB_CLASSES]
    mobs = pools[0] | pools[1] | pools[2]
    walk = ~jnp.asarray(SOLID_BLOCK_MAPPING)[blocks] & (blocks != BlockType.WATER.value) & (
        blocks != BlockType.LAVA.value) & ~mobs
    walk = walk.at[game.player_position[0], game.player_position[1]].set(True)
    mine = jnp.where(inv.pickaxe >= 2, jnp.asarray(_MINE_IRON)[blocks], jnp.asarray(_MINE_ANY)[blocks]) & (
        inv.pickaxe >= 1) & ~mobs
    action = _inventory_action(params, prog, game)
    hostile = pools[1] | pools[2]
    vulnerable = (game.melee_mobs.mask[lvl].sum() == 0) & (game.ranged_mobs.mask[lvl].sum() == 0) & (
        game.boss_timesteps_to_spawn_this_round <= 0)
    boss = _need(params, prog, "boss_hits", "ach_damage_necromancer", "ach_defeat_necromancer")
    wanted_mobs = (pools[0] & _need(params, prog, "killed_passive")) | (pools[1] & _need(params, prog, "killed_melee")) | (
        pools[2] & _need(params, prog, "killed_ranged")) | (hostile & (boss | _need(params, prog, "monsters_killed")))
    gems = jnp.where(blocks == BlockType.ENCHANTMENT_TABLE_FIRE.value, inv.ruby > 0, inv.sapphire > 0)
    table = ((blocks == BlockType.ENCHANTMENT_TABLE_FIRE.value) | (blocks == BlockType.ENCHANTMENT_TABLE_ICE.value)) & gems
    enchant = jnp.where(_need(params, prog, "ach_enchant_sword"), A["ENCHANT_SWORD"], A["ENCHANT_ARMOUR"])
    torch_cells = jnp.asarray(_TORCH_OK)[blocks] & (items == ItemType.NONE.value) & ~mobs & (
        game.light_map[lvl] < 0.5)
    ladder = items == ItemType.LADDER_DOWN.value
    options = (  # (wanted, target, act, stand on it): the first wanted one with a target wins
        (boss & vulnerable, blocks == BlockType.NECROMANCER.value, A["DO"], False),
        (jnp.any(wanted_mobs), wanted_mobs, A["DO"], False),
        (_need(params, prog, "ach_open_chest"), blocks == BlockType.CHEST.value, A["DO"], False),
        (_need(params, prog, "ach_enchant_sword", "ach_enchant_armour") & (game.player_mana >= 9), table, enchant, False),
        (_need(params, prog, "torches_placed", "ach_place_torch") & (inv.torches > 0), torch_cells, A["PLACE_TORCH"], False),
        (_need(params, prog, "floors_gained", *[f"ach_enter_{f}" for f in _FLOORS]), ladder, A["DESCEND"], True),
    )
    chosen, goal, goal_act, goal_stand = jnp.bool_(False), jnp.zeros(shape, bool), jnp.int32(-1), jnp.bool_(False)
    for wanted, target, act, stand_on in options:  # one BFS per step, toward the first wanted target
        take = wanted & jnp.any(target) & ~chosen
        goal = jnp.where(take, target, goal)
        goal_act, goal_stand = jnp.where(take, act, goal_act), jnp.where(take, stand_on, goal_stand)
        chosen = chosen | take
    action = jnp.where(action < 0, _fight_adjacent(hostile, game), action)
    bridge = (blocks == BlockType.WATER.value) & (inv.stone > 0) & ~mobs
    action = jnp.where((action < 0) & chosen, _approach(walk, mine, bridge, goal, game, goal_act, goal_stand), action)
    return jnp.where(action < 0, A["NOOP"], action).astype(jnp.int32)


_FLOORS = ("dungeon", "gnomish_mines", "sewers", "vault", "troll_mines", "fire_realm", "ice_realm", "graveyard")


def _fight_adjacent(hostile: jax.Array, game) -> jax.Array:
    """Hit a monster next to the player (turning to face it first), or -1 if none is."""
    near = _neighbours(hostile, game.player_position, False)
    facing = game.player_direction - 1
    face_ok = near[jnp.clip(facing, 0, 3)] & (facing >= 0)
    return jnp.where(jnp.any(near), jnp.where(face_ok, A["DO"], A["LEFT"] + jnp.argmax(near)), -1)
