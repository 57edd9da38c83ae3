"""Phoenix: shoot a wave of birds that fly above you and dive at your cannon (pattern D).

MiniAtari: 10x14 field, waves of 6 birds, N = 6 (the catalogue's), 200 turns. Atari: 24x20
field, waves of 10, N = 40 (the catalogue's W), 10,000 turns. A wave flies in rows 1 to 3,
each bird one column every `period` turns, bouncing off the sides. Each turn each flying bird
starts a dive with probability 1/60 (deterministic given the step key): it then moves one row
down and one column towards your cannon every `period` turns. Your cannon works as in Space
Invaders (`physics.cannon_turn`); with probability `rate` a random bird drops a bomb. A shot
meeting a bird destroys it (+1/N); a new wave enters when the last bird dies. A diving bird
that reaches the bottom row without meeting your cannon returns to row 1 and flies on. A bomb
on your cell, or a diving bird meeting your cannon, is death (-1, the end). The Atari game's SHIELD
action and mothership stage are left out: one 4-action set serves both settings.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.physics import (BOMB, CANNON, CANNON_ACTIONS, CANNON_CELLS, CANNON_DESCRIPTIONS,
                                            CANNON_GLYPHS, SHOT, cannon_paint, cannon_policy, cannon_turn,
                                            meets)

BIRD = "Ѵ"
KIND_FLYING, KIND_DIVING = 0, 1
DIVE = 1 / 60
EV_KILL = 1


def _rules(s: Setting) -> str:
    return (f"Phoenix. A wave of {s.caps[0]} birds {BIRD} flies in rows 1 to 3, one column every "
            f"{s.period} turns, bouncing off the sides; now and then a bird dives, moving one row "
            f"down and one column towards your cannon every {s.period} turns. Your cannon {CANNON} "
            f"moves along the bottom row; FIRE launches a shot {SHOT} (one at a time) that climbs two "
            f"rows a turn and destroys the first bird it meets. Birds drop bombs {BOMB}. A new wave "
            "comes when the last bird dies. A diving bird that reaches the bottom row returns to the "
            "top. A bomb on your cell, or a diving bird meeting your cannon, kills you.")


def _wave(foes: entities.Pool, w: int, where) -> entities.Pool:
    """A fresh wave filling the pool: bird i in row 1 + i % 3, spread over the columns."""
    n = foes.size
    i = jnp.arange(n, dtype=jnp.int32)
    pos = jnp.stack([1 + i % 3, 1 + (i * (w - 2)) // n], axis=1)
    vel = jnp.stack([jnp.zeros(n, jnp.int32), jnp.where(i % 2 == 0, 1, -1)], axis=1)
    return entities.spawn_many(foes, pos, vel, jnp.zeros(n, jnp.int32), jnp.broadcast_to(where, (n,)))


def _reset(draws, s: Setting, params):
    h, w = s.size
    return new_state(s, foes=_wave(entities.empty(s.caps[0]), w, True), player=jnp.array([h - 1, w // 2], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    moves = (state.t % params.period) == 0
    dives = draws.uniform((s.caps[0],)) < DIVE

    def flying(st):
        f = st.foes
        diving = (f.kind == KIND_DIVING) | dives
        toward = jnp.sign(st.player[1] - f.pos[:, 1])
        vel = jnp.where(diving[:, None], jnp.stack([jnp.ones_like(toward), toward], axis=1), f.vel)
        f = f.replace(kind=jnp.where(diving, KIND_DIVING, f.kind), vel=vel)
        flown = entities.advance(f, 4, w, edge="bounce", moving=moves & ~diving)
        dived = entities.advance(f, h, w, edge="clip", moving=moves & diving)
        return flown.replace(pos=jnp.where(diving[:, None], dived.pos, flown.pos)), st.phase

    nxt, kills, bombed = cannon_turn(draws, state, action, s.size, params.rate, flying)
    f = nxt.foes
    diving = f.kind == KIND_DIVING
    rammed = (meets(state.foes, f, state.player, nxt.player) & diving).any()
    back = f.alive & diving & (f.pos[:, 0] >= h - 1)  # swooped past: back to the top
    f = f.replace(pos=jnp.where(back[:, None], f.pos.at[:, 0].set(1), f.pos), kind=jnp.where(back, KIND_FLYING, f.kind),
                  vel=jnp.where(back[:, None], f.vel.at[:, 0].set(0), f.vel))
    nxt = nxt.replace(foes=_wave(f, w, ~f.alive.any()))
    return nxt, Outcome(gained=kills, died=bombed | rammed, event=jnp.where(kills > 0, EV_KILL, 0))


def _scripted(key, state, params):
    """`physics.cannon_policy` against the diving birds while there are any (else the wave),
    leading each bird along its own heading."""
    f = state.foes
    diving = f.alive & (f.kind == KIND_DIVING)
    targets = f.replace(alive=jnp.where(diving.any(), diving, f.alive))
    return cannon_policy(state.replace(foes=targets), params.period, f.vel[:, 1])


PHOENIX = Game(
    name="phoenix", pattern="D", unit="bird destroyed", actions=CANNON_ACTIONS,
    descriptions=CANNON_DESCRIPTIONS, cells=EMPTY + BIRD + CANNON_CELLS,
    glyphs={**CANNON_GLYPHS, BIRD: "bird"},
    rules=_rules, reset=_reset, step=_step, paint=cannon_paint, scripted=_scripted,
    mini=Setting(size=(10, 14), max_steps=200, target=6, rate=0.1, period=2, caps=(6, 1, 3)),
    atari=Setting(size=(24, 20), max_steps=10000, target=40, rate=0.1, period=2, caps=(10, 1, 4)),
    draws=(1, 12), events=("You destroyed a bird.",),
    death="a bomb hits you or a diving bird meets your cannon",
    death_message="Your cannon was destroyed (a bomb, or a diving bird). Game over.",
)
