"""Star Gunner: a side-on space shooter; shoot N enemies flying in from the right (pattern D).

MiniAtari: 10x14 field, N = 5 (the catalogue's), 200 turns. Atari: 16x30 field, N = 30 (the
catalogue's W), 10,000 turns. Your ship flies in the left half of the field (UP/DOWN/LEFT/RIGHT
one cell, stopping at its sides); FIRE launches a shot (two at most on screen) that flies right
two cells a turn. An enemy enters at a random row of the right edge with probability `rate` a
turn (at most `caps[0]` at once, `scroll.enter`); every `period` turns each enemy flies one
column left and, on a coin flip, one row towards your row; one that leaves at the left edge is
gone. A turn: you move, shots and enemies move, a shot meeting an enemy (swept along its path)
destroys it (+1/N), an enemy meeting you is death (-1, the end). The reference's game has
waves, levels and enemy fire; here enemies only ram. Both settings use the catalogue's
6-action set.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import scroll
from glyphjax.suites.arcade.asteroids import ACTIONS, BULLET, FIRE, MOVES
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import best_action, meets, shoot_down

SHIP, ENEMY = "►", "◆"
EV_KILL = 1


def _rules(s: Setting) -> str:
    return (f"Star Gunner. Your ship {SHIP} flies in the left half of the field: UP/DOWN/LEFT/RIGHT move it "
            f"one cell. FIRE shoots {BULLET} (two at most at once) to the right, two cells a turn. Enemy "
            f"ships {ENEMY} fly in from the right edge: every {s.period} turns each flies one column left "
            "and, half the time, one row towards your row; they leave at the left edge. A shot that meets "
            "an enemy destroys it; an enemy meeting your ship destroys it.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    return new_state(s, player=jnp.array([h // 2, 1], jnp.int32))


def _fly(player, action, size):
    """Your cell after this turn's move, kept in the left half of the field."""
    h, w = size
    return scroll.fly(player, action_delta(action, MOVES), 0, jnp.array([h - 1, w // 2 - 1]), wrap=False)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you = _fly(state.player, action, s.size)
    shots0 = entities.spawn(state.shots, you, jnp.array([0, 2], jnp.int32), 0, where=action == FIRE)
    shots1 = entities.advance(shots0, h, w)
    moves = (state.t % params.period) == 0
    f = state.foes
    dive = (draws.uniform((f.size,)) < 0.5) & moves
    rows = jnp.clip(f.pos[:, 0] + jnp.where(dive, jnp.sign(you[0] - f.pos[:, 0]), 0), 0, h - 1)
    flown = entities.advance(f.replace(pos=f.pos.at[:, 0].set(rows), vel=jnp.broadcast_to(jnp.array([0, -1]), f.vel.shape)),
                             h, w, moving=jnp.broadcast_to(moves, f.alive.shape))
    shots, foes, kills = shoot_down(shots0, shots1, f, flown)
    died = meets(f, foes, state.player, you).any()
    edge = jnp.stack([jnp.arange(h), jnp.full(h, w - 1)], axis=1).astype(jnp.int32)
    foes = scroll.enter(foes, draws.uniform() < params.rate, draws.uniform(), edge, jnp.ones(h, bool), (0, -1), 0)
    return (state.replace(player=you, shots=shots, foes=foes),
            Outcome(gained=kills, died=died, event=jnp.where(kills > 0, EV_KILL, 0)))


def _paint(state, s: Setting):
    codes = entities.paint(jnp.zeros(s.size, jnp.int32), state.foes, jnp.array([1], jnp.int32))
    codes = entities.paint(codes, state.shots, jnp.array([2], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(3)


def _scripted(key, state, params):
    """Never end a turn within one cell of a cell an enemy may reach this turn; FIRE when an
    enemy is ahead in your row, else move to the row of the nearest enemy ahead, keeping to the
    left."""
    size = state.field.shape
    f = state.foes
    moves = (state.t % params.period) == 0
    nxt = f.pos - jnp.stack([0, moves.astype(jnp.int32)])
    ahead = f.alive & (f.pos[:, 1] > state.player[1])
    target = jnp.argmin(jnp.where(ahead, f.pos[:, 1], 1 << 20))
    row = jnp.where(ahead.any(), f.pos[target, 0], size[0] // 2)

    def value(a):
        you = _fly(state.player, a, size)
        gap = jnp.abs(nxt - you[None])
        unsafe = (f.alive & (gap[:, 0] <= 1 + moves) & (gap[:, 1] <= 1)).any()
        lined = (ahead & (f.pos[:, 0] == you[0])).any()
        return (-100.0 * unsafe + 4.0 * lined * (1.0 + 1.5 * (a == FIRE)) - jnp.abs(row - you[0])
                - 0.2 * you[1] - 0.1 * (a == 0))

    return best_action(value, len(ACTIONS))


STARGUNNER = Game(
    name="stargunner", pattern="D", unit="enemy destroyed", actions=ACTIONS,
    descriptions=("stay where you are", "move up one cell", "move down one cell", "move left one cell",
                  "move right one cell", "shoot to the right"),
    cells=EMPTY + ENEMY + BULLET + SHIP,
    glyphs={ENEMY: "enemy ship", BULLET: "your shot", SHIP: "your ship (facing right)"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 14), max_steps=200, target=5, rate=0.15, period=2, caps=(4, 2, 1)),
    atari=Setting(size=(16, 30), max_steps=10000, target=30, rate=0.15, period=2, caps=(6, 2, 1)),
    draws=(1, 2 + 6), events=("You destroyed an enemy ship.",),
    death="an enemy ship meets you", death_message="An enemy ship hit you. Game over.",
)
