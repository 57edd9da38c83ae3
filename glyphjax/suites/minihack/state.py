"""The MiniHack state and the small helpers every mechanic module shares."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core import entities
from glyphjax.core.types import EnvState


@struct.dataclass
class MiniHackState(EnvState):
    terrain: jax.Array  # int32[H, W] terrain codes (constants.ROCK ...)
    items: jax.Array  # int32[H, W] item type lying on each cell (0 = none)
    pos: jax.Array  # int32[2] the player's cell
    hp: jax.Array  # int32 hit points
    max_hp: jax.Array  # int32
    inv: jax.Array  # int32[N_ITEMS] items carried (wands: charges left)
    wand: jax.Array  # int32 item type of the wand picked up last (0 = none)
    wielding: jax.Array  # bool: wielding the long sword
    ring_on: jax.Array  # bool: wearing the ring of levitation
    lev_turns: jax.Array  # int32 turns of potion levitation left
    hunger: jax.Array  # int32 nutrition left (only counts down where the level says so)
    prayed: jax.Array  # bool: prayer already answered this episode
    lit: jax.Array  # bool[H, W] lit cells (seen from anywhere)
    memory: jax.Array  # int32[H, W] display code last seen on each cell (0 = never seen)
    mon_pos: jax.Array  # int32[M, 2] monster cells
    mon_kind: jax.Array  # int32[M] monster kinds (0 = empty slot)
    mon_hp: jax.Array  # int32[M] monster hit points (<= 0 = dead)
    floor: jax.Array  # int32 dungeon level - 1 (multi-floor tasks descend; Dlvl = floor + 1)


NOWHERE = 1 << 16  # a row past every map: a map write there is dropped


@struct.dataclass
class Edits:
    """The map cells a turn writes, applied at once after your action (`apply_edits`): one terrain
    cell (a door opened, a trap sprung, a fountain dried up) and two item cells (an item picked
    up or dropped, a boulder pushed). Kept apart from the maps so that choosing between a turn's
    outcomes moves a few numbers, not whole maps."""
    cells: jax.Array  # int32[3, 2]: the terrain cell, then two item cells ((NOWHERE, NOWHERE): none)
    vals: jax.Array  # int32[3] the codes written there


def no_edits() -> Edits:
    return Edits(cells=jnp.full((3, 2), NOWHERE, jnp.int32), vals=jnp.zeros(3, jnp.int32))


def edit(e: Edits, slot: int, cell: jax.Array, val, when=True) -> Edits:
    """Write `val` on `cell` (slot 0: terrain; 1, 2: items) where `when`; else keep the slot."""
    cell = jnp.where(when, jnp.asarray(cell, jnp.int32), e.cells[slot])
    return Edits(cells=e.cells.at[slot].set(cell),
                 vals=e.vals.at[slot].set(jnp.where(when, jnp.asarray(val, jnp.int32), e.vals[slot])))


def apply_edits(s: MiniHackState, e: Edits) -> MiniHackState:
    """The maps with a turn's writes (`Edits`)."""
    return s.replace(terrain=s.terrain.at[e.cells[0, 0], e.cells[0, 1]].set(e.vals[0], mode="drop"),
                     items=s.items.at[e.cells[1:, 0], e.cells[1:, 1]].set(e.vals[1:], mode="drop"))


def levitating(s: MiniHackState) -> jax.Array:
    return s.ring_on | (s.lev_turns > 0)


def monster_at(s: MiniHackState, cell: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(slot of the live monster on `cell`, whether there is one)."""
    here = (s.mon_hp > 0) & jnp.all(s.mon_pos == cell, axis=-1)
    return jnp.argmax(here).astype(jnp.int32), jnp.any(here)


def roll(u: jax.Array, lo: int, hi) -> jax.Array:
    """int32 uniform in [lo, hi] (inclusive) from one uniform u in [0, 1)."""
    hi = jnp.asarray(hi, jnp.int32)
    return jnp.minimum(lo + jnp.floor(u * (hi - lo + 1)).astype(jnp.int32), hi)


def select(pred, a, b):
    """Pytree `a` where pred else `b` (branch-free choice between two outcomes of a turn)."""
    return jax.tree.map(lambda x, y: jnp.where(pred, x, y), a, b)


def monster_pool(s: MiniHackState, where: jax.Array | None = None) -> entities.Pool:
    """The monsters as a `core.entities` pool (alive = HP > 0, and `where` per slot when given;
    timer = HP), for the shared occupancy / nearest / paint mechanics."""
    alive = s.mon_hp > 0
    return entities.Pool(pos=s.mon_pos, vel=jnp.zeros_like(s.mon_pos), kind=s.mon_kind,
                         alive=alive if where is None else alive & where, timer=s.mon_hp)


def occupied(s: MiniHackState) -> jax.Array:
    """bool[H, W]: cells holding a live monster."""
    return entities.occupancy(monster_pool(s), *s.terrain.shape) > 0


def chebyshev_map(shape: tuple[int, int], cell: jax.Array) -> jax.Array:
    """int32[H, W] Chebyshev distance of every cell from `cell`."""
    rows = jnp.arange(shape[0])[:, None]
    cols = jnp.arange(shape[1])[None, :]
    return jnp.maximum(jnp.abs(rows - cell[0]), jnp.abs(cols - cell[1]))
