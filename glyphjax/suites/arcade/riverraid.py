"""River Raid: fly up a winding river, shoot N enemy craft, do not run out of fuel (pattern D).

MiniAtari: 16x12 field, N = 8, 300 turns, 40 fuel. Atari: 24x20 field, N = 31 (the catalogue's
W), 10,000 turns, 60 fuel. Your jet flies in the second row from the bottom; the river scrolls
down one row every `period` turns, its banks wandering (`scroll.river_line`, from the step key).
On a scroll turn a new object enters the top row's water with probability `rate`: a fuel depot
one time in three, else an enemy craft that patrols sideways one column every second turn,
turning round at the banks. A turn: the jet moves one column or fires (a shot climbing two rows
a turn, one on screen at a time), enemies patrol, the river and everything on it scroll, shots
fly; a shot meeting an enemy destroys it (+1/N), one meeting a depot destroys the depot (no
points). Flying over a depot fills the tank; each row scrolled burns one unit. A bank under the jet, an
enemy meeting it or an empty tank is death (-1, the end). The reference's Atari game counts
depots taken as units too and has UP/DOWN (speed); here one 4-action set and one unit (enemies
destroyed) serve both settings, and the scroll speed is fixed.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import scroll
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import CANNON_FIRE, CANNON_MOVES, SHOT, fire, meets, shoot_down

JET, BANK, ENEMY, DEPOT = "A", "▞", "Ħ", "F"
WATER, LAND = 0, 1  # field codes
KIND_ENEMY, KIND_DEPOT = 0, 1
EV_KILL, EV_FUEL = 1, 2


def fuel_cap(w: int) -> int:
    """The tank of a field `w` columns wide (MiniAtari 40, Atari 60 units: rows of river)."""
    return 40 if w < 16 else 60


def min_width(s: Setting) -> int:
    return 4 if s.size[1] < 16 else 6


def _rules(s: Setting) -> str:
    return (f"River Raid. Your jet {JET} flies up a river between banks {BANK}; the river scrolls "
            f"down one row every {s.period} turns. LEFT/RIGHT move the jet one column; FIRE "
            f"launches a shot {SHOT} (one at a time) that climbs two rows a turn. Enemy craft {ENEMY} "
            f"patrol the river sideways; fuel depots {DEPOT} float on it. Shooting an enemy "
            f"scores; shooting a depot only destroys it. Flying over a depot fills your tank "
            f"({fuel_cap(s.size[1])} units); every row the river scrolls burns one. A bank under your jet, an enemy meeting "
            "it or an empty tank kills you.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    field = scroll.river(draws.uniform((h - 1, 2)), w, LAND, WATER, min_width(s), (2, w - 2))
    return new_state(s, field=field, player=jnp.array([h - 2, w // 2], jnp.int32), phase=jnp.int32(fuel_cap(w)))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you = jnp.clip(state.player + action_delta(action, CANNON_MOVES), 0, w - 1).at[0].set(h - 2)
    shots0 = fire(state.shots, you, (-2, 0), action == CANNON_FIRE)
    shots1 = entities.advance(shots0, h, w)
    rolls = (state.t % params.period) == 0
    foes = _drift(state, params)
    field = scroll.shift_in(state.field, scroll.river_line(state.field[0], draws.uniform((2,)), LAND, WATER,
                                                          min_width(s)), 0, rolls)
    shots, shot_foes, _ = shoot_down(shots0, shots1, state.foes, foes)
    destroyed = foes.alive & ~shot_foes.alive
    kills = (destroyed & (foes.kind == KIND_ENEMY)).sum().astype(jnp.int32)
    met = meets(state.foes, shot_foes, state.player, you)
    took = met & (shot_foes.kind == KIND_DEPOT)
    fuel, _ = scroll.burn(state.phase, rolls.astype(jnp.int32))
    fuel = jnp.where(took.any(), fuel_cap(w), fuel)
    kind = jnp.where(draws.uniform() < 1 / 3, KIND_DEPOT, KIND_ENEMY)
    side = jnp.where(draws.uniform() < 0.5, 1, -1)
    top = jnp.stack([jnp.zeros(w, jnp.int32), jnp.arange(w)], axis=1)
    foes = scroll.enter(entities.kill(shot_foes, took), rolls & (draws.uniform() < params.rate), draws.uniform(),
                        top, field[0] == WATER, jnp.stack([0, side * (kind == KIND_ENEMY)]), kind)
    died = (field[you[0], you[1]] == LAND) | (met & (shot_foes.kind == KIND_ENEMY)).any() | (fuel == 0)
    event = jnp.where(kills > 0, EV_KILL, jnp.where(took.any(), EV_FUEL, 0))
    return (state.replace(player=you.astype(jnp.int32), shots=shots, foes=foes, field=field, phase=fuel),
            Outcome(gained=kills, died=died, event=event))


def _paint(state, s: Setting):
    codes = state.field.astype(jnp.int32)
    codes = entities.paint(codes, state.foes, jnp.array([2, 3], jnp.int32))
    codes = entities.paint(codes, state.shots, jnp.array([4], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(5)


def _drift(state, params) -> entities.Pool:
    """The foes as they will stand after this turn's patrol and scroll (before shots and spawns)."""
    h, w = state.field.shape
    f = state.foes
    foes = scroll.patrol(f, state.field == LAND, (state.t % 2 == 0) & (f.kind == KIND_ENEMY))
    return scroll.ride(foes, (state.t % params.period) == 0, h, w, axis=0)


