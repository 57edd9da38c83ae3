"""Seaquest: rescue divers under water and surface for air, dodging or torpedoing sharks (pattern D).

MiniAtari: 12x14 sea, N = 4 divers, 400 turns. Atari: 20x20 sea, N = 7 (the catalogue's W),
10,000 turns. Row 0 is the surface; your submarine moves one cell a turn in four directions and
faces the way it last moved sideways. Sharks and divers enter at a random underwater row
(1 .. H-1) at the left or right edge with probability `rate` a turn (a third of them divers)
and swim across one column every `period` turns, leaving at the far edge. FIRE launches a
torpedo (one at a time) from the submarine that runs two columns a turn the way you face and
destroys the first shark on its path (no points). A turn: you move or fire, torpedoes and
swimmers move, torpedoes hit sharks, then you meet what shares (or swapped) your cell: a diver
is rescued (+1/N), a shark kills you (-1). Oxygen (the HUD gauge, 3 x H turns) falls by one
each turn you end under water and refills on the surface; running out kills you. Unlike Atari,
a diver counts when you touch it (not when you surface with six) and sharks score nothing.
The catalogue's mini set has no FIRE and its Atari set adds SURFACE; here one 6-action set
(NOOP, LEFT, RIGHT, UP, DOWN, FIRE) serves both settings.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import meets, shoot_down, slide

SUB_LEFT, SUB_RIGHT, SHARK_LEFT, SHARK_RIGHT, DIVER, TORPEDO, SURFACE = "⇐", "⇒", "◀", "▶", "δ", "—", "≋"
ACTIONS = ("NOOP", "LEFT", "RIGHT", "UP", "DOWN", "FIRE")
_MOVES = ((0, 0), (0, -1), (0, 1), (-1, 0), (1, 0), (0, 0))
FIRE = 5
SHARK, DIVER_KIND = 0, 1  # foe kinds
EV_RESCUE = 1


def oxygen_cap(s: Setting) -> int:
    """Turns of air a full tank holds: three times the sea's depth."""
    return 3 * s.size[0]


def _rules(s: Setting) -> str:
    return (f"Seaquest. Row 0 is the surface {SURFACE}. Your submarine ({SUB_LEFT} / {SUB_RIGHT}, the way "
            f"it faces) moves one cell a turn. Sharks ({SHARK_LEFT} / {SHARK_RIGHT}, the way they swim) and "
            f"divers {DIVER} enter under water at the left or right edge and swim across one column every "
            f"{s.period} turns. FIRE launches a torpedo {TORPEDO} (one at a time) that runs two columns a "
            "turn the way you face and destroys the first shark it meets. Touching a diver rescues it; "
            "touching a shark kills you. Oxygen (the HUD gauge) falls by one each turn you end under "
            f"water and refills to {oxygen_cap(s)} on the surface; running out of oxygen kills you.")


