"""Asteroids: shoot N drifting rocks on a wrapping field without flying into one (pattern A).

MiniAtari: 12x14 field, 5 rocks, N = 5 (the catalogue's), 200 turns. Atari: 20x20 field,
waves of 5 large rocks that split when shot, N = 25 (the catalogue's W), 10,000 turns. The field
wraps on every side (ship and rocks leaving one side enter at the other). Your ship flies with
inertia (`flight`): UP/DOWN/LEFT/RIGHT thrust one cell a turn of speed that way (at most one
cell a turn per axis) and turn the ship to face it; an axis not thrust loses its speed on
every second turn, so the ship drifts on a little. FIRE launches a shot (two at most on screen)
along the ship's facing that flies two cells a turn and leaves at the field's edge. Rocks drift
one cell along one of eight directions every `period` turns. A turn: the ship thrusts and
moves, shots and rocks move, a shot that meets a rock (swept along its path) destroys it (+1/N);
at the Atari setting a large rock breaks into two small ones drifting at right angles to it,
and when no rock is left a new wave of 5 appears away from the ship. A rock meeting the ship
ends the episode (no penalty). The reference's Atari game rotates the ship (LEFT/RIGHT, THRUST);
here the MiniAtari action set serves both settings. `ArcadeState.ball_vel` is the ship's velocity.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import flight, scroll
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import best_action, meets, shoot_down

ROCK, PEBBLE, BULLET = "O", "◦", "*"
ACTIONS = ("NOOP", "UP", "DOWN", "LEFT", "RIGHT", "FIRE")
MOVES = ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1), (0, 0))
FIRE, WAVE, GAP, DRAG = 5, 5, 3, 2  # FIRE's index; rocks a wave; their least distance from you; drag period
EV_KILL = 1


def _splits(s: Setting) -> bool:
    """Large rocks break into two small ones where the pool has room for them (Atari)."""
    return s.caps[0] > WAVE


def _rules(s: Setting) -> str:
    split = (f" A large rock {ROCK} breaks into two small rocks {PEBBLE} drifting at right angles to it; "
             "each rock destroyed counts. When no rock is left, a new wave appears.") if _splits(s) else ""
    return (f"Asteroids. The field wraps on every side. Rocks {ROCK} drift one cell (straight or diagonally) "
            f"every {s.period} turns. Your ship (an arrow showing where it faces) flies with inertia: "
            "UP/DOWN/LEFT/RIGHT add one cell a turn of speed that way (at most one per axis) and "
            "turn the ship to face it; speed you stop thrusting is lost one cell every second turn. "
            f"FIRE shoots {BULLET} (two at most at once) two cells a turn the way you face; shots vanish "
            f"at the edge. A shot that meets a rock destroys it.{split} A rock meeting your ship "
            "destroys it.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    you = jnp.array([h // 2, w // 2], jnp.int32)
    rocks = flight.scatter(draws, entities.empty(s.caps[0]), WAVE, s.size, you, GAP, 0)
    return new_state(s, player=you, heading=jnp.array([-1, 0], jnp.int32), foes=rocks)


def _fly(state, action, size):
    """-> (ship cell, velocity, facing) after this turn's thrust (the ship's own flight rule)."""
    h, w = size
    push = action_delta(action, MOVES)
    vel = flight.coast(flight.thrust(state.ball_vel, push, 1), push, (state.t % DRAG) == 0)
    you = scroll.fly(state.player, vel, 0, jnp.array([h - 1, w - 1]), wrap=True)
    return you, vel, flight.face(state.heading, push)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you, vel, heading = _fly(state, action, s.size)
    shots0 = entities.spawn(state.shots, you, 2 * heading, 0, where=action == FIRE)
    shots1 = entities.advance(shots0, h, w)
    moving = jnp.broadcast_to((state.t % params.period) == 0, state.foes.alive.shape)
    drifted = entities.advance(state.foes, h, w, edge="wrap", moving=moving)
    shots, rocks, kills = shoot_down(shots0, shots1, state.foes, drifted)
    died = meets(state.foes, rocks, state.player, you).any()
    if _splits(s):
        broken = drifted.alive & ~rocks.alive & (drifted.kind == 0)
        v = drifted.vel
        kids = jnp.concatenate([jnp.stack([v[:, 1], -v[:, 0]], 1), jnp.stack([-v[:, 1], v[:, 0]], 1)])
        rocks = entities.spawn_many(rocks, jnp.concatenate([drifted.pos] * 2), kids,
                                    jnp.ones(2 * rocks.size, jnp.int32), jnp.concatenate([broken] * 2))
        rocks = flight.scatter(draws, rocks, WAVE, s.size, you, GAP, 0, where=~rocks.alive.any())
    nxt = state.replace(player=you, ball_vel=vel, heading=heading, shots=shots, foes=rocks)
    return nxt, Outcome(gained=kills, died=died, event=jnp.where(kills > 0, EV_KILL, 0))


def _paint(state, s: Setting):
    codes = entities.paint(jnp.zeros(s.size, jnp.int32), state.foes, jnp.array([1, 2], jnp.int32))
    codes = entities.paint(codes, state.shots, jnp.array([3], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(4 + flight.facing_index(state.heading))


def _scripted(key, state, params):
    """Take the action whose outcome `flight.aim_value` rates best against the rocks' next cells
    (never next to a rock, FIRE with a rock ahead, else turn to or close on the nearest's line)."""
    size = state.field.shape
    f = state.foes
    nxt = (f.pos + jnp.where((state.t % params.period) == 0, f.vel, 0)) % jnp.array(size)

    def value(a):
        you, _, heading = _fly(state, a, size)
        return flight.aim_value(you, heading, nxt, f.alive, size, a == FIRE) - 0.1 * (a == 0)

    return best_action(value, len(ACTIONS))


ASTEROIDS = Game(
    name="asteroids", pattern="A", unit="rock destroyed", actions=ACTIONS,
    descriptions=("coast (no thrust)", "thrust up and face up", "thrust down and face down",
                  "thrust left and face left", "thrust right and face right", "shoot the way you face"),
    cells=EMPTY + ROCK + PEBBLE + BULLET + flight.FACING_CELLS,
    glyphs={ROCK: "a rock", PEBBLE: "a small rock (half of a broken one)", BULLET: "your shot",
            **flight.FACING_GLYPHS},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(12, 14), max_steps=200, target=5, period=2, caps=(5, 2, 1)),
    atari=Setting(size=(20, 20), max_steps=10000, target=25, period=2, caps=(15, 2, 1)),
    draws=(20 * 20 + WAVE, 20 * 20 + WAVE), events=("You destroyed a rock.",),
    death="a rock meets your ship", death_message="A rock hit your ship. Game over.",
)
