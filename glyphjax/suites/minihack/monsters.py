"""Monster turns: every live monster whose speed gives it a move this turn, in slot order,
attacks you when adjacent (8-neighbourhood) or steps towards you; one below a third of its HP
flees (steps away and does not attack). A ranged attacker (`constants.MONSTER_RANGE`: the gnome's
crossbow) also shoots you from afar: along a row, column or diagonal within its range, when no
wall, door, boulder or other monster stands between you (`in_line_of_fire`). Speeds are
NetHack's (you: 12): a monster of speed v moves on turn t when floor((t + 1) * v / 12) >
floor(t * v / 12), so v = 6 moves every other turn.

A step tries the diagonal towards (or away from) you first, then its two straight components;
monsters keep out of walls, closed doors, lava, water, each other and your cell. A hit deals a
uniform roll in [1, 2 * mean - 1] (mean: `constants.MONSTER_DAMAGE`); monsters always hit.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.suites.minihack import constants as C
from glyphjax.suites.minihack.state import MiniHackState, roll


def fleeing(kind: jax.Array, hp: jax.Array) -> jax.Array:
    return hp * 3 < jnp.asarray(C.MONSTER_HP)[kind]


def monster_step(s: MiniHackState, i: jax.Array, mon_pos: jax.Array, away: jax.Array) -> jax.Array:
    """The cell monster i moves to (its own cell when every candidate is blocked)."""
    h, w = s.terrain.shape
    here = mon_pos[i]
    sign = jnp.sign(s.pos - here) * jnp.where(away, -1, 1)
    cands = jnp.stack([here + sign, here + sign * jnp.array([1, 0]), here + sign * jnp.array([0, 1])])
    inside = jnp.all((cands >= 0) & (cands < jnp.array([h, w])), axis=-1)
    cands = jnp.clip(cands, 0, jnp.array([h - 1, w - 1]))
    terrain_ok = jnp.asarray(C.MONSTER_WALKABLE)[s.terrain[cands[:, 0], cands[:, 1]]]
    others = (s.mon_hp > 0) & (jnp.arange(mon_pos.shape[0]) != i)
    taken = jnp.any(others[None, :] & jnp.all(cands[:, None, :] == mon_pos[None, :, :], -1), axis=1)
    on_player = jnp.all(cands == s.pos, axis=-1)
    moves = jnp.any(sign != 0)  # sign 0 only on the player's own cell
    ok = inside & terrain_ok & ~taken & ~on_player & moves
    return jnp.where(jnp.any(ok), cands[jnp.argmax(ok)], here)


BLOCKS_MISSILES = np.ones(C.N_TERRAIN, bool)
BLOCKS_MISSILES[[C.FLOOR, C.CORRIDOR, C.DOOR_OPEN, C.STAIRS, C.TRAP, C.LAVA, C.WATER, C.SINK, C.ALTAR,
                 C.FOUNTAIN]] = False


def in_line_of_fire(s: MiniHackState, i: jax.Array, mon_pos: jax.Array) -> jax.Array:
    """Whether monster i can shoot you: you are on its row, column or a diagonal within its
    range, and every cell strictly between is open (no wall, door, boulder or live monster)."""
    h, w = s.terrain.shape
    here = mon_pos[i]
    gap = s.pos - here
    dist = jnp.max(jnp.abs(gap))
    aligned = (gap[0] == 0) | (gap[1] == 0) | (jnp.abs(gap[0]) == jnp.abs(gap[1]))
    reach = jnp.asarray(C.MONSTER_RANGE)[s.mon_kind[i]]
    k = jnp.arange(1, int(C.MONSTER_RANGE.max()) + 1)
    cells = jnp.clip(here + k[:, None] * jnp.sign(gap), 0, jnp.array([h - 1, w - 1]))
    others = (s.mon_hp > 0) & (jnp.arange(mon_pos.shape[0]) != i)
    monster = jnp.any(others[None, :] & jnp.all(cells[:, None, :] == mon_pos[None, :, :], -1), axis=1)
    blocked = (jnp.asarray(BLOCKS_MISSILES)[s.terrain[cells[:, 0], cells[:, 1]]]
               | (s.items[cells[:, 0], cells[:, 1]] == C.BOULDER) | monster)
    clear = ~jnp.any(blocked & (k < dist))
    return (reach > 0) & aligned & (dist >= 1) & (dist <= reach) & clear


def moves_now(kind: jax.Array, t: jax.Array) -> jax.Array:
    """Whether a monster of this kind gets a move on turn t (see the module docstring)."""
    v = jnp.asarray(C.MONSTER_SPEED)[kind]
    return (t + 1) * v // C.PLAYER_SPEED > t * v // C.PLAYER_SPEED


def monsters_act(s: MiniHackState, u: jax.Array) -> tuple[MiniHackState, jax.Array]:
    """All monster turns -> (state, kind of the first monster that hit you, 0 if none)."""
    def one(i, carry):
        mon_pos, hp, hitter = carry
        kind = s.mon_kind[i]
        alive = (s.mon_hp[i] > 0) & moves_now(kind, s.t)
        away = fleeing(kind, s.mon_hp[i])
        adjacent = jnp.max(jnp.abs(mon_pos[i] - s.pos)) == 1
        shoots = in_line_of_fire(s, i, mon_pos)
        attacks = alive & (adjacent | shoots) & ~away & (hp > 0)
        dmg = roll(u[i], 1, 2 * jnp.asarray(C.MONSTER_DAMAGE)[kind] - 1)
        hp = jnp.where(attacks, hp - dmg, hp)
        hitter = jnp.where(attacks & (hitter == 0), kind, hitter)
        dest = monster_step(s.replace(mon_pos=mon_pos), i, mon_pos, away)
        mon_pos = mon_pos.at[i].set(jnp.where(alive & ~attacks, dest, mon_pos[i]))
        return mon_pos, hp, hitter

    mon_pos, hp, hitter = jax.lax.fori_loop(0, s.mon_kind.shape[0], one,
                                            (s.mon_pos, s.hp, jnp.int32(0)))
    return s.replace(mon_pos=mon_pos, hp=hp), hitter
