"""Demon Attack: shoot N demons as they sweep above you and bomb you (pattern D).

MiniAtari: 10x14 field, 3 demons at a time, N = 10, 200 turns. Atari: 20x20 field, 5 at a time,
N = 30, 10,000 turns. Demons fly sideways in rows 1 to 4, one column every `period` turns,
bouncing off the sides; a destroyed demon is replaced one turn in four, in the top row at a
random column and heading. Your cannon works as in Space Invaders (physics.cannon_turn: LEFT,
RIGHT, FIRE a shot climbing two rows a turn, one at a time); each turn, with probability
`rate`, a random demon drops a bomb. A shot meeting a demon destroys it (+1/N); a bomb on your
cell is death (-1, the end).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.physics import (BOMB, CANNON, CANNON_ACTIONS, CANNON_CELLS, CANNON_DESCRIPTIONS,
                                            CANNON_GLYPHS, SHOT, cannon_paint, cannon_policy, cannon_turn)

DEMON = "M"
EV_KILL = 1


def _rules(s: Setting) -> str:
    return (f"Demon Attack. Up to {s.caps[0]} demons {DEMON} fly sideways in rows 1 to 4, one column "
            f"every {s.period} turns, bouncing off the sides; a destroyed demon is soon replaced in "
            f"the top row. Your cannon {CANNON} moves along the bottom row; FIRE launches a shot "
            f"{SHOT} (one at a time) that climbs two rows a turn and destroys the first demon it "
            f"meets on its way. Demons drop bombs {BOMB} that fall one row a turn; a bomb on your "
            "cell kills you.")


def _demons(draws, s: Setting, rows: jax.Array, mask: jax.Array, foes: entities.Pool) -> entities.Pool:
    """Demons at `rows` (per slot) and random columns and headings where `mask`."""
    n = s.caps[0]
    pos = jnp.stack([rows, draws.randint(0, s.size[1], (n,))], axis=1)
    vel = jnp.stack([jnp.zeros(n, jnp.int32), jnp.where(draws.bernoulli(0.5, (n,)), 1, -1)], axis=1)
    return entities.spawn_many(foes, pos, vel, jnp.zeros(n, jnp.int32), mask)


def _reset(draws, s: Setting, params):
    h, w = s.size
    n = s.caps[0]
    foes = _demons(draws, s, 1 + jnp.arange(n) % 4, jnp.ones(n, bool), entities.empty(n))
    return new_state(s, foes=foes, player=jnp.array([h - 1, w // 2], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    moves = (state.t % params.period) == 0
    flying = lambda st: (jax.tree.map(lambda a, b: jnp.where(moves, a, b),
                                      entities.advance(st.foes, 5, w, edge="bounce"), st.foes), st.phase)
    nxt, kills, bombed = cannon_turn(draws, state, action, s.size, params.rate, flying)
    refill = ~nxt.foes.alive & (draws.uniform((s.caps[0],)) < 0.25)
    foes = _demons(draws, s, jnp.ones(s.caps[0], jnp.int32), refill, nxt.foes)
    return nxt.replace(foes=foes), Outcome(gained=kills, died=bombed, event=jnp.where(kills > 0, EV_KILL, 0))


def _scripted(key, state, params):
    """`physics.cannon_policy`, leading each demon along its own heading."""
    return cannon_policy(state, params.period, state.foes.vel[:, 1])


DEMONATTACK = Game(
    name="demonattack", pattern="D", unit="demon destroyed", actions=CANNON_ACTIONS,
    descriptions=CANNON_DESCRIPTIONS,
    cells=EMPTY + DEMON + CANNON_CELLS,
    glyphs={**CANNON_GLYPHS, DEMON: "demon"},
    rules=_rules, reset=_reset, step=_step, paint=cannon_paint, scripted=_scripted,
    mini=Setting(size=(10, 14), max_steps=200, target=10, rate=0.15, period=2, caps=(3, 1, 3)),
    atari=Setting(size=(20, 20), max_steps=10000, target=30, rate=0.1, period=2, caps=(5, 1, 5)),
    draws=(12, 20), events=("You destroyed a demon.",),
    death="a bomb hits you", death_message="A bomb destroyed your cannon. Game over.",
)
