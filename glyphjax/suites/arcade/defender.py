"""Defender: shoot the landers that carry off the humanoids, and bring the humanoids home (pattern A).

MiniAtari: 10x14 planet, 3 humanoids, N = 3 rescues (the catalogue's), 300 turns. Atari: 16x30, 6
humanoids, N = 10 rescues (the reference's W), 10,000 turns. The planet wraps round sideways: row
H - 1 is the ground, the humanoids stand on row H - 2, and you fly in rows 0..H - 3 (LEFT/RIGHT
move a column and turn you, UP/DOWN move a row). FIRE: a laser along your row the way you face,
reaching W // 3 cells round the planet, destroys the first lander on it. Landers enter the top
row at a random column (not within 2 of yours) with probability `rate` a turn (at most `caps[0]`
at once) and move every `period` turns: a hunting lander drops a row and steps a column towards
the nearest humanoid on the ground; over one (row H - 3, its column) it grabs it and climbs a
row a move with the humanoid below it; one that climbs off the top row carries its humanoid away
(lost). A lander shot while carrying drops its humanoid, which falls a row a turn and lands on
the ground: a rescue (+1/N). A lander meeting you (same cell or swapped) ends the episode, and so
does the last humanoid lost (no penalty). Differs from Atari Defender and the reference: the
planet is the field (no wider world, radar or view), no THRUST (the MiniAtari 6-action set at
both settings), no mutants, baiters, bombs or smart bombs; a rescue is a freed humanoid landing
(the reference's MiniAtari has you pick up humanoids and fly them off the top edge).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import flight, scroll
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import best_action, meets

LANDER, HUMAN, GROUND = "⬟", "♟", "═"
ACTIONS = ("NOOP", "LEFT", "RIGHT", "UP", "DOWN", "FIRE")
MOVES = ((0, 0), (0, -1), (0, 1), (-1, 0), (1, 0), (0, 0))
FIRE = 5
HUNT, CARRY = 0, 1  # lander kinds (a carrier's timer is the slot of its humanoid)
ON_GROUND, HELD, FALLING = 0, 1, 2  # humanoid kinds
EV_KILL, EV_RESCUE, EV_LOST = 1, 2, 3


def _rules(s: Setting) -> str:
    h, w = s.size
    return (f"Defender. The planet wraps round sideways; humanoids {HUMAN} stand on row {h - 2} above the "
            f"ground {GROUND}. Your ship (an arrow showing where it faces) flies in rows 0-{h - 3}: LEFT/RIGHT "
            f"move a column and turn you, UP/DOWN move a row. FIRE shoots a laser along your row the way you "
            f"face, {w // 3} cells, destroying the first lander {LANDER} on it. Landers come in at the top and "
            f"move every {s.period} turns: down and towards the nearest humanoid, which they grab from just "
            "above it and carry upwards; one that leaves the top row takes its humanoid away for good. Shooting "
            "a lander that carries a humanoid drops it; it falls a row a turn, and its landing on the ground is "
            "a rescue. A lander meeting you, or losing the last humanoid, ends the game.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    n = s.caps[2]
    cols = (jnp.arange(n) * w // n + jnp.floor(draws.uniform() * (w // n))).astype(jnp.int32) % w
    humans = entities.spawn_many(entities.empty(n), jnp.stack([jnp.full(n, h - 2), cols], 1),
                                 jnp.zeros((n, 2), jnp.int32), jnp.full(n, ON_GROUND), jnp.ones(n, bool))
    return new_state(s, player=jnp.array([h // 2 - 1, w // 2], jnp.int32), heading=jnp.array([0, 1], jnp.int32),
                     bombs=humans, field=jnp.zeros(s.size, jnp.int8).at[h - 1].set(1))


def _fly(state, action, size):
    """-> (your cell: rows clipped to 0..H - 3, columns wrapping; facing, turned by LEFT/RIGHT)."""
    h, w = size
    push = action_delta(action, MOVES)
    you = jnp.stack([jnp.clip(state.player[0] + push[0], 0, h - 3), (state.player[1] + push[1]) % w])
    return you.astype(jnp.int32), jnp.where(push[1] != 0, push, state.heading).astype(jnp.int32)


def _in_laser(you, heading, landers, size):
    """int32[L]: how far along the laser (1..W // 3) each lander is, 0 where it is off the beam."""
    d = flight.torus_delta(you, landers.pos, size)
    along = d[:, 1] * heading[1]
    on = landers.alive & (d[:, 0] == 0) & (along >= 1) & (along <= size[1] // 3)
    return jnp.where(on, along, 0)


def _move_landers(landers, humans, moves, size):
    """One lander move (hunt: down and towards the nearest humanoid on the ground, grabbing it from
    just above; carry: up a row) -> (landers, humans, humanoids carried away)."""
    h, w = size
    ground = humans.alive & (humans.kind == ON_GROUND)
    gap = flight.torus_delta(jnp.zeros(2, jnp.int32), humans.pos[None] - landers.pos[:, None], size)  # [L, N]
    near = jnp.argmin(jnp.where(ground[None], jnp.abs(gap[..., 1]), 1 << 20), axis=1)
    step = jnp.where(ground.any(), jnp.sign(gap[jnp.arange(landers.size), near, 1]), 0)
    hunt = jnp.stack([jnp.minimum(landers.pos[:, 0] + 1, h - 3), (landers.pos[:, 1] + step) % w], 1)
    carry = landers.pos - jnp.array([1, 0])
    go = moves & landers.alive
    pos = jnp.where((go & (landers.kind == HUNT))[:, None], hunt, jnp.where(go[:, None], carry, landers.pos))
    above = (pos[:, None] == humans.pos[None] - jnp.array([1, 0])).all(-1) & ground[None]  # [L, N]
    grab = above & go[:, None] & (landers.kind == HUNT)[:, None]
    grab = grab & (jnp.cumsum(grab, 1) == 1)
    grab = grab & (jnp.cumsum(grab, 0) == 1)
    kind = jnp.where(grab.any(1), CARRY, landers.kind)
    timer = jnp.where(grab.any(1), jnp.argmax(grab, 1), landers.timer)
    gone = landers.alive & (pos[:, 0] < 0)
    lost = (jax.nn.one_hot(timer, humans.size, dtype=bool) & gone[:, None]).any(0)
    landers = landers.replace(pos=pos.astype(jnp.int32), kind=kind, timer=timer.astype(jnp.int32),
                              alive=landers.alive & ~gone)
    humans = entities.kill(humans.replace(kind=jnp.where(grab.any(0), HELD, humans.kind)), lost)
    return landers, humans, lost.sum()


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you, heading = _fly(state, action, s.size)
    humans, landers = state.bombs, state.foes
    along = _in_laser(you, heading, landers, s.size)
    first = jnp.argmin(jnp.where(along > 0, along, 1 << 20))
    killed = (jnp.arange(landers.size) == first) & (along > 0) & (action == FIRE)
    freed = (jax.nn.one_hot(landers.timer, humans.size, dtype=bool) & (killed & (landers.kind == CARRY))[:, None]).any(0)
    humans = humans.replace(kind=jnp.where(freed, FALLING, humans.kind))
    landers = entities.kill(landers, killed)
    moved, humans, lost = _move_landers(landers, humans, (state.t % params.period) == 0, s.size)
    carrier = (moved.alive & (moved.kind == CARRY))[:, None] & (moved.timer[:, None] == jnp.arange(humans.size)[None])
    held = moved.pos[jnp.argmax(carrier, 0)] + jnp.array([1, 0])
    falling = humans.alive & (humans.kind == FALLING)
    pos = jnp.where((humans.kind == HELD)[:, None], held, humans.pos + falling[:, None] * jnp.array([1, 0]))
    landed = falling & (pos[:, 0] >= h - 2)
    humans = humans.replace(pos=jnp.minimum(pos, jnp.array([h - 2, w])).astype(jnp.int32),
                            kind=jnp.where(landed, ON_GROUND, humans.kind))
    died = meets(landers, moved, state.player, you).any() | ~humans.alive.any()
    edge = jnp.stack([jnp.zeros(w, jnp.int32), jnp.arange(w, dtype=jnp.int32)], 1)
    far = jnp.abs(flight.torus_delta(you, edge, s.size)[:, 1]) > 2
    landers = scroll.enter(moved, draws.uniform() < params.rate, draws.uniform(), edge, far, jnp.zeros(2, jnp.int32), HUNT)
    event = jnp.where(landed.any(), EV_RESCUE, jnp.where(lost > 0, EV_LOST, jnp.where(killed.any(), EV_KILL, 0)))
    nxt = state.replace(player=you, heading=heading, foes=landers, bombs=humans)
    return nxt, Outcome(gained=landed.sum().astype(jnp.int32), died=died, event=event)


def _paint(state, s: Setting):
    codes = jnp.where(state.field == 1, 3, 0).astype(jnp.int32)
    codes = entities.paint(codes, state.bombs, jnp.array([2, 2, 2], jnp.int32))
    codes = entities.paint(codes, state.foes, jnp.array([1, 1], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(4 + flight.facing_index(state.heading))


def _scripted(key, state, params):
    """Never end a turn next to a lander (round the planet); FIRE at a carrier on the laser;
    otherwise fly to the row of a carrier (else of the lowest lander), keeping two columns off it
    on the side that faces it."""
    size = state.field.shape
    f = state.foes
    carriers = f.alive & (f.kind == CARRY)
    pick = jnp.where(carriers.any(), carriers, f.alive)
    i = jnp.argmax(jnp.where(pick, f.pos[:, 0] + 100 * carriers, -1))
    target = jnp.where(pick.any(), f.pos[i], jnp.array([size[0] - 3, state.player[1]]))

    def value(a):
        you, heading = _fly(state, a, size)
        gap = jnp.abs(flight.torus_delta(you, f.pos, size)).max(-1)
        near = (f.alive & (gap <= 1)).any()
        lined = ((_in_laser(you, heading, f, size) > 0) & carriers).any()
        d = flight.torus_delta(you, target[None], size)[0]
        facing = jnp.sign(d[1]) == heading[1]
        return (-100.0 * near + 5.0 * lined * (1.0 + 1.5 * (a == FIRE)) - jnp.abs(d[0])
                - 0.5 * jnp.abs(jnp.abs(d[1]) - 2) + 0.5 * facing - 0.1 * (a == 0))

    return best_action(value, len(ACTIONS))


DEFENDER = Game(
    name="defender", pattern="A", unit="humanoid rescued", actions=ACTIONS,
    descriptions=("hover where you are", "fly left one column and face left", "fly right one column and face right",
                  "fly up one row", "fly down one row", "fire the laser the way you face"),
    cells=EMPTY + LANDER + HUMAN + GROUND + flight.FACING_CELLS,
    glyphs={LANDER: "a lander (it abducts humanoids; shoot it)", HUMAN: "a humanoid (rescue it)",
            GROUND: "a floor (solid)", **flight.FACING_GLYPHS},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 14), max_steps=300, target=3, rate=0.1, period=3, caps=(3, 1, 3)),
    atari=Setting(size=(16, 30), max_steps=10000, target=10, rate=0.06, period=3, caps=(5, 1, 6)),
    draws=(1, 2), events=("You destroyed a lander.", "A humanoid landed safely: rescued.",
                          "A lander carried a humanoid away."),
    death="a lander meets you or the last humanoid is carried away",
    death_message="A lander hit you, or the last humanoid was lost. Game over.",
)
