"""A planned array policy for the focused Classic tasks (the tasks' scripted baseline).

It reads what the task pays (its params' caps) and the state, then: crafts a wanted tool when it
can, goes to or places the station a recipe needs, and otherwise walks (BFS over a window around
the player) to the nearest block or mob it still needs and acts on it. Survival tasks fall back
to drinking, eating and fighting what comes near. Not an oracle: a baseline that shows each task
can be solved.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.grid import UNREACHED, bfs_distances, dilate
from glyphjax.suites.craftax import engine
from glyphjax.suites.craftax.rules import COUNTER

A = {name: i for i, name in enumerate(engine.CLASSIC_ACTIONS)}
B = engine.Block
R = 12  # planning window radius
_WALK = np.zeros(len(engine.CLASSIC_BLOCKS), bool)
_WALK[[B.GRASS.value, B.SAND.value, B.PATH.value]] = True
# direction index (LEFT, RIGHT, UP, DOWN) -> (d_row, d_col), as the package numbers them from 1
_MOVES = ((0, -1), (0, 1), (-1, 0), (1, 0))
# tool -> (wood, stone, coal, iron) and whether it needs a furnace
_RECIPES = {"wood_pickaxe": ((1, 0, 0, 0), False), "stone_pickaxe": ((1, 1, 0, 0), False),
            "iron_pickaxe": ((1, 1, 1, 1), True), "wood_sword": ((1, 0, 0, 0), False),
            "stone_sword": ((1, 1, 0, 0), False), "iron_sword": ((1, 1, 1, 1), True)}


def _need(params, progress, name):
    i = COUNTER[name]
    return (params.cap[i] > 0) & (progress[i] < params.cap[i])


def _view(game):
    """Block ids and mob mask of the (2R+1)^2 window around the player (outside: edge)."""
    pos = game.player_position
    padded = jnp.pad(game.map, R, constant_values=B.OUT_OF_BOUNDS.value)
    blocks = jax.lax.dynamic_slice(padded, (pos[0], pos[1]), (2 * R + 1, 2 * R + 1))
    mobs = jax.lax.dynamic_slice(jnp.pad(game.mob_map, R), (pos[0], pos[1]), (2 * R + 1, 2 * R + 1))
    return blocks, mobs


def _mob_mask(pool, pos):
    rel = pool.position - pos[None] + R
    ok = pool.mask & jnp.all((rel >= 0) & (rel <= 2 * R), axis=1)
    return jnp.zeros((2 * R + 1, 2 * R + 1), bool).at[jnp.where(ok, rel[:, 0], 2 * R + 1), rel[:, 1]].set(
        True, mode="drop")


def _approach(blocks, mobs, target, game, stand=None):
    """Action that moves toward (or, when next to it, faces and acts on) the nearest target cell;
    with `stand`, toward the nearest `stand` cell instead (NOOP-free: -1 once there). -1 when
    nothing is reachable."""
    passable = jnp.asarray(_WALK)[blocks] & ~mobs
    centre = jnp.zeros_like(passable).at[R, R].set(True)
    passable = passable | centre
    dist = bfs_distances(passable, (dilate(target) if stand is None else stand) & passable, max_steps=4 * R)
    here = dist[R, R]
    near = [target[R + dr, R + dc] for dr, dc in _MOVES]
    steps = [dist[R + dr, R + dc] for dr, dc in _MOVES]
    facing = game.player_direction - 1
    face_ok = jnp.stack(near)[jnp.clip(facing, 0, 3)] & (facing >= 0)
    turn = jnp.argmax(jnp.stack(near))  # first adjacent target: press that direction (blocked: turns)
    move = jnp.argmin(jnp.stack(steps))
    act = jnp.where(face_ok, A["DO"], A["LEFT"] + turn)
    act = jnp.where(here == 0, -1 if stand is not None else act, A["LEFT"] + move)
    return jnp.where(here >= UNREACHED, -1, act)


def classic_planner(key, state, params):
    """(key, CraftaxState, ClassicTaskParams) -> int32 action (see the module docstring)."""
    game, prog = state.game, state.progress
    inv = game.inventory
    blocks, mobs = _view(game)
    have = {t: getattr(inv, t) > 0 for t in _RECIPES}
    want = {t: (_need(params, prog, f"got_{t}") | _need(params, prog, f"ach_make_{t}")) & ~have[t] for t in _RECIPES}
    want_diamond = _need(params, prog, "got_diamond") | _need(params, prog, "ach_collect_diamond")
    want["iron_pickaxe"] = want["iron_pickaxe"] | (want_diamond & ~have["iron_pickaxe"])
    want_iron = want["iron_pickaxe"] | want["iron_sword"] | _need(params, prog, "got_iron") | _need(
        params, prog, "ach_collect_iron")
    want["stone_pickaxe"] = want["stone_pickaxe"] | (want_iron & ~have["stone_pickaxe"])
    want_stone = (want["stone_pickaxe"] | want["stone_sword"] | want_iron | _need(params, prog, "got_stone")
                  | _need(params, prog, "ach_collect_stone") | _need(params, prog, "ach_place_furnace"))
    want["wood_pickaxe"] = want["wood_pickaxe"] | (want_stone & ~have["wood_pickaxe"])
    near3 = blocks[R - 1:R + 2, R - 1:R + 2]
    at_table, at_furnace = jnp.any(near3 == B.CRAFTING_TABLE.value), jnp.any(near3 == B.FURNACE.value)
    mats = jnp.stack([inv.wood, inv.stone, inv.coal, inv.iron])
    action = jnp.int32(-1)
    need_mats = jnp.zeros(4, jnp.int32)
    ready = jnp.bool_(False)  # some wanted tool's materials are in hand
    for tool, (cost, furnace) in reversed(_RECIPES.items()):
        cost = jnp.array(cost)
        need_mats = need_mats + want[tool] * cost
        ready = ready | (want[tool] & jnp.all(mats >= cost))
        ok = want[tool] & jnp.all(mats >= cost) & at_table & (at_furnace | (not furnace))
        action = jnp.where(ok, A[f"MAKE_{tool.upper()}"], action)
    any_tool = jnp.any(jnp.stack(list(want.values())))
    want_table = (any_tool & ~at_table) | _need(params, prog, "ach_place_table")
    want_furnace = ((want["iron_pickaxe"] | want["iron_sword"]) & ~at_furnace) | _need(params, prog, "ach_place_furnace")
    table_seen = jnp.any(blocks == B.CRAFTING_TABLE.value)
    furnace_seen = jnp.any(blocks == B.FURNACE.value)
    need_mats = need_mats + jnp.array([2, 0, 0, 0]) * (want_table & ~table_seen) + jnp.array([0, 1, 0, 0]) * (
        want_furnace & ~furnace_seen)
    facing_free = _facing_block(game, blocks, mobs)
    place_table = want_table & (~table_seen | _need(params, prog, "ach_place_table")) & (inv.wood >= need_mats[0]) & (
        inv.wood >= 2) & facing_free
    place_furnace = want_furnace & (~furnace_seen | _need(params, prog, "ach_place_furnace")) & (
        inv.stone >= need_mats[1]) & (inv.stone >= 1) & facing_free
    action = jnp.where((action < 0) & place_table, A["PLACE_TABLE"], action)
    action = jnp.where((action < 0) & place_furnace, A["PLACE_FURNACE"], action)
    action = jnp.where((action < 0) & _need(params, prog, "ach_place_plant") & (inv.sapling > 0) & _facing_is(
        game, blocks, mobs, B.GRASS.value), A["PLACE_PLANT"], action)
    action = _shelter(action, game, blocks, params, prog)
    action = jnp.where((action < 0) & _need(params, prog, "ach_wake_up") & ~game.is_sleeping, A["SLEEP"], action)
    # ready to craft but not at the stations: walk to a cell next to the table (and the furnace)
    iron_ready = ready & (want["iron_pickaxe"] | want["iron_sword"]) & furnace_seen
    stand = dilate(blocks == B.CRAFTING_TABLE.value, eight=True) & jnp.where(
        iron_ready, dilate(blocks == B.FURNACE.value, eight=True), True)
    go_station = ready & table_seen & ~(at_table & (at_furnace | ~iron_ready))
    action = jnp.where((action < 0) & go_station, _approach(blocks, mobs, stand, game, stand=stand), action)
    goto = _target(params, prog, game, blocks, mobs, inv, mats, need_mats, want)
    action = jnp.where(action < 0, _approach(blocks, mobs, goto, game), action)
    return jnp.where(action < 0, A["NOOP"], action).astype(jnp.int32)


def _facing_block(game, blocks, mobs):
    d = jnp.asarray(np.array(_MOVES))[jnp.clip(game.player_direction - 1, 0, 3)]
    r, c = R + d[0], R + d[1]
    return jnp.asarray(_WALK)[blocks[r, c]] & ~mobs[r, c]


def _facing_is(game, blocks, mobs, block):
    d = jnp.asarray(np.array(_MOVES))[jnp.clip(game.player_direction - 1, 0, 3)]
    return (blocks[R + d[0], R + d[1]] == block) & ~mobs[R + d[0], R + d[1]]


def _shelter(action, game, blocks, params, prog):
    """build-shelter: place stone on the faced cell unless it is stone, else turn to a non-stone side."""
    want = _need(params, prog, "stone_around") & (game.inventory.stone > 0)
    sides = jnp.stack([blocks[R + dr, R + dc] != B.STONE.value for dr, dc in _MOVES])
    facing = jnp.clip(game.player_direction - 1, 0, 3)
    act = jnp.where(sides[facing], A["PLACE_STONE"], A["LEFT"] + jnp.argmax(sides))
    return jnp.where((action < 0) & want, act, action)


_CLOSE = np.zeros((2 * R + 1, 2 * R + 1), bool)  # within 2 cells: fight back, do not chase
_CLOSE[R - 2:R + 3, R - 2:R + 3] = True


def _target(params, prog, game, blocks, mobs, inv, mats, need_mats, want):
    """bool window mask of the cells to walk to next."""
    pos = game.player_position
    zombie, cow, skeleton = (_mob_mask(p, pos) for p in (game.zombies, game.cows, game.skeletons))
    is_b = lambda b: blocks == b.value  # noqa: E731
    wood_more = (inv.wood < need_mats[0]) | _need(params, prog, "got_wood") | _need(params, prog, "ach_collect_wood")
    stone_more = ((inv.stone < need_mats[1]) | _need(params, prog, "got_stone") | _need(params, prog, "ach_collect_stone")
                  ) & (inv.wood_pickaxe > 0)
    coal_more = ((inv.coal < need_mats[2]) | _need(params, prog, "got_coal") | _need(params, prog, "ach_collect_coal")
                 ) & (inv.wood_pickaxe > 0)
    iron_more = ((inv.iron < need_mats[3]) | _need(params, prog, "got_iron") | _need(params, prog, "ach_collect_iron")
                 ) & (inv.stone_pickaxe > 0)
    diamond = (_need(params, prog, "got_diamond") | _need(params, prog, "ach_collect_diamond")) & (inv.iron_pickaxe > 0)
    thirsty = _need(params, prog, "drink_gained") | (game.player_drink < 5)
    hungry = _need(params, prog, "food_gained") | _need(params, prog, "killed_cow") | (game.player_food < 4)
    thirsty = thirsty & (game.player_drink < 9)
    options = [  # (wanted, target mask), first wanted option with a visible target wins
        (_need(params, prog, "killed_zombie"), zombie), (_need(params, prog, "killed_skeleton"), skeleton),
        (diamond, is_b(B.DIAMOND)), (iron_more, is_b(B.IRON)), (coal_more, is_b(B.COAL)),
        (stone_more, is_b(B.STONE)), (wood_more, is_b(B.TREE)), (thirsty, is_b(B.WATER)), (hungry, cow),
        (_need(params, prog, "plants_eaten"), is_b(B.RIPE_PLANT)),
        (_need(params, prog, "got_sapling") | _need(params, prog, "ach_collect_sapling"), is_b(B.GRASS)),
        (jnp.bool_(True), zombie & _CLOSE),
    ]
    goal = jnp.zeros_like(zombie)
    chosen = jnp.bool_(False)
    for wanted, mask in options:
        take = wanted & jnp.any(mask) & ~chosen
        goal = jnp.where(take, mask, goal)
        chosen = chosen | take
    return goal
