"""Asterix: collect N treasures from the lanes and do not touch an enemy (pattern D).

MiniAtari: 10x14 field (8 lanes), N = 8, 300 turns. Atari: 16x20 (14 lanes), N = 40, 10,000
turns. You walk in the lanes (rows 1 to H - 2) one cell a turn. Each lane holds at most one
object: an empty lane gets a new one with probability `rate` a turn, at the left or right edge
(moving inwards), a treasure one time in three, else an enemy (deterministic given the step key).
Objects move one column every `period` turns and leave at the far edge. A turn: you move, then
the objects, then new objects appear (never on your cell). Meeting a treasure (same cell or
passing through each other) collects it (+1/N); meeting an enemy is death (-1, the end).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import meets

YOU, ENEMY, TREASURE = "@", "Ж", "$"
ACTIONS = ("NOOP", "LEFT", "RIGHT", "UP", "DOWN")
_MOVES = ((0, 0), (0, -1), (0, 1), (-1, 0), (1, 0))
KIND_ENEMY, KIND_TREASURE = 0, 1
EV_TREASURE = 1


def _rules(s: Setting) -> str:
    return (f"Asterix. You {YOU} walk in the lanes between the empty top and bottom rows, one cell "
            "a turn. Objects enter the lanes from the left or right edge and cross to the other "
            f"side, one column every {s.period} turns: treasures {TREASURE} and enemies {ENEMY}. "
            "Walking into a treasure (or meeting one head-on) collects it; meeting an enemy kills you.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    return new_state(s, player=jnp.array([h // 2, w // 2], jnp.int32))


def _spawn(draws, foes: entities.Pool, you: jax.Array, s: Setting, params) -> entities.Pool:
    """New objects in empty lanes (slot i is lane i + 1), never on your cell."""
    h, w = s.size
    n = h - 2
    left = draws.bernoulli(0.5, (n,))
    treasure = draws.uniform((n,)) < 1.0 / 3.0
    pos = jnp.stack([jnp.arange(1, h - 1), jnp.where(left, 0, w - 1)], axis=1).astype(jnp.int32)
    new = (draws.uniform((n,)) < params.rate) & ~foes.alive & ~(pos == you[None]).all(-1)
    vel = jnp.stack([jnp.zeros(n, jnp.int32), jnp.where(left, 1, -1)], axis=1)
    return entities.put(foes, new, pos, vel, treasure.astype(jnp.int32), foes.timer)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you = jnp.clip(state.player + action_delta(action, _MOVES), jnp.array([1, 0]), jnp.array([h - 2, w - 1]))
    moving = (state.t % params.period) == 0
    moved = entities.advance(state.foes, h, w, edge="kill")
    foes = jax.tree.map(lambda a, b: jnp.where(moving, a, b), moved, state.foes)
    met = meets(state.foes, foes, state.player, you)
    took = met & (foes.kind == KIND_TREASURE)
    died = (met & (foes.kind == KIND_ENEMY)).any()
    foes = _spawn(draws, entities.kill(foes, took), you, s, params)
    gained = took.sum().astype(jnp.int32)
    return (state.replace(player=you.astype(jnp.int32), foes=foes),
            Outcome(gained=gained, died=died, event=jnp.where(gained > 0, EV_TREASURE, 0)))


def _paint(state, s: Setting):
    codes = entities.paint(jnp.zeros(s.size, jnp.int32), state.foes, jnp.array([1, 2], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(3)


def _scripted(key, state, params):
    """Head for the nearest treasure (Manhattan), never onto a cell an enemy holds or enters next."""
    h, w = state.field.shape
    you = state.player
    cand = jnp.clip(you[None] + jnp.array(_MOVES, jnp.int32), jnp.array([1, 0]), jnp.array([h - 2, w - 1]))
    foes = state.foes
    moving = (state.t % params.period) == 0
    ahead = foes.pos + jnp.where(moving, foes.vel, 0)
    enemy = foes.alive & (foes.kind == KIND_ENEMY)
    swap = (cand[:, None] == foes.pos[None]).all(-1) & (ahead[None] == you[None, None]).all(-1)
    danger = (((cand[:, None] == ahead[None]).all(-1) | swap) & enemy[None]).any(-1)
    treasure = foes.alive & (foes.kind == KIND_TREASURE)
    dist = jnp.abs(cand[:, None] - ahead[None]).sum(-1)
    near = jnp.where(treasure[None], dist, 4 * (h + w)).min(-1)
    score = -near.astype(jnp.float32) - 1000.0 * danger + 0.1 * jax.random.uniform(key, (5,))
    return jnp.argmax(score).astype(jnp.int32)


ASTERIX = Game(
    name="asterix", pattern="D", unit="treasure", actions=ACTIONS,
    descriptions=("stay where you are", "move one cell left", "move one cell right",
                  "move one cell up", "move one cell down"),
    cells=EMPTY + ENEMY + TREASURE + YOU,
    glyphs={YOU: "you", ENEMY: "enemy", TREASURE: "treasure"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 14), max_steps=300, target=8, rate=0.05, period=2, caps=(8, 1, 1)),
    atari=Setting(size=(16, 20), max_steps=10000, target=40, rate=0.05, period=2, caps=(14, 1, 1)),
    draws=(1, 48), events=("You collected a treasure.",),
    death="an enemy meets you", death_message="An enemy caught you. Game over.",
)
