"""Beam Rider: ride the beams at the bottom of space and shoot N saucers (pattern D).

MiniAtari: 12x14 field, 5 beams, N = 5 (the catalogue's), 200 turns. Atari: 20x20 field, 7
beams, N = 15 (the catalogue's W: one sector), 10,000 turns. Beams are the columns 1, 4, 7, ...
Your ship sits on the bottom row of a beam; LEFT/RIGHT hop to the next beam, FIRE launches a
torpedo (one on screen at a time) that climbs two rows a turn. Each turn a saucer enters the
top of a random beam with probability `rate` (`scroll.enter`); saucers descend one row every
`period` turns and, on one move in four, also hop to a neighbouring beam (deterministic given
the step key). A turn: the ship hops or fires, torpedoes and saucers move, a torpedo meeting a
saucer destroys it (+1/N), a saucer meeting the ship is death (-1, the end); a saucer that
passes the bottom row is gone. The reference's Atari game has 9 beams, pays pattern A and has
bombs and sectors; here one pattern (D) and one 4-action set serve both settings.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import scroll
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.physics import CANNON_FIRE, SHOT, fire, meets, shoot_down

SHIP, SAUCER, BEAM = "Ʌ", "◊", "┊"
SPACING = 3  # columns between beams
EV_KILL = 1


def _rules(s: Setting) -> str:
    h, w = s.size
    return (f"Beam Rider. {len(range(1, w, SPACING))} beams {BEAM} run down the field (columns 1, 4, "
            f"7, ...). Your ship {SHIP} rides the bottom row; LEFT/RIGHT hop to the next beam, FIRE "
            f"launches a torpedo {SHOT} (one at a time) that climbs two rows a turn and destroys the "
            f"first saucer it meets. Saucers {SAUCER} enter at the top of the beams and descend one "
            f"row every {s.period} turns, sometimes hopping to a neighbouring beam. A saucer reaching "
            "your ship kills you.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    beams = len(range(1, w, SPACING))
    return new_state(s, player=jnp.array([h - 1, 1 + SPACING * (beams // 2)], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    last = 1 + SPACING * (len(range(1, w, SPACING)) - 1)
    hop = jnp.where(action == 1, -SPACING, jnp.where(action == 2, SPACING, 0))
    you = state.player.at[1].set(jnp.clip(state.player[1] + hop, 1, last))
    shots0 = fire(state.shots, you, (-2, 0), action == CANNON_FIRE)
    shots1 = entities.advance(shots0, h, w)
    moves = (state.t % params.period) == 0
    n = s.caps[0]
    side = jnp.where(draws.uniform((n,)) < 0.5, -SPACING, SPACING)
    col = state.foes.pos[:, 1] + jnp.where(draws.uniform((n,)) < 0.25, side, 0)
    col = jnp.where((col < 1) | (col > last), state.foes.pos[:, 1] - (col - state.foes.pos[:, 1]), col)
    foes = state.foes.replace(pos=jnp.where(moves, state.foes.pos.at[:, 1].set(col), state.foes.pos))
    foes = scroll.ride(foes, moves, h, w, axis=0)
    shots, foes, kills = shoot_down(shots0, shots1, state.foes, foes)
    died = meets(state.foes, foes, state.player, you).any()
    top = jnp.stack([jnp.zeros(w, jnp.int32), jnp.arange(w)], axis=1)
    foes = scroll.enter(foes, draws.uniform() < params.rate, draws.uniform(), top, _beam_mask(w), (1, 0), 0)
    return (state.replace(player=you.astype(jnp.int32), shots=shots, foes=foes),
            Outcome(gained=kills, died=died, event=jnp.where(kills > 0, EV_KILL, 0)))


def _beam_mask(w: int) -> jnp.ndarray:
    return (jnp.arange(w) % SPACING) == 1


def _paint(state, s: Setting):
    h, w = s.size
    codes = jnp.broadcast_to(jnp.where(_beam_mask(w), 1, 0), (h, w)).astype(jnp.int32)
    codes = entities.paint(codes, state.foes, jnp.array([2], jnp.int32))
    codes = entities.paint(codes, state.shots, jnp.array([3], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(4)


def _scripted(key, state, params):
    """Go to the beam of the lowest saucer and FIRE under it (when no torpedo is in flight);
    never onto a cell a saucer can reach this turn (descending, or hopping from a neighbouring
    beam), and away from beams with a saucer within five rows of the bottom."""
    h, w = state.field.shape
    you, f = state.player, state.foes
    acts = jnp.arange(4)
    cols = you[1] + jnp.array([0, -SPACING, SPACING, 0])
    free = ~state.shots.alive.any()
    mine = f.alive & (f.pos[:, 1] == you[1])
    lowest = jnp.argmax(jnp.where(mine, f.pos[:, 0], -1))
    shot = (jnp.arange(f.size) == lowest) & mine & (f.pos[:, 0] >= h - 3) & free  # what FIRE removes
    live = f.alive[None] & ~(shot[None] & (acts == CANNON_FIRE)[:, None])  # [action, saucer]
    moves = (state.t % params.period) == 0
    reach = jnp.abs(f.pos[None, :, 1] - cols[:, None])
    hard = live & (((f.pos[None, :, 0] == h - 2) & moves & ((reach == 0) | (reach == SPACING)))
                   | ((f.pos[None, :, 0] == h - 1) & (reach == 0)))
    soft = (live & (f.pos[None, :, 0] >= h - 6) & (reach == 0)).sum(-1)
    off = (cols < 1) | (cols >= w)
    low = jnp.argmax(jnp.where(f.alive, f.pos[:, 0], -1))
    aim = jnp.where(f.alive.any(), f.pos[low, 1], you[1])
    want = jnp.where(aim < you[1], 1, jnp.where(aim > you[1], 2, 0))
    want = jnp.where(mine.any() & free, CANNON_FIRE, want)
    score = (-100.0 * (hard.any(-1) | off) - 3.0 * soft - 1.0 * (acts != want) - 0.5 * (acts != 0))
    return jnp.argmax(score).astype(jnp.int32)


BEAMRIDER = Game(
    name="beamrider", pattern="D", unit="saucer destroyed", actions=("NOOP", "LEFT", "RIGHT", "FIRE"),
    descriptions=("stay on your beam", "hop to the next beam on the left", "hop to the next beam on the right",
                  "fire a torpedo up your beam"),
    cells=EMPTY + BEAM + SAUCER + SHOT + SHIP,
    glyphs={SHIP: "your ship", SAUCER: "saucer", BEAM: "beam", SHOT: "your shot"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(12, 14), max_steps=200, target=5, rate=0.25, period=2, caps=(6, 1, 1)),
    atari=Setting(size=(20, 20), max_steps=10000, target=15, rate=0.25, period=2, caps=(10, 1, 1)),
    draws=(1, 2 + 2 * 10), events=("You destroyed a saucer.",),
    death="a saucer reaches your ship", death_message="A saucer hit your ship. Game over.",
)
