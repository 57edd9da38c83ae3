"""The MiniHack dungeon engine: one state and one step for every MiniHack task.

A turn is: the player acts (move / attack / open a door, or use an item: `items.py`), timed
effects run (levitation ends, hunger), then, unless the player died or reached the stairs, every
monster acts (`monsters.py`), then the player's view and map memory are updated (`vision.py`).
Standing on the down stairs `>` (or, in Boxoban, a boulder on every fountain) ends the episode
with +1; death (HP 0, lava, starvation) ends it with -1; nothing else pays, so every return lies in
[-1, 1] by construction. In multi-floor tasks the stairs of every level but the last lead to a
fresh level (`next_floor`) and pay nothing.

Coordinates are (row, col). Everything a task changes is in the traced `Level` params
(levels.py), so every task of one canvas size is one compiled program.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core.sampling import Draws
from glyphjax.suites.minihack import constants as C
from glyphjax.suites.minihack import items, monsters, vision
from glyphjax.suites.minihack.levels import generate
from glyphjax.suites.minihack.terrain import enter_cell
from glyphjax.suites.minihack.state import (Edits, MiniHackState, apply_edits, edit, monster_at, no_edits, roll,
                                            select)

N_DRAWS = 16  # uniforms one step uses (player roll, trap roll, teleport cell, zap roll, monsters 4-8,
#               fountain effect and damage 10-11)


def event_id(primary, secondary, outcome) -> jax.Array:
    """The composed message id (see constants)."""
    return ((jnp.asarray(primary, jnp.int32) * C.N_SECONDARY + secondary) * C.N_OUTCOME
            + outcome).astype(jnp.int32)


def player_damage(s: MiniHackState, u: jax.Array) -> jax.Array:
    lo, hi = C.SWORD_DAMAGE
    return jnp.where(s.wielding, roll(u, lo, hi), roll(u, *C.UNARMED_DAMAGE))


def move(s: MiniHackState, d: jax.Array, draws: jax.Array) -> tuple[MiniHackState, Edits, jax.Array]:
    """MOVE_<dir>: attack a monster there, open (or unlock with a key) a closed door, or step
    onto an enterable cell; walls and the map edge leave you where you are.
    -> (state, map edits, primary message)."""
    h, w = s.terrain.shape
    delta = jnp.asarray(C.MOVE_DELTAS)[d]
    tgt = jnp.clip(s.pos + delta, 0, jnp.array([h - 1, w - 1]))
    cell = s.terrain[tgt[0], tgt[1]]
    slot, foe = monster_at(s, tgt)
    # attack
    dmg = player_damage(s, draws[0])
    new_hp = s.mon_hp[slot] - dmg
    kind = s.mon_kind[slot]
    attacked = s.replace(mon_hp=s.mon_hp.at[slot].set(new_hp))
    attack_msg = jnp.where(new_hp <= 0, C.PRIMARY["kill"], C.PRIMARY["hit"]) + kind - 1
    # doors
    has_key = s.inv[C.KEY] > 0
    opens = (cell == C.DOOR_CLOSED) | ((cell == C.DOOR_LOCKED) & has_key)
    door = edit(no_edits(), 0, tgt, C.DOOR_OPEN, opens)
    door_msg = jnp.where(cell == C.DOOR_CLOSED, C.PRIMARY["door_open"],
                         jnp.where(has_key, C.PRIMARY["door_unlock"], C.PRIMARY["door_locked"]))
    # step (pushing a boulder ahead)
    boulder = s.items[tgt[0], tgt[1]] == C.BOULDER
    pushed, push_ok = push_boulder(s, tgt, delta)
    walk_ok = jnp.asarray(C.WALKABLE)[cell] & (~boulder | push_ok)
    stepped, step_edits, step_msg = enter_cell(s.replace(pos=tgt), pushed, draws[1])
    step_msg = jnp.where(boulder, C.PRIMARY["push"], step_msg)
    is_door = (cell == C.DOOR_CLOSED) | (cell == C.DOOR_LOCKED)
    out, edits = select(foe, (attacked, no_edits()),
                        select(is_door, (s, door), select(walk_ok, (stepped, step_edits), (s, no_edits()))))
    blocked_msg = jnp.where(boulder, C.PRIMARY["push_fail"], C.PRIMARY["none"])
    msg = jnp.where(foe, attack_msg, jnp.where(is_door, door_msg, jnp.where(walk_ok, step_msg, blocked_msg)))
    return out, edits, msg


def push_boulder(s: MiniHackState, tgt: jax.Array, delta: jax.Array) -> tuple[Edits, jax.Array]:
    """A boulder on `tgt` rolls one cell on along an orthogonal move onto empty floor or a
    fountain (not diagonally, not onto an item, a monster or the map edge) -> (map edits, moved)."""
    h, w = s.terrain.shape
    beyond = tgt + delta
    inside = jnp.all((beyond >= 0) & (beyond < jnp.array([h, w])))
    beyond = jnp.clip(beyond, 0, jnp.array([h - 1, w - 1]))
    under = s.terrain[beyond[0], beyond[1]]
    _, foe = monster_at(s, beyond)
    ok = ((s.items[tgt[0], tgt[1]] == C.BOULDER) & inside & (jnp.abs(delta).sum() == 1)
          & ((under == C.FLOOR) | (under == C.FOUNTAIN))
          & (s.items[beyond[0], beyond[1]] == 0) & ~foe)
    return edit(edit(no_edits(), 1, tgt, 0, ok), 2, beyond, C.BOULDER, ok), ok


def puzzle_solved(s: MiniHackState) -> jax.Array:
    """Boxoban: every fountain holds a boulder (false on levels without fountains)."""
    fountain = s.terrain == C.FOUNTAIN
    return jnp.any(fountain) & jnp.all(~fountain | (s.items == C.BOULDER))


def timed_effects(s: MiniHackState, hunger_on: jax.Array, primary: jax.Array):
    """Levitation from a potion runs out (landing in lava kills, in water hurts); hunger counts
    down where the level turns it on. -> (state, primary message, starved)."""
    was = s.lev_turns > 0
    lev = jnp.maximum(s.lev_turns - 1, 0)
    lands = was & (lev == 0) & ~s.ring_on
    s = s.replace(lev_turns=lev)
    cell = s.terrain[s.pos[0], s.pos[1]]
    hp = jnp.where(lands & (cell == C.LAVA), 0,
                   jnp.where(lands & (cell == C.WATER), s.hp - C.WATER_DAMAGE, s.hp))
    primary = jnp.where(lands, jnp.where(cell == C.LAVA, C.PRIMARY["lava"], C.PRIMARY["land"]), primary)
    hunger = jnp.where(hunger_on, s.hunger - 1, s.hunger)
    starved = hunger_on & (hunger <= 0)
    return s.replace(hp=hp, hunger=hunger), primary, starved


def next_floor(key, s: MiniHackState, p) -> MiniHackState:
    """A fresh dungeon level from the same `Level` (new key): its map, monsters and your start
    cell; you keep HP, inventory and status, and the floor counter goes up."""
    fresh = generate(jax.random.fold_in(key, 1), p, s.terrain.shape, False, False)
    return s.replace(terrain=fresh.terrain, items=fresh.items, pos=fresh.pos, lit=fresh.lit,
                     memory=fresh.memory, mon_pos=fresh.mon_pos, mon_kind=fresh.mon_kind,
                     mon_hp=fresh.mon_hp, floor=s.floor + 1)


def engine_step(key, s: MiniHackState, action, p, floors: bool = False):
    """One turn -> (state, reward, terminated, event). `p` is the task's `levels.Level`; `floors`
    (static) compiles in the descent to a fresh level (multi-floor tasks' programs only)."""
    draws = Draws.hashed(key, N_DRAWS).uniform((N_DRAWS,))
    is_move = (action >= 0) & (action < 8)
    moved, move_edits, move_msg = move(s, jnp.clip(action, 0, 7), draws)
    used, use_edits, use_msg = items.use_item(s, action, p, draws)
    s1 = apply_edits(*select(is_move, (moved, move_edits), (used, use_edits)))
    primary = jnp.where(is_move, move_msg, use_msg)
    s1, primary, starved = timed_effects(s1, p.hunger_on, primary)
    dead_now = (s1.hp <= 0) | starved
    on_stairs = (s1.terrain[s1.pos[0], s1.pos[1]] == C.STAIRS) & ~dead_now
    descends = on_stairs & (s1.floor + 1 < p.n_floors)  # intermediate stairs: a new level, no reward
    on_stairs = on_stairs & ~descends
    solved = puzzle_solved(s1) & ~dead_now
    won = on_stairs | solved
    acted, hitter = monsters.monsters_act(s1, draws[4:4 + s1.mon_kind.shape[0]])
    s2 = select(dead_now | won | descends, s1, acted)
    if floors:  # an unbatched n_floors (one task) keeps single-floor tasks off the generator
        s2 = jax.lax.cond(p.n_floors > 1, lambda: select(descends, next_floor(key, s1, p), s2), lambda: s2)
    primary = jnp.where(descends, C.PRIMARY["descend_floor"] + s1.floor, primary)
    secondary = jnp.where(dead_now | won | descends, 0, hitter)
    died = dead_now | (s2.hp <= 0)
    outcome = jnp.where(starved & (s1.hp > 0), C.STARVED,
                        jnp.where(died, C.DIED, jnp.where(on_stairs, C.DESCENDED,
                                                              jnp.where(solved, C.SOLVED, C.ALIVE))))
    s2 = vision.remember(s2.replace(hp=jnp.maximum(s2.hp, 0)), p)
    reward = jnp.where(died, -1.0, jnp.where(won, 1.0, 0.0)).astype(jnp.float32)
    return s2, reward, died | won, event_id(primary, secondary, outcome)