def _scripted(key, state, params):
    """Steer towards a target column (the nearest depot when the tank is under 2/3, else the
    lowest enemy above) and FIRE when the first craft straight above is an enemy; never into a cell that is bank
    now or in the row above, or that an enemy holds after this turn or in the row above."""
    h, w = state.field.shape
    you = state.player
    cols = jnp.clip(you[1] + jnp.array([0, -1, 1, 0]), 0, w - 1)
    bank = (state.field[you[0], cols] == LAND) | (state.field[you[0] - 1, cols] == LAND)
    f = _drift(state, params)
    enemy = f.alive & (f.kind == KIND_ENEMY)
    rows_hit = (f.pos[None, :, 0] >= you[0] - 1) & (f.pos[None, :, 0] <= you[0])
    unsafe = bank | (enemy[None] & rows_hit & (f.pos[None, :, 1] == cols[:, None])).any(-1)
    low = state.phase * 3 < 2 * fuel_cap(w)
    ahead = f.alive & (f.kind == jnp.where(low, KIND_DEPOT, KIND_ENEMY)) & (f.pos[:, 0] <= you[0])
    gap = jnp.where(ahead, jnp.abs(f.pos[:, 1] - you[1]) + (you[0] - f.pos[:, 0]), 1 << 20)
    lo, hi = scroll.banks_of(state.field[you[0] - 1], LAND)
    aim = jnp.where(ahead.any(), f.pos[jnp.argmin(gap), 1], (lo + hi) // 2)
    above = f.alive & (f.pos[:, 1] == you[1]) & (f.pos[:, 0] < you[0])
    under = above.any() & (f.kind[jnp.argmax(jnp.where(above, f.pos[:, 0], -1))] == KIND_ENEMY)
    want = jnp.where(aim < you[1], 1, jnp.where(aim > you[1], 2, 0))
    want = jnp.where(under & ~state.shots.alive.any(), CANNON_FIRE, want)
    score = -100.0 * unsafe - 1.0 * (jnp.arange(4) != want) - 0.5 * (jnp.arange(4) != 0)
    return jnp.argmax(score).astype(jnp.int32)


RIVERRAID = Game(
    name="riverraid", pattern="D", unit="enemy destroyed", actions=("NOOP", "LEFT", "RIGHT", "FIRE"),
    descriptions=("fly straight on", "move the jet one column left", "move the jet one column right",
                  "fire a shot upwards"),
    cells=EMPTY + BANK + ENEMY + DEPOT + SHOT + JET,
    glyphs={JET: "your jet", BANK: "river bank", ENEMY: "enemy craft", DEPOT: "fuel depot", SHOT: "your shot"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(16, 12), max_steps=300, target=8, rate=0.35, period=2, caps=(12, 1, 1)),
    atari=Setting(size=(24, 20), max_steps=10000, target=31, rate=0.35, period=2, caps=(20, 1, 1)),
    draws=(46, 6), events=("You destroyed an enemy craft.", "You refuelled."),
    death="your jet hits a bank or an enemy or runs out of fuel",
    death_message="Your jet crashed or ran dry. Game over.", gauge=("Fuel", lambda st: st.phase),
)
