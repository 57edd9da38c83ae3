"""Chopper Command: shoot N enemy helicopters before they bomb every truck (pattern A).

MiniAtari: 10x16 field, 4 trucks, N = 5 (the catalogue's), 200 turns. Atari: 16x30 field, 7
trucks, N = 60 (the catalogue's W), 10,000 turns. Your helicopter flies anywhere above the road
(the bottom row, where the trucks stand); UP/DOWN/LEFT/RIGHT move it one cell, LEFT/RIGHT also
turn it that way, FIRE launches a shot (two at most on screen) that flies two cells a turn the
way you face. Trucks stand on the road at columns 2, 6, 10, ... Enemy helicopters enter at a random
side-edge cell above the three bottom rows with
probability `rate` a turn (at most `caps[0]` at once) and patrol sideways one column every
`period` turns, turning round at the sides (`scroll.patrol`); each turn, with probability
`rate`, a random one drops a bomb that falls one row a turn. A turn: you move, shots, bombs and
helicopters move, a shot meeting a helicopter (swept) destroys it (+1/N), a bomb reaching a
truck destroys the truck. A helicopter or bomb meeting you, or the last truck lost, ends the
episode (no penalty). The reference's game scrolls a wider world with a radar; here the field
is the world.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import flight, scroll
from glyphjax.suites.arcade.asteroids import ACTIONS, BULLET, FIRE, MOVES
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import BOMB, best_action, meets, random_alive, shoot_down

HELI, TRUCK = "Ħ", "▭"
EV_KILL, EV_TRUCK = 1, 2


def _rules(s: Setting) -> str:
    return (f"Chopper Command. Trucks {TRUCK} stand on the road (the bottom row). Your helicopter (an arrow "
            "showing where it faces) flies above it: UP/DOWN/LEFT/RIGHT move one cell, LEFT/RIGHT also turn "
            f"you. FIRE shoots {BULLET} (two at most at once) two cells a turn the way you face. Enemy "
            f"helicopters {HELI} fly in from the sides and patrol sideways one column every {s.period} "
            f"turns, turning at the sides, and drop bombs {BOMB} that fall one row a turn; a bomb on a truck "
            "destroys it. A shot that meets a helicopter destroys it. A helicopter or a bomb meeting you, or "
            "losing the last truck, ends the game.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    field = jnp.zeros(s.size, jnp.int8).at[h - 1, 2 + 4 * jnp.arange(w // 4)].set(1)
    return new_state(s, field=field, player=jnp.array([h // 2, w // 2], jnp.int32),
                     heading=jnp.array([0, 1], jnp.int32))


def _fly(state, action, size):
    """-> (your cell above the road, facing) after this turn's move."""
    push = action_delta(action, MOVES)
    you = scroll.fly(state.player, push, 0, jnp.array([size[0] - 2, size[1] - 1]), wrap=False)
    return you, jnp.where(push[1] != 0, push, state.heading).astype(jnp.int32)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you, heading = _fly(state, action, s.size)
    shots0 = entities.spawn(state.shots, you, 2 * heading, 0, where=action == FIRE)
    shots1 = entities.advance(shots0, h, w)
    patrolled = scroll.patrol(state.foes, jnp.zeros(s.size, bool), (state.t % params.period) == 0)
    shots, foes, kills = shoot_down(shots0, shots1, state.foes, patrolled)
    bombs = entities.advance(state.bombs, h, w)
    hit = entities.on_cells(bombs, state.field == 1)
    field = jnp.where(entities.occupancy(entities.kill(bombs, ~hit), h, w) > 0, 0, state.field).astype(jnp.int8)
    died = (meets(state.foes, foes, state.player, you).any() | meets(state.bombs, bombs, state.player, you).any()
            | ~(field == 1).any())
    bombs = entities.kill(bombs, hit)
    dropper, any_alive = random_alive(foes, draws.uniform())
    bombs = entities.spawn(bombs, foes.pos[dropper] + jnp.array([1, 0]), jnp.array([1, 0]), 0,
                           where=(draws.uniform() < params.rate) & any_alive)
    side = draws.uniform() < 0.5
    edge = jnp.stack([jnp.arange(h - 3), jnp.full(h - 3, jnp.where(side, 0, w - 1))], axis=1).astype(jnp.int32)
    vel = jnp.where(side, jnp.array([0, 1]), jnp.array([0, -1]))
    foes = scroll.enter(foes, draws.uniform() < params.rate, draws.uniform(), edge, jnp.ones(h - 3, bool), vel, 0)
    event = jnp.where(kills > 0, EV_KILL, jnp.where(hit.any(), EV_TRUCK, 0))
    nxt = state.replace(player=you, heading=heading, shots=shots, foes=foes, bombs=bombs, field=field)
    return nxt, Outcome(gained=kills, died=died, event=event)


def _paint(state, s: Setting):
    codes = jnp.where(state.field == 1, 2, 0).astype(jnp.int32)
    codes = entities.paint(codes, state.foes, jnp.array([1], jnp.int32))
    codes = entities.paint(codes, state.bombs, jnp.array([3], jnp.int32))
    codes = entities.paint(codes, state.shots, jnp.array([4], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(5 + flight.facing_index(state.heading))


def _scripted(key, state, params):
    """Never end a turn next to a helicopter or under a bomb two rows up or nearer; FIRE at a
    helicopter ahead in your row, else turn towards one in your row, else move to the row of
    the helicopter nearest a truck's column."""
    size = state.field.shape
    f, b = state.foes, state.bombs
    nearest, _ = entities.nearest(f, state.player)
    row = jnp.where(nearest >= 0, f.pos[jnp.maximum(nearest, 0), 0], size[0] // 2)

    def value(a):
        you, heading = _fly(state, a, size)
        near = (f.alive & (jnp.abs(f.pos - you[None]).max(-1) <= 1)).any()
        bombed = (b.alive & (b.pos[:, 1] == you[1]) & (you[0] - b.pos[:, 0] <= 2) & (you[0] >= b.pos[:, 0])).any()
        lined = (f.alive & flight.ahead(you, heading, f.pos, size[1])).any()
        return (-100.0 * (near | bombed) + 4.0 * lined * (1.0 + 1.5 * (a == FIRE)) - jnp.abs(row - you[0])
                - 0.1 * (a == 0))

    return best_action(value, len(ACTIONS))


CHOPPERCOMMAND = Game(
    name="choppercommand", pattern="A", unit="enemy helicopter destroyed", actions=ACTIONS,
    descriptions=("hover where you are", "fly up one cell", "fly down one cell", "fly left one cell and face left",
                  "fly right one cell and face right", "shoot the way you face"),
    cells=EMPTY + HELI + TRUCK + BOMB + BULLET + flight.FACING_CELLS,
    glyphs={HELI: "enemy craft", TRUCK: "a truck (protect it)", BOMB: "bomb", BULLET: "your shot",
            **flight.FACING_GLYPHS},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 16), max_steps=200, target=5, rate=0.1, period=2, caps=(3, 2, 3)),
    atari=Setting(size=(16, 30), max_steps=10000, target=60, rate=0.05, period=2, caps=(5, 2, 4)),
    draws=(1, 5), events=("You destroyed an enemy helicopter.", "A bomb destroyed a truck."),
    death="a helicopter or a bomb meets you, or the last truck is lost",
    death_message="You were hit, or the last truck was lost. Game over.",
)
