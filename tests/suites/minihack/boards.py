"""Hand-drawn MiniHack boards for the mechanic tests: an ASCII map -> an engine state, and one
jitted step / render shared by every test (one compile for the 7x7 canvas)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.render.text import render_text
from glyphjax.suites.minihack import constants as C
from glyphjax.suites.minihack.levels import N_MONSTERS
from glyphjax.suites.minihack.vision import remember, wall_glyphs

ENV = glyphjax.make("minihack/room-5x5")
PARAMS = ENV.default_params()
TERRAIN = {" ": C.ROCK, "·": C.FLOOR, "-": C.WALL, "|": C.WALL, "+": C.DOOR_CLOSED, "L": C.DOOR_LOCKED,
           ">": C.STAIRS, "^": C.TRAP, "♨": C.LAVA, "≈": C.WATER, "⊔": C.SINK, "{": C.FOUNTAIN,
           "_": C.ALTAR}
MONSTERS = {"r": C.RAT, "k": C.KOBOLD, "G": C.GNOME, "o": C.ORC, "O": C.OGRE}


def board(rows: list[str], items: dict | None = None, inv: dict | None = None, dark: bool = False,
          **fields):
    """State of a 7x7 board: map glyphs as TERRAIN, monsters as MONSTERS letters, '@' you (on
    floor); items {(r, c): item type} lie on floor cells; inv {item type: count}; other state
    fields (hp, wielding, ...) as keyword arguments."""
    h, w = len(rows), len(rows[0])
    terrain = np.zeros((h, w), np.int32)
    mon_pos = np.zeros((N_MONSTERS, 2), np.int32)
    mon_kind = np.zeros(N_MONSTERS, np.int32)
    n = 0
    pos = None
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == "@":
                pos, ch = (r, c), "·"
            if ch in MONSTERS:
                mon_pos[n], mon_kind[n] = (r, c), MONSTERS[ch]
                n, ch = n + 1, "·"
            terrain[r, c] = TERRAIN[ch]
    item_grid = np.zeros((h, w), np.int32)
    for (r, c), t in (items or {}).items():
        item_grid[r, c] = t
    inv_arr = np.zeros(C.N_ITEMS, np.int32)
    for t, k in (inv or {}).items():
        inv_arr[t] = k
    s = _START
    s = s.replace(terrain=_WALL_GLYPHS(jnp.asarray(terrain)), items=jnp.asarray(item_grid),
                  pos=jnp.asarray(pos, jnp.int32), inv=jnp.asarray(inv_arr), mon_pos=jnp.asarray(mon_pos),
                  mon_kind=jnp.asarray(mon_kind), mon_hp=jnp.asarray(C.MONSTER_HP[mon_kind]),
                  lit=jnp.full((h, w), not dark), memory=jnp.zeros((h, w), jnp.int32))
    s = s.replace(**{k: jnp.asarray(v, getattr(s, k).dtype) for k, v in fields.items()})
    return _REMEMBER(s)


# Jitted once: called eagerly, the generator's and vision's scans would compile on every board.
_START = jax.jit(ENV.reset)(jax.random.PRNGKey(0))
_WALL_GLYPHS = jax.jit(wall_glyphs)
_REMEMBER = jax.jit(remember)
_STEP = jax.jit(ENV.step)
_RENDER = jax.jit(ENV.render)


def step(s, action: int, params=None, seed: int = 0):
    """One step -> (state, transition); the key is fixed by seed and the turn."""
    return _STEP(glyphjax.step_key(seed, s.t), s, jnp.int32(action), PARAMS if params is None else params)


def text(s):
    """The text observation of a state."""
    return render_text(ENV.card, _RENDER(s, PARAMS))


def grid(s) -> list[str]:
    return text(s).grid.split("\n")
