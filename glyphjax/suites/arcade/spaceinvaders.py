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
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import fire, march, meets, random_alive, shoot_down

INVADER, CANNON, SHOT, BOMB = "Ѫ", "▲", "↑", "↓"
ACTIONS = ("NOOP", "LEFT", "RIGHT", "FIRE")
_MOVES = ((0, 0), (0, -1), (0, 1), (0, 0))
FIRE = 3
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
    you = jnp.clip(state.player + action_delta(action, _MOVES), 0, jnp.array([h - 1, w - 1])).astype(jnp.int32)
    shots0 = fire(state.shots, you, (-2, 0), action == FIRE)
    shots1 = entities.advance(shots0, h, w)
    bombs1 = entities.advance(state.bombs, h, w)
    foes, heading = march(state.foes, state.phase, w, (state.t % params.period) == 0)
    shots, foes, kills = shoot_down(shots0, shots1, state.foes, foes)
    bombed = meets(state.bombs, bombs1, state.player, you).any()
    landed = (foes.alive & (foes.pos[:, 0] >= h - 1)).any()
    dropper, any_alive = random_alive(foes, draws.uniform())
    drop = (draws.uniform() < params.rate) & any_alive
    bombs = entities.spawn(bombs1, foes.pos[dropper] + jnp.array([1, 0]), jnp.array([1, 0]), 0, where=drop)
    nxt = state.replace(player=you, shots=shots, bombs=bombs, foes=foes, phase=heading)
    return nxt, Outcome(gained=kills, died=bombed | landed, event=jnp.where(kills > 0, EV_KILL, 0))


def _paint(state, s: Setting):
    codes = jnp.zeros(s.size, jnp.int32)
    codes = entities.paint(codes, state.foes, jnp.array([1], jnp.int32))
    codes = entities.paint(codes, state.bombs, jnp.array([4], jnp.int32))
    codes = entities.paint(codes, state.shots, jnp.array([3], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(2)


def _scripted(key, state, params):
    """Shoot the nearest invader: walk under the column where the live invader closest in column
    will be when a shot reaches its row (the formation's heading, ignoring turns), FIRE there,
    unless that move ends in a column where a bomb is two rows up or nearer; then the
    first safe one of staying, left and right."""
    you = state.player
    gap = jnp.where(state.foes.alive, jnp.abs(state.foes.pos[:, 1] - you[1]), 1 << 20)
    target = state.foes.pos[jnp.argmin(gap)]
    lead = ((you[0] - target[0]) // 2 + 1) // params.period
    aim = target[1] + state.phase * lead
    walk = jnp.where(aim < you[1], 1, jnp.where(aim > you[1], 2, FIRE))
    b = state.bombs
    cols = you[1] + jnp.array([0, -1, 1, 0])  # where each action ends
    unsafe = (b.alive[None] & (b.pos[None, :, 1] == cols[:, None]) & (you[0] - b.pos[None, :, 0] <= 2)).any(-1)
    fallback = jnp.where(~unsafe[0], 0, jnp.where(~unsafe[1] & (you[1] > 0), 1, 2))
    return jnp.where(unsafe[walk], fallback, walk).astype(jnp.int32)


SPACEINVADERS = Game(
    name="spaceinvaders", pattern="D", unit="invader destroyed", actions=ACTIONS,
    descriptions=("stay where you are", "move the cannon one column left",
                  "move the cannon one column right", "fire a shot upwards"),
    cells=EMPTY + INVADER + CANNON + SHOT + BOMB,
    glyphs={INVADER: "invader", CANNON: "your cannon", SHOT: "your shot", BOMB: "bomb"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(12, 14), max_steps=200, target=8, rate=0.1, period=2, caps=(8, 1, 2)),
    atari=Setting(size=(20, 30), max_steps=10000, target=55, rate=0.1, period=8, caps=(55, 1, 4)),
    draws=(1, 2), events=("You destroyed an invader.",),
    death="a bomb hits you or an invader reaches the bottom row",
)
