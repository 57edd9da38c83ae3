"""Atlantis: three fixed cannons defend the city from ships that fly lower each pass (pattern D).

MiniAtari: 8x16 field, N = 15 ships (the catalogue's 3 waves of 5), 300 turns. Atari: 16x30
field, N = 30 (the catalogue's W), 10,000 turns. The city fills the bottom row, with cannons at
its left end, middle and right end. Each turn a ship enters with probability `rate`
(`scroll.enter`) at the left or right edge of rows 1 to 3, flying across one column every
`period` turns; a ship that leaves the field re-enters at the other side one row
lower (Atari: two rows). LEFT,
CENTER and RIGHT fire that cannon (one shot of each in flight): the left cannon shoots up and
to the right, the middle one straight up, the right one up and to the left, two cells a turn.
A shot meeting a ship destroys it (+1/N). A ship reaching row H - 3 (two rows above the city) bombs it: death
(-1, the end). The reference's MiniAtari counts waves and sends raiders straight down the
cannons' columns; here ships fly across as in the Atari game, and one action set serves both.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import scroll
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.physics import CANNON, SHOT, shoot_down

SHIP, CITY = "◆", "▄"
AIM = (1, 0, -1)  # column step per row of the LEFT, CENTER and RIGHT cannons' shots
EV_KILL = 1


def cannons(w: int) -> tuple[int, int, int]:
    return (0, w // 2, w - 1)


def drop(h: int) -> int:
    """Rows a ship comes down each pass (MiniAtari 1, Atari 2)."""
    return 1 if h < 12 else 2


def _rules(s: Setting) -> str:
    h, w = s.size
    return (f"Atlantis. The city {CITY} fills the bottom row with three cannons {CANNON} (columns "
            f"{', '.join(map(str, cannons(w)))}). Enemy ships {SHIP} enter at the sides of rows 1 to 3 "
            f"and fly across, one column every {s.period} turns; a ship that leaves the field comes "
            f"back from the other side {drop(h)} row{'s' if drop(h) > 1 else ''} lower. LEFT, CENTER "
            "and RIGHT fire that cannon (one "
            f"shot {SHOT} of each in flight, two cells a turn): left shoots up and to the right, centre "
            f"straight up, right up and to the left. A ship reaching row {h - 3} destroys the city.")


def _reset(draws, s: Setting, params):
    return new_state(s, player=jnp.array([s.size[0] - 1, s.size[1] // 2], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    k = jnp.clip(action - 1, 0, 2)
    aim = jnp.array(AIM, jnp.int32)[k]
    free = ~(state.shots.alive & (state.shots.kind == k)).any()
    muzzle = jnp.stack([h - 1, jnp.array(cannons(w), jnp.int32)[k]])
    shots0 = entities.spawn(state.shots, muzzle, jnp.stack([-2, 2 * aim]), k, where=(action >= 1) & free)
    shots1 = entities.advance(shots0, h, w)
    moves = (state.t % params.period) == 0
    f = entities.advance(state.foes, h, w, edge="wrap", moving=jnp.broadcast_to(moves, state.foes.alive.shape))
    wrapped = jnp.abs(f.pos[:, 1] - state.foes.pos[:, 1]) > 1
    foes = f.replace(pos=f.pos.at[:, 0].add(drop(h) * wrapped.astype(jnp.int32)))
    shots, foes, kills = shoot_down(shots0, shots1, state.foes, foes)
    bombed = (foes.alive & (foes.pos[:, 0] >= h - 3)).any()
    left = draws.uniform() < 0.5
    edge = jnp.stack([jnp.arange(1, 4), jnp.full(3, jnp.where(left, 0, w - 1))], axis=1).astype(jnp.int32)
    foes = scroll.enter(foes, draws.uniform() < params.rate, draws.uniform(), edge, jnp.ones(3, bool),
                        jnp.stack([0, jnp.where(left, 1, -1)]), 0)
    return state.replace(shots=shots, foes=foes), Outcome(gained=kills, died=bombed,
                                                          event=jnp.where(kills > 0, EV_KILL, 0))


def _paint(state, s: Setting):
    h, w = s.size
    codes = jnp.zeros((h, w), jnp.int32).at[h - 1].set(3).at[h - 1, jnp.array(cannons(w))].set(4)
    codes = entities.paint(codes, state.foes, jnp.array([1], jnp.int32))
    return entities.paint(codes, state.shots, jnp.array([2, 2, 2], jnp.int32))


def _scripted(key, state, params):
    """Fire the free cannon whose shot will pass closest to the lowest ship when it reaches that
    ship's row (ships moving `vel` every `period` turns), when that miss is at most one column."""
    h, w = state.field.shape
    f = state.foes
    rise = h - 1 - f.pos[:, 0]  # rows from the cannons to the ship
    turns = (rise + 1) // 2
    ship_col = f.pos[:, 1] + f.vel[:, 1] * (turns // params.period)
    shot_col = jnp.array(cannons(w))[:, None] + jnp.array(AIM)[:, None] * rise[None]  # [cannon, ship]
    busy = (state.shots.alive[None] & (state.shots.kind[None] == jnp.arange(3)[:, None])).any(-1)
    miss = jnp.where(f.alive[None] & ~busy[:, None], jnp.abs(shot_col - ship_col[None]), 1 << 20)
    low = jnp.argmax(jnp.where(f.alive, f.pos[:, 0] * 64 - jnp.arange(f.size), -1 << 20))
    best = jnp.argmin(miss[:, low])
    any_best = jnp.argmin(miss.min(axis=1))
    pick = jnp.where(miss[best, low] <= 1, best, any_best)
    return jnp.where(miss[pick].min() <= 1, pick + 1, 0).astype(jnp.int32)


ATLANTIS = Game(
    name="atlantis", pattern="D", unit="ship destroyed", actions=("NOOP", "LEFT", "CENTER", "RIGHT"),
    descriptions=("hold fire", "fire the left cannon (up and to the right)", "fire the middle cannon (straight up)",
                  "fire the right cannon (up and to the left)"),
    cells=EMPTY + SHIP + SHOT + CITY + CANNON,
    glyphs={SHIP: "enemy ship", SHOT: "your shot", CITY: "the city", CANNON: "your cannon"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(8, 16), max_steps=300, target=15, rate=0.15, period=1, caps=(6, 3, 1)),
    atari=Setting(size=(16, 30), max_steps=10000, target=30, rate=0.3, period=1, caps=(8, 3, 1)),
    draws=(1, 3), events=("You destroyed an enemy ship.",),
    death="a ship comes down to two rows above the city", death_message="A ship bombed the city. Game over.",
)
