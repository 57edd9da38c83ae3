"""A scripted planner-fighter over the full state (it sees through the dark): the task's scripted
policy and the certifier's solver.

Each turn, in order: pick up a needed item you stand on; quaff healing / pray when hurt; eat when
hungry; wield a sword; zap a wand at a monster within 5; read teleportation when the stairs are
cut off; levitate next to lava the stairs lie beyond; attack an adjacent monster; otherwise step
along 8-connected BFS distances towards the nearest needed item, else the stairs (avoiding traps,
water and lava while a safer way exists).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.grid import UNREACHED, bfs_distances
from glyphjax.suites.minihack import constants as C
from glyphjax.suites.minihack.state import MiniHackState, levitating

_IS_FOOD = np.asarray(C.ITEM_CLASS == C.FOOD)


def _field(target: jax.Array, passable: jax.Array) -> jax.Array:
    return bfs_distances(passable | target, target, eight=True)


def _at(d: jax.Array, cell: jax.Array) -> jax.Array:
    return d[cell[0], cell[1]]


def _step_along(d: jax.Array, pos: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(move action that lowers the distance field most, whether one lowers it)."""
    h, w = d.shape
    nb = pos + jnp.asarray(C.MOVE_DELTAS)
    inside = jnp.all((nb >= 0) & (nb < jnp.array([h, w])), axis=-1)
    nb = jnp.clip(nb, 0, jnp.array([h - 1, w - 1]))
    dn = jnp.where(inside, d[nb[:, 0], nb[:, 1]], UNREACHED)
    best = jnp.argmin(dn)
    return best.astype(jnp.int32), dn[best] < _at(d, pos)


def needed_items(s: MiniHackState, level, reach: dict) -> jax.Array:
    """bool[N_ITEMS]: item types worth fetching now."""
    inv = s.inv
    monsters = jnp.any(s.mon_hp > 0)
    need = jnp.zeros(C.N_ITEMS, jnp.bool_)
    has_lev = (inv[C.POTION_LEVITATION] + inv[C.RING_LEVITATION] > 0) | levitating(s)
    need = need.at[C.KEY].set(~reach["no_locked"] & reach["with_locked"] & (inv[C.KEY] == 0))
    need = need.at[C.SCROLL_TELEPORT].set(~reach["lava"] & (inv[C.SCROLL_TELEPORT] == 0))
    lev = ~reach["water"] & reach["lava"] & ~has_lev
    need = need.at[C.POTION_LEVITATION].set(lev).at[C.RING_LEVITATION].set(lev)
    food = level.hunger_on & ~jnp.any((inv > 0) & _IS_FOOD)
    need = need.at[C.FOOD_RATION].set(food).at[C.APPLE].set(food)
    need = need.at[C.POTION_HEALING].set(monsters & (s.hp < s.max_hp) & (inv[C.POTION_HEALING] == 0))
    need = need.at[C.LONG_SWORD].set(monsters & (inv[C.LONG_SWORD] == 0))
    return need.at[C.WAND_DEATH].set(monsters & (inv[C.WAND_DEATH] == 0))


def plan_action(s: MiniHackState, level) -> jax.Array:
    """The planner's action for a state (int32)."""
    t = s.terrain
    floating = levitating(s)
    has_key = s.inv[C.KEY] > 0
    walk = ((jnp.asarray(C.WALKABLE)[t] | (t == C.DOOR_CLOSED) | ((t == C.DOOR_LOCKED) & has_key))
            & (s.items != C.BOULDER))
    lava, water, trap = t == C.LAVA, t == C.WATER, t == C.TRAP
    stairs = t == C.STAIRS
    d_safe = _field(stairs, walk & (floating | ~(lava | water | trap)))
    d_water = _field(stairs, walk & (floating | ~lava))
    d_lava = _field(stairs, walk | lava)
    d_locked = _field(stairs, walk | lava | (t == C.DOOR_LOCKED))
    reach = {"water": _at(d_water, s.pos) < UNREACHED, "lava": _at(d_lava, s.pos) < UNREACHED,
             "no_locked": _at(d_lava, s.pos) < UNREACHED, "with_locked": _at(d_locked, s.pos) < UNREACHED}
    need = needed_items(s, level, reach)
    wanted = need[s.items] & (s.items > 0)
    d_item = _field(wanted, walk & (floating | ~lava))
    go_item = _at(d_item, s.pos) < UNREACHED
    stairs_field = jnp.where(_at(d_safe, s.pos) < UNREACHED, d_safe,
                             jnp.where(reach["water"], d_water, d_lava))
    move, _ = _step_along(jnp.where(go_item, d_item, stairs_field), s.pos)

    dist = jnp.max(jnp.abs(s.mon_pos - s.pos), axis=-1)
    alive = s.mon_hp > 0
    adjacent = alive & (dist == 1)
    foe = jnp.argmax(adjacent)
    delta = s.mon_pos[foe] - s.pos
    attack = jnp.argmax(jnp.all(jnp.asarray(C.MOVE_DELTAS) == delta, axis=-1)).astype(jnp.int32)
    near_lava = _near(t, s.pos, lava)
    food_carried = jnp.any((s.inv > 0) & _IS_FOOD)
    wand_ready = (s.wand > 0) & (s.inv[s.wand] > 0)

    rules = [
        (wanted[s.pos[0], s.pos[1]] & ~floating, C.PICKUP),
        ((s.inv[C.POTION_HEALING] > 0) & (s.hp <= 6), C.QUAFF),
        ((s.hp <= 5) & ~s.prayed, C.PRAY),
        (level.hunger_on & (s.hunger < 30) & food_carried, C.EAT),
        ((s.inv[C.LONG_SWORD] > 0) & ~s.wielding, C.WIELD),
        (wand_ready & jnp.any(alive & (dist <= 5)), C.ZAP),
        ((s.inv[C.SCROLL_TELEPORT] > 0) & ~reach["lava"], C.READ),
        (~reach["water"] & ~floating & near_lava & (s.inv[C.POTION_LEVITATION] > 0), C.QUAFF),
        (~reach["water"] & ~floating & near_lava & (s.inv[C.RING_LEVITATION] > 0), C.APPLY),
        (jnp.any(adjacent), attack),
    ]
    action = move
    for cond, act in reversed(rules):
        action = jnp.where(cond, act, action)
    return jnp.asarray(action, jnp.int32)


def _near(terrain: jax.Array, pos: jax.Array, mask: jax.Array) -> jax.Array:
    """Whether a cell of `mask` is among the 8 neighbours of `pos`."""
    h, w = terrain.shape
    nb = jnp.clip(pos + jnp.asarray(C.MOVE_DELTAS), 0, jnp.array([h - 1, w - 1]))
    return jnp.any(mask[nb[:, 0], nb[:, 1]])
