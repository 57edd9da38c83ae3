"""Terrain effects: what happens to the player on arriving on (or landing on) a cell."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.suites.minihack import constants as C
from glyphjax.suites.minihack.state import Edits, MiniHackState, edit, levitating, roll


def enter_cell(s: MiniHackState, e: Edits, u: jax.Array) -> tuple[MiniHackState, Edits, jax.Array]:
    """Effects of arriving on `s.pos`: a trap fires once (then is gone), water hurts and lava
    kills unless you levitate; otherwise an item here is named. -> (state, map edits, primary
    message)."""
    r, c = s.pos[0], s.pos[1]
    cell = s.terrain[r, c]
    floating = levitating(s)
    trap = (cell == C.TRAP) & ~floating
    water = (cell == C.WATER) & ~floating
    lava = (cell == C.LAVA) & ~floating
    dmg = jnp.where(trap, roll(u, *C.TRAP_DAMAGE), 0) + jnp.where(water, C.WATER_DAMAGE, 0)
    hp = jnp.where(lava, 0, s.hp - dmg)
    e = edit(e, 0, s.pos, C.FLOOR, trap)
    item = s.items[r, c]
    msg = jnp.where(item > 0, C.PRIMARY["see"] + item - 1, C.PRIMARY["none"])
    msg = jnp.where(trap, C.PRIMARY["trap"], jnp.where(water, C.PRIMARY["water"],
                                                       jnp.where(lava, C.PRIMARY["lava"], msg)))
    return s.replace(hp=hp), e, msg
