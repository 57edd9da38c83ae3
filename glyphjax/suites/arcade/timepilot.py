"""Time Pilot: fly through a wrapping sky and shoot N enemy planes that home in on you (pattern D).

MiniAtari: 12x14 sky, N = 5 (the catalogue's), 200 turns. Atari: 20x20 sky, N = 25 (the
catalogue's W), 10,000 turns. The sky wraps on every side. Your plane never stops: each turn it
flies one cell the way it faces; UP/DOWN/LEFT/RIGHT turn it first. FIRE launches a shot (two at
most on screen) along the facing that flies two cells a turn and leaves at the sky's edge.
Enemy planes enter at a random edge cell more than 3 cells from you with probability `rate` a
turn (at most `caps[0]` at once) and every `period` turns step one cell towards you, the short
way round the sky (`arena.toward` on `flight.torus_delta`). A turn: you turn and fly, shots and
enemies move, a shot meeting an enemy (swept along its path) destroys it (+1/N), an enemy meeting
you is death (-1, the end). The reference's MiniAtari game pays pattern A and its Atari game has
bosses, eras and enemy fire; here both settings pay D and enemies only ram.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.core.grid import border_mask
from glyphjax.suites.arcade import flight, scroll
from glyphjax.suites.arcade.arena import toward
from glyphjax.suites.arcade.asteroids import ACTIONS, BULLET, FIRE, GAP, MOVES
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import best_action, meets, shoot_down

PLANE = "Ж"
EV_KILL = 1


def _rules(s: Setting) -> str:
    return (f"Time Pilot. The sky wraps on every side. Your plane (an arrow showing where it faces) never "
            "stops: each turn it flies one cell the way it faces, and UP/DOWN/LEFT/RIGHT turn it first. "
            f"FIRE shoots {BULLET} (two at most at once) two cells a turn the way you face; shots vanish at "
            f"the edge. Enemy planes {PLANE} appear at the edges and every {s.period} turns fly one cell "
            "towards you (the short way round). A shot that meets an enemy destroys it; an enemy meeting "
            "your plane destroys it.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    return new_state(s, player=jnp.array([h // 2, w // 2], jnp.int32), heading=jnp.array([-1, 0], jnp.int32))


def _fly(state, action, size):
    """-> (your cell, facing) after this turn's turn-and-fly."""
    heading = flight.face(state.heading, action_delta(action, MOVES))
    you = scroll.fly(state.player, heading, 0, jnp.array([size[0] - 1, size[1] - 1]), wrap=True)
    return you, heading


def _home(foes: entities.Pool, you: jax.Array, moves: jax.Array, size) -> jax.Array:
    """int32[N, 2]: the enemies' cells after one step towards `you` on the wrapping sky (when `moves`)."""
    goal = foes.pos + flight.torus_delta(you, foes.pos, size) * -1
    step = jax.vmap(toward)(foes.pos, goal)
    return jnp.where(moves & foes.alive[:, None], (foes.pos + step) % jnp.array(size), foes.pos).astype(jnp.int32)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you, heading = _fly(state, action, s.size)
    shots0 = entities.spawn(state.shots, you, 2 * heading, 0, where=action == FIRE)
    shots1 = entities.advance(shots0, h, w)
    homed = state.foes.replace(pos=_home(state.foes, you, (state.t % params.period) == 0, s.size))
    shots, foes, kills = shoot_down(shots0, shots1, state.foes, homed)
    died = meets(state.foes, foes, state.player, you).any()
    edge = jnp.argwhere(border_mask(h, w), size=2 * (h + w) - 4).astype(jnp.int32)
    far = jnp.abs(flight.torus_delta(you, edge, s.size)).max(-1) > GAP
    foes = scroll.enter(foes, draws.uniform() < params.rate, draws.uniform(), edge, far, (0, 0), 0)
    nxt = state.replace(player=you, heading=heading, shots=shots, foes=foes)
    return nxt, Outcome(gained=kills, died=died, event=jnp.where(kills > 0, EV_KILL, 0))


def _paint(state, s: Setting):
    codes = entities.paint(jnp.zeros(s.size, jnp.int32), state.foes, jnp.array([1], jnp.int32))
    codes = entities.paint(codes, state.shots, jnp.array([2], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(3 + flight.facing_index(state.heading))


def _scripted(key, state, params):
    """Take the action whose outcome `flight.aim_value` rates best against where the enemies
    will be (they home on your new cell): never next to one, FIRE with one ahead, else line up."""
    size = state.field.shape
    moves = (state.t % params.period) == 0

    def value(a):
        you, heading = _fly(state, a, size)
        foes = _home(state.foes, you, moves, size)
        return flight.aim_value(you, heading, foes, state.foes.alive, size, a == FIRE)

    return best_action(value, len(ACTIONS))


TIMEPILOT = Game(
    name="timepilot", pattern="D", unit="enemy plane destroyed", actions=ACTIONS,
    descriptions=("fly on the way you face", "turn up and fly", "turn down and fly", "turn left and fly",
                  "turn right and fly", "shoot the way you face (and fly on)"),
    cells=EMPTY + PLANE + BULLET + flight.FACING_CELLS,
    glyphs={PLANE: "enemy", BULLET: "your shot", **flight.FACING_GLYPHS},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(12, 14), max_steps=200, target=5, rate=0.2, period=3, caps=(4, 2, 1)),
    atari=Setting(size=(20, 20), max_steps=10000, target=25, rate=0.2, period=3, caps=(6, 2, 1)),
    draws=(1, 2), events=("You destroyed an enemy plane.",),
    death="an enemy plane meets you", death_message="An enemy plane rammed you. Game over.",
)
