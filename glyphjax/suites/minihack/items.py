"""Item actions with NetHack-style effects: PICKUP, DROP, EAT, READ, QUAFF, WIELD, ZAP, PRAY, APPLY.

Each action is one function `(state, level params, uniforms) -> (state, map edits, primary
message)` (`state.Edits`: the map cells it writes);
`use_item` picks the one the action names (any other action, and NO_ACTION, does nothing).
The inventory is a count per item type; a wand's count is its charges. Where NetHack would ask
"which one?", the first carried item in `constants.ITEM_NAMES` order is used, except ZAP, which
zaps the wand picked up last.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core import entities
from glyphjax.core.sampling import random_cell
from glyphjax.suites.minihack import constants as C
from glyphjax.suites.minihack.state import (MiniHackState, chebyshev_map, edit, levitating, monster_pool,
                                            no_edits, occupied, roll, select)
from glyphjax.suites.minihack.terrain import enter_cell

P = C.PRIMARY


def first_of_class(s: MiniHackState, klass: int) -> tuple[jax.Array, jax.Array]:
    """(first carried item type of a class, whether one is carried)."""
    mask = (s.inv > 0) & (jnp.asarray(C.ITEM_CLASS) == klass) & (jnp.arange(C.N_ITEMS) > 0)
    return jnp.argmax(mask).astype(jnp.int32), jnp.any(mask)


def pickup(s: MiniHackState, p, u):
    r, c = s.pos[0], s.pos[1]
    item = s.items[r, c]
    ok = (item > 0) & (item != C.BOULDER) & ~levitating(s)
    is_wand = jnp.asarray(C.ITEM_CLASS)[item] == C.WAND
    gain = jnp.where(is_wand, C.WAND_CHARGES, 1)
    picked = s.replace(inv=s.inv.at[item].add(gain), wand=jnp.where(is_wand, item, s.wand))
    msg = jnp.where(item == 0, P["pick_none"], jnp.where(levitating(s), P["pick_float"], P["pick"] + item - 1))
    msg = jnp.where(item == C.BOULDER, P["push_fail"], msg)
    return select(ok, picked, s), edit(no_edits(), 1, s.pos, 0, ok), msg


def drop(s: MiniHackState, p, u):
    r, c = s.pos[0], s.pos[1]
    carried = (s.inv > 0) & (jnp.arange(C.N_ITEMS) > 0)
    item = jnp.argmax(carried).astype(jnp.int32)
    ok = jnp.any(carried) & (s.items[r, c] == 0) & ~levitating(s)
    is_wand = jnp.asarray(C.ITEM_CLASS)[item] == C.WAND
    inv = s.inv.at[item].add(jnp.where(is_wand, -s.inv[item], -1))
    dropped = s.replace(inv=inv,
                        wielding=s.wielding & ((item != C.LONG_SWORD) | (inv[C.LONG_SWORD] > 0)),
                        ring_on=s.ring_on & (item != C.RING_LEVITATION))
    dropped = dropped.replace(wand=ready_wand(dropped))
    return (select(ok, dropped, s), edit(no_edits(), 1, s.pos, item, ok),
            jnp.where(ok, P["drop"] + item - 1, P["drop_none"]))


def eat(s: MiniHackState, p, u):
    item, ok = first_of_class(s, C.FOOD)
    fed = s.replace(inv=s.inv.at[item].add(-1), hunger=jnp.minimum(s.hunger + C.FOOD_VALUE, C.HUNGER_MAX))
    return select(ok, fed, s), no_edits(), jnp.where(ok, P["eat"] + item - 1, P["eat_none"])


def read(s: MiniHackState, p, u):
    """Teleportation moves you to a random free cell of the level's teleport region; light lights
    every cell within 5 of you."""
    item, ok = first_of_class(s, C.SCROLL)
    s_used = s.replace(inv=s.inv.at[item].add(-1))
    free = p.teleport_mask & ~occupied(s)
    cell, found = random_cell(u[2], free)
    w = s.terrain.shape[1]
    dest = jnp.where(found, jnp.stack([cell // w, cell % w]), s.pos).astype(jnp.int32)
    teleported, tele_edits, _ = enter_cell(s_used.replace(pos=dest), no_edits(), u[3])
    near = chebyshev_map(s.terrain.shape, s.pos) <= 5
    lighted = s_used.replace(lit=s.lit | near)
    is_tele = item == C.SCROLL_TELEPORT
    out, edits = select(is_tele, (teleported, tele_edits), (lighted, no_edits()))
    msg = jnp.where(is_tele, P["read_teleport"], P["read_light"])
    out, edits = select(ok, (out, edits), (s, no_edits()))
    return out, edits, jnp.where(ok, msg, P["read_none"])


def quaff(s: MiniHackState, p, u):
    item, ok = first_of_class(s, C.POTION)
    used = s.replace(inv=s.inv.at[item].add(-1))
    healed = used.replace(hp=s.max_hp)
    floating = used.replace(lev_turns=jnp.int32(C.LEVITATION_TURNS + 1))  # the turn's tick leaves 20
    out = select(item == C.POTION_HEALING, healed, select(item == C.POTION_LEVITATION, floating, used))
    msg = jnp.where(item == C.POTION_HEALING, P["quaff_heal"],
                    jnp.where(item == C.POTION_LEVITATION, P["quaff_lev"], P["quaff_speed"]))
    here = s.terrain[s.pos[0], s.pos[1]]
    at_fountain = (here == C.FOUNTAIN) & (p.n_boulders == 0)  # Boxoban's fountains are targets only
    drunk, dry, fountain_msg = drink_fountain(s, u)
    none_msg = jnp.where(here == C.SINK, P["quaff_sink"], P["quaff_none"])
    out = select(ok, out, select(at_fountain, drunk, s))
    return (out, edit(no_edits(), 0, s.pos, C.FLOOR, ~ok & at_fountain & dry),
            jnp.where(ok, msg, jnp.where(at_fountain, fountain_msg, none_msg)))


def drink_fountain(s: MiniHackState, u):
    """QUAFF on a fountain without a potion (one roll, `constants.FOUNTAIN_CHANCES`): the water
    refreshes you (+nutrition), is tasteless, is contaminated (3-6 damage), or the fountain dries
    up (it becomes floor). -> (state, whether it dried up, primary message)."""
    refresh, tasteless, contaminated = C.FOUNTAIN_CHANCES
    roll_u = u[10]
    refreshed = s.replace(hunger=jnp.minimum(s.hunger + C.FOUNTAIN_NUTRITION, C.HUNGER_MAX))
    ill = s.replace(hp=s.hp - roll(u[11], *C.FOUNTAIN_DAMAGE))
    out = select(roll_u < refresh, refreshed, select(roll_u < tasteless, s, select(roll_u < contaminated, ill, s)))
    msg = jnp.where(roll_u < refresh, P["fountain_refresh"],
                    jnp.where(roll_u < tasteless, P["fountain_tasteless"],
                              jnp.where(roll_u < contaminated, P["fountain_contaminated"], P["fountain_dry"])))
    return out, roll_u >= contaminated, msg


def wield(s: MiniHackState, p, u):
    ok = s.inv[C.LONG_SWORD] > 0
    return s.replace(wielding=s.wielding | ok), no_edits(), jnp.where(ok, P["wield"], P["wield_none"])


def ready_wand(s: MiniHackState) -> jax.Array:
    """The readied wand: the last one picked up while it has charges, else the first carried."""
    first, any_wand = first_of_class(s, C.WAND)
    keep = (s.wand > 0) & (s.inv[s.wand] > 0)
    return jnp.where(keep, s.wand, jnp.where(any_wand, first, 0)).astype(jnp.int32)


def zap(s: MiniHackState, p, u):
    """The readied wand fires at the nearest live monster (Chebyshev distance): death kills it,
    fire and cold deal 2-12. A wand whose last charge is used crumbles to dust."""
    wand = s.wand
    ok = (wand > 0) & (s.inv[wand] > 0)
    target, _ = entities.nearest(monster_pool(s), s.pos)
    found = target >= 0
    target = jnp.maximum(target, 0)
    dmg = jnp.where(wand == C.WAND_DEATH, 1 << 20, roll(u[3], 2, 12))
    hp = s.mon_hp.at[target].add(jnp.where(found, -dmg, 0))
    used = s.replace(inv=s.inv.at[wand].add(-1), mon_hp=hp)
    used = used.replace(wand=ready_wand(used))
    kind = s.mon_kind[target]
    msg = jnp.where(~found, P["zap_miss"],
                    jnp.where(wand == C.WAND_DEATH, P["zap_kill"], P["zap_hit"]) + kind - 1)
    return select(ok, used, s), no_edits(), jnp.where(ok, msg, P["zap_none"])


def pray(s: MiniHackState, p, u):
    """NetHack's low-HP trouble (HP <= 5 or HP <= max/7) is fixed once per episode; praying
    again angers the god (no effect here). Without trouble nothing happens, except on an altar
    `_`: a golden glow raises max HP by `constants.ALTAR_MAX_HP` and heals you fully (once too)."""
    trouble = (s.hp <= 5) | (s.hp * 7 <= s.max_hp)
    on_altar = s.terrain[s.pos[0], s.pos[1]] == C.ALTAR
    heals = trouble & ~s.prayed
    glows = on_altar & ~trouble & ~s.prayed
    max_hp = s.max_hp + jnp.where(glows, C.ALTAR_MAX_HP, 0)
    out = s.replace(hp=jnp.where(heals | glows, max_hp, s.hp), max_hp=max_hp,
                    prayed=s.prayed | heals | glows)
    msg = jnp.where(heals, P["pray_heal"], jnp.where(s.prayed, P["pray_angry"],
                                                     jnp.where(glows, P["pray_glow"], P["pray_calm"])))
    return out, no_edits(), msg


def apply(s: MiniHackState, p, u):
    """Put on / remove the ring of levitation; removing it over lava or water drops you in."""
    has = s.inv[C.RING_LEVITATION] > 0
    on = s.replace(ring_on=True)
    off, off_edits, landed = enter_cell(s.replace(ring_on=False), no_edits(), u[3])
    off = select(s.lev_turns > 0, (s.replace(ring_on=False), no_edits()), (off, off_edits))
    out, edits = select(has, select(s.ring_on, off, (on, no_edits())), (s, no_edits()))
    landed_msg = jnp.where(landed == P["lava"], P["lava"], P["ring_off"])
    msg = jnp.where(~has, P["apply_none"], jnp.where(s.ring_on, landed_msg, P["ring_on"]))
    return out, edits, msg


def nothing(s: MiniHackState, p, u):
    return s, no_edits(), jnp.int32(P["none"])


HANDLERS = (nothing, pickup, drop, eat, read, quaff, wield, zap, pray, apply)
BRANCH = np.zeros(len(C.ACTIONS) + 1, np.int32)  # last entry: NO_ACTION (-1)
for _b, _a in enumerate((C.PICKUP, C.DROP, C.EAT, C.READ, C.QUAFF, C.WIELD, C.ZAP, C.PRAY, C.APPLY), 1):
    BRANCH[_a] = _b


def use_item(s: MiniHackState, action: jax.Array, p, u: jax.Array):
    """The item / prayer action `action` names -> (state, map edits, primary message); others do
    nothing."""
    branch = jnp.asarray(BRANCH)[jnp.where(action < 0, len(C.ACTIONS), action)]
    out, edits, msg = jax.lax.switch(branch, HANDLERS, s, p, u)
    return out, edits, jnp.asarray(msg, jnp.int32)