def _reset(draws, s: Setting, params):
    return new_state(s, player=jnp.array([0, s.size[1] // 2], jnp.int32), heading=jnp.array([0, 1], jnp.int32),
                     phase=jnp.int32(oxygen_cap(s)))


def _enter(draws, foes: entities.Pool, s: Setting, rate, you) -> entities.Pool:
    """With probability `rate` a swimmer enters at a random underwater row at a random edge
    (never on your cell), a diver one time in three. Takes four numbers."""
    h, w = s.size
    go, row, left, diver = draws.uniform() < rate, draws.randint(1, h), draws.bernoulli(0.5), draws.uniform() < 1 / 3
    cell = jnp.stack([row, jnp.where(left, 0, w - 1)]).astype(jnp.int32)
    vel = jnp.stack([0, jnp.where(left, 1, -1)]).astype(jnp.int32)
    return entities.spawn(foes, cell, vel, jnp.where(diver, DIVER_KIND, SHARK), where=go & (cell != you).any())


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you = slide(state.player, action_delta(action, _MOVES), jnp.array([0, 0]), jnp.array([h - 1, w - 1]))
    heading = jnp.stack([0, jnp.where(action == 1, -1, jnp.where(action == 2, 1, state.heading[1]))])
    shots0 = entities.spawn(state.shots, you, 2 * heading, 0, where=(action == FIRE) & (you[0] > 0))
    shots1 = entities.advance(shots0, h, w)
    moving = (state.t % params.period) == 0
    foes1 = entities.advance(state.foes, h, w, moving=jnp.broadcast_to(moving, state.foes.alive.shape))
    sharks = lambda p: p.replace(alive=p.alive & (p.kind == SHARK))
    shots, sharks_left, _ = shoot_down(shots0, shots1, sharks(state.foes), sharks(foes1))
    foes1 = foes1.replace(alive=foes1.alive & ((foes1.kind != SHARK) | sharks_left.alive))
    met = meets(state.foes, foes1, state.player, you)
    rescued = met & (foes1.kind == DIVER_KIND)
    bitten = (met & (foes1.kind == SHARK)).any()
    oxygen = jnp.where(you[0] == 0, oxygen_cap(s), state.phase - 1).astype(jnp.int32)
    foes = _enter(draws, entities.kill(foes1, rescued), s, params.rate, you)
    nxt = state.replace(player=you, heading=heading.astype(jnp.int32), shots=shots, foes=foes,
                        phase=jnp.maximum(oxygen, 0))
    gained = rescued.sum().astype(jnp.int32)
    return nxt, Outcome(gained=gained, died=bitten | (oxygen <= 0), event=jnp.where(gained > 0, EV_RESCUE, 0))


def _paint(state, s: Setting):
    codes = jnp.zeros(s.size, jnp.int32).at[0].set(7)
    # each slot drawn with its own code: diver, or a shark by the way it swims
    kind_code = jnp.where(state.foes.kind == DIVER_KIND, 5, jnp.where(state.foes.vel[:, 1] < 0, 3, 4))
    codes = entities.paint(codes, state.foes.replace(kind=jnp.arange(state.foes.size)), kind_code)
    codes = entities.paint(codes, state.shots, jnp.array([6], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(jnp.where(state.heading[1] < 0, 1, 2))


def _scripted(key, state, params):
    """Surface when the air left is barely enough to rise; torpedo a shark coming along your row;
    else swim to the nearest diver (row first); never onto a cell a shark holds or enters next."""
    you, foes = state.player, state.foes
    sharks = foes.alive & (foes.kind == SHARK)
    ahead = foes.pos[:, 1] - you[1]
    coming = (jnp.abs(ahead) <= 4) & (ahead * foes.vel[:, 1] < 0)
    near = sharks & (foes.pos[:, 0] == you[0]) & coming
    faced = (near & (jnp.sign(ahead) == state.heading[1])).any()
    divers = foes.replace(alive=foes.alive & (foes.kind == DIVER_KIND))
    i, _ = entities.nearest(divers, you)
    goal = jnp.where(i >= 0, foes.pos[jnp.maximum(i, 0)], jnp.array([state.field.shape[0] // 2, you[1]]))
    walk = jnp.where(goal[0] < you[0], 3, jnp.where(goal[0] > you[0], 4,
                     jnp.where(goal[1] < you[1], 1, jnp.where(goal[1] > you[1], 2, 0))))
    want = jnp.where(state.phase <= you[0] + 2, 3, jnp.where(faced, FIRE, walk))
    dest = you[None] + jnp.array(_MOVES[:5], jnp.int32)  # where NOOP, LEFT, RIGHT, UP, DOWN end
    taken = (foes.pos[None] == dest[:, None]).all(-1) | ((foes.pos + foes.vel)[None] == dest[:, None]).all(-1)
    unsafe = (taken & sharks[None]).any(-1)
    safe = jnp.argmax(~unsafe[jnp.array([0, 3, 4, 1, 2])])
    fallback = jnp.array([0, 3, 4, 1, 2])[safe]
    return jnp.where(unsafe[jnp.minimum(want, 4)] & (want != FIRE), fallback, want).astype(jnp.int32)


SEAQUEST = Game(
    name="seaquest", pattern="D", unit="diver rescued", actions=ACTIONS,
    descriptions=("stay where you are", "move one cell left (and face left)", "move one cell right (and face right)",
                  "move one cell up", "move one cell down", "launch a torpedo the way you face"),
    cells=EMPTY + SUB_LEFT + SUB_RIGHT + SHARK_LEFT + SHARK_RIGHT + DIVER + TORPEDO + SURFACE,
    glyphs={SUB_LEFT: "you (facing left)", SUB_RIGHT: "you (facing right)", SHARK_LEFT: "a shark swimming left",
            SHARK_RIGHT: "a shark swimming right", DIVER: "a diver (touch it to rescue it)",
            TORPEDO: "your torpedo", SURFACE: "the surface (refills your oxygen)"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(12, 14), max_steps=400, target=4, rate=0.3, period=2, caps=(6, 1, 1)),
    atari=Setting(size=(20, 20), max_steps=10000, target=7, rate=0.3, period=2, caps=(10, 1, 1)),
    draws=(1, 4), events=("You rescued a diver.",),
    death="a shark touches you or your oxygen runs out",
    death_message="A shark got you or your air ran out. Game over.",
    gauge=("Oxygen", lambda state: state.phase),
)
