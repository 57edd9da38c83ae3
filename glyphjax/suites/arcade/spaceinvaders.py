"""Space Invaders: shoot every invader before they land or bomb you (pattern D).

MiniAtari: 12x14 field, 2 rows of 4 invaders, N = 8, 200 turns. Atari: 20x30 field, 5 rows of
11 invaders, N = 55 (the catalogue's W), 10,000 turns. Your cannon moves along the bottom row;
FIRE launches a shot (one on screen at a time) that climbs two rows a turn. The formation marches
one column every `period` turns, and one row down (turning round) when it would leave the field.
Each turn, with probability `rate`, a random invader drops a bomb (at most `caps[2]` at once)
that falls one row a turn. A turn: the cannon moves or fires, shots and bombs move, the formation
marches; a shot that meets an invader (swept along its path) destroys both (+1/N). A bomb on
your cell, or an invader reaching the bottom row, is death (-1, the end). The reference's
Atari game has 6 actions (LEFT_FIRE, RIGHT_FIRE); here one 4-action set serves both settings.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.physics import (BOMB, CANNON, CANNON_ACTIONS, CANNON_CELLS, CANNON_DESCRIPTIONS,
                                            CANNON_GLYPHS, SHOT, cannon_paint, cannon_policy, cannon_turn, march)

INVADER = "W"
EV_KILL = 1


def formation(s: Setting) -> tuple[int, int]:
    """(rows, columns) of the invader formation at a setting."""
    return (2, 4) if s.size[1] < 20 else (5, 11)


def _rules(s: Setting) -> str:
    rows, cols = formation(s)
    return (f"Space Invaders. {rows * cols} invaders {INVADER} march sideways above you, one column "
            f"every {s.period} turns, and one row down (turning round) when they reach a side. Your "
            f"cannon {CANNON} moves along the bottom row; FIRE launches a shot {SHOT} (one at a "
            f"time) that climbs two rows a turn and destroys the first invader it meets on its way. Invaders "
            f"drop bombs {BOMB} that fall one row a turn. A bomb on your cell, or an invader "
            "reaching the bottom row, kills you.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    rows, cols = formation(s)
    rr, cc = jnp.meshgrid(1 + 2 * jnp.arange(rows), 1 + 2 * jnp.arange(cols), indexing="ij")
    n = rows * cols
    pos = jnp.stack([rr.reshape(-1), cc.reshape(-1)], axis=1)
    foes = entities.spawn_many(entities.empty(s.caps[0]), pos, jnp.zeros((n, 2), jnp.int32),
                               jnp.zeros(n, jnp.int32), jnp.ones(n, bool))
    return new_state(s, foes=foes, phase=jnp.int32(1), player=jnp.array([h - 1, w // 2], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    marching = lambda st: march(st.foes, st.phase, w, (st.t % params.period) == 0)
    nxt, kills, bombed = cannon_turn(draws, state, action, s.size, params.rate, marching)
    landed = (nxt.foes.alive & (nxt.foes.pos[:, 0] >= h - 1)).any()
    return nxt, Outcome(gained=kills, died=bombed | landed, event=jnp.where(kills > 0, EV_KILL, 0))


def _scripted(key, state, params):
    """`physics.cannon_policy`: the formation moves along its heading every `period` turns."""
    return cannon_policy(state, params.period, jnp.broadcast_to(state.phase, state.foes.alive.shape))


SPACEINVADERS = Game(
    name="spaceinvaders", pattern="D", unit="invader destroyed", actions=CANNON_ACTIONS,
    descriptions=CANNON_DESCRIPTIONS,
    cells=EMPTY + INVADER + CANNON_CELLS,
    glyphs={**CANNON_GLYPHS, INVADER: "invader"},
    rules=_rules, reset=_reset, step=_step, paint=cannon_paint, scripted=_scripted,
    mini=Setting(size=(12, 14), max_steps=200, target=8, rate=0.1, period=2, caps=(8, 1, 2)),
    atari=Setting(size=(20, 30), max_steps=10000, target=55, rate=0.1, period=8, caps=(55, 1, 4)),
    draws=(1, 2), events=("You destroyed an invader.",),
    death="a bomb hits you or an invader reaches the bottom row",
    death_message="Your cannon was destroyed (a bomb, or the invaders landed). Game over.",
)
