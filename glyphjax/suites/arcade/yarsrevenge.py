"""Yars' Revenge: eat through the Qotile's shield, charge the Zorlon cannon and destroy the Qotile,
dodging its Destroyer missile (pattern D).

MiniAtari: 10x14, N = 2 Qotiles destroyed, 300 turns. Atari: 20x20, N = 3 (the reference's W),
10,000 turns. The shield `⬢` fills columns W - 6 and W - 5 of rows 2..H - 3; the Qotile sits in
column W - 3 behind it and moves a row every QMOVE turns, bouncing between rows 2 and H - 3; a
neutral zone `┈` (columns W // 2 - 2 and W // 2 - 1) runs down the middle. UP/DOWN/LEFT/RIGHT
move you a cell and turn you (the Qotile's cell blocks you); moving onto a shield cell eats it:
+1 energy (at most E = H // 3; HUD 'Energy'). FIRE (not from the neutral zone, one shot at a
time): with full energy the Zorlon cannon fires rightwards from your cell (energy back to 0),
otherwise an energy missile flies the way you face; both fly two cells a turn and stop at the
first shield cell on their path, destroying it (`scroll.strike`); the cannon shot meeting the
Qotile destroys it (+1/N) and a new round starts: the shield whole again, the Qotile in the
middle row, no missile. The Destroyer missile appears beside the Qotile with probability `rate`
a turn while there is none, and every `period` turns steps one cell towards you along each axis;
it vanishes on entering the neutral zone. The Destroyer meeting you (same cell or swapped) is
death (-1). Differs from Atari Yars' Revenge and the reference: no Swirl, no cannon that can hit
you, the shield does not rotate; the reference's MiniAtari pays shield blocks shot (milestones)
and fires a beam along one row.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import flight, scroll
from glyphjax.core.types import fence
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import best_action, meets

SHIELD_G, ZONE_G, QOTILE, DESTROYER, MISSILE, CANNON = "⬢", "┈", "♜", "⊘", "*", "━"
ACTIONS = ("NOOP", "UP", "DOWN", "LEFT", "RIGHT", "FIRE")
MOVES = ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1), (0, 0))
FIRE, QMOVE = 5, 3
SHIELD, ZONE = 1, 2  # field codes
EV_QOTILE, EV_EAT = 1, 2


def _rules(s: Setting) -> str:
    h, w = s.size
    return (f"Yars' Revenge. The Qotile {QOTILE} hides behind a shield {SHIELD_G} on the right and moves up and "
            f"down a row every {QMOVE} turns. You (an arrow showing where you face) move a cell with "
            "UP/DOWN/LEFT/RIGHT and turn that way; moving onto a shield cell eats it and gives 1 energy "
            f"(at most {h // 3}, HUD 'Energy'). FIRE (not from the neutral zone {ZONE_G}, one shot at a "
            f"time): with full energy the Zorlon cannon {CANNON} fires rightwards and uses the energy up, "
            f"otherwise an energy missile {MISSILE} flies the way you face; shots fly two cells a turn and "
            "stop at the first shield cell, destroying it. The cannon shot hitting the Qotile destroys it "
            f"and a new round starts with the shield whole again. The Destroyer missile {DESTROYER} leaves "
            f"the Qotile and every {s.period} turns steps a cell towards you (diagonally too); it vanishes "
            "in the neutral zone. The Destroyer meeting you is death.")


def _arena(size):
    """int8[H, W]: the shield and the neutral zone of a new round."""
    h, w = size
    field = jnp.zeros(size, jnp.int8).at[:, w // 2 - 2:w // 2].set(ZONE)
    return field.at[2:h - 2, w - 6:w - 4].set(SHIELD)


def _reset(draws, s: Setting, params):
    h, w = s.size
    return new_state(s, field=_arena(s.size), player=jnp.array([h // 2, 1], jnp.int32),
                     heading=jnp.array([0, 1], jnp.int32), opponent=jnp.array([h // 2, w - 3], jnp.int32),
                     phase=jnp.int32(1))


def _move(state, action, size):
    """-> (your cell, facing): one cell (clipped; the Qotile's cell blocks), turned the way you moved."""
    push = action_delta(action, MOVES)
    nxt = jnp.clip(state.player + push, 0, jnp.array(size) - 1)
    return jnp.where((nxt == state.opponent).all(), state.player, nxt).astype(jnp.int32), flight.face(state.heading, push)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you, heading = _move(state, action, s.size)
    ate = state.field[you[0], you[1]] == SHIELD
    field = state.field.at[you[0], you[1]].set(jnp.where(ate, 0, state.field[you[0], you[1]]).astype(jnp.int8))
    energy = jnp.minimum(state.cooldown + ate, h // 3)
    fire = (action == FIRE) & (field[you[0], you[1]] != ZONE) & ~state.shots.alive.any()
    cannon = fire & (energy >= h // 3)
    shots0 = entities.spawn(state.shots, you, jnp.where(cannon, jnp.array([0, 2]), 2 * heading), cannon.astype(jnp.int32),
                            where=fire)
    shots1, stopped = scroll.strike(shots0, entities.advance(shots0, h, w), field == SHIELD)
    field = jnp.where(entities.occupancy(entities.kill(shots1, ~stopped), h, w) > 0, 0, field).astype(jnp.int8)
    qotile = entities.spawn(entities.empty(1), state.opponent, jnp.zeros(2, jnp.int32), 0)
    struck = entities.hits(shots0, shots1, qotile, qotile)[:, 0]
    killed = fence((struck & (shots1.kind == 1)).any())  # selects the next round's every leaf
    shots = entities.kill(shots1, stopped | struck)
    flip = (state.opponent[0] + state.phase < 2) | (state.opponent[0] + state.phase > h - 3)
    heading_q = jnp.where(flip, -state.phase, state.phase)
    qrow = jnp.where(state.t % QMOVE == 0, state.opponent[0] + heading_q, state.opponent[0])
    d = state.bombs
    step = jnp.where(((state.t % params.period) == 0) & d.alive[:, None], jnp.sign(you[None] - d.pos), 0)
    moved = d.replace(pos=(d.pos + step).astype(jnp.int32))
    moved = entities.kill(moved, entities.on_cells(moved, field == ZONE))
    died = meets(d, moved, state.player, you).any() & ~killed
    moved = entities.spawn(moved, jnp.stack([qrow, w - 4]), jnp.zeros(2, jnp.int32), 0,
                           where=(draws.uniform() < params.rate) & ~moved.alive.any())
    new_round = dict(field=_arena(s.size), opponent=jnp.array([h // 2, w - 3], jnp.int32), bombs=entities.empty(1),
                     shots=entities.empty(shots.size))
    now = dict(field=field, opponent=jnp.stack([qrow, w - 3]).astype(jnp.int32), bombs=moved, shots=shots)
    nxt = state.replace(player=you, heading=heading, cooldown=jnp.where(cannon, 0, energy).astype(jnp.int32),
                        phase=heading_q.astype(jnp.int32),
                        **jax.tree.map(lambda a, b: jnp.where(killed, a, b), new_round, now))
    event = jnp.where(killed, EV_QOTILE, jnp.where(ate, EV_EAT, 0))
    return nxt, Outcome(gained=killed.astype(jnp.int32), died=died, event=event)


def _paint(state, s: Setting):
    codes = state.field.astype(jnp.int32)
    codes = codes.at[state.opponent[0], state.opponent[1]].set(3)
    codes = entities.paint(codes, state.bombs, jnp.array([4], jnp.int32))
    codes = entities.paint(codes, state.shots, jnp.array([5, 6], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(7 + flight.facing_index(state.heading))


def _scripted(key, state, params):
    """Never end a turn next to the Destroyer outside the neutral zone (and rather not two cells
    from it); with the Destroyer within 3 cells, lure it into the neutral zone. Else, short of
    energy: walk to the nearest shield cell; with full energy: eat a gap into the Qotile's row,
    then stand left of the shield in that row and FIRE the cannon."""
    h, w = state.field.shape
    you, q, d = state.player, state.opponent, state.bombs
    shield = state.field == SHIELD
    full = state.cooldown >= h // 3
    rows, cols = jnp.indices((h, w))
    cost = (jnp.abs(rows - you[0]) + jnp.abs(cols - you[1]) + 1000 * (full & (rows != q[0]))
            + jnp.where(shield, 0, 1 << 20))
    k = jnp.argmin(cost)
    nearest = jnp.where(shield.any(), jnp.stack([k // w, k % w]), -100)
    clear = ~(state.field[q[0], w - 6:w - 4] == SHIELD).any()
    target = jnp.where(full & clear, jnp.stack([q[0], w - 7]), nearest)
    chased = (d.alive & (jnp.abs(d.pos - you[None]).max(-1) <= 3)).any()
    target = jnp.where(chased, jnp.stack([you[0], w // 2 - 1]), target)
    ready = full & clear & (you[0] == q[0]) & (you[1] < w - 6) & (state.field[you[0], you[1]] != ZONE)

    def value(a):
        cell, _ = _move(state, a, (h, w))
        gap = jnp.where(d.alive, jnp.abs(d.pos - cell[None]).max(-1), 9).min()
        safe = state.field[cell[0], cell[1]] == ZONE
        return -100.0 * (gap <= 1) * ~safe - 20.0 * (gap == 2) * ~safe + 50.0 * ready * (a == FIRE) - jnp.abs(cell - target).sum() - 0.1 * (a == 0)

    return best_action(value, len(ACTIONS))


YARSREVENGE = Game(
    name="yarsrevenge", pattern="D", unit="Qotile destroyed", actions=ACTIONS,
    descriptions=("stay where you are", "move up one cell and face up", "move down one cell and face down",
                  "move left one cell and face left", "move right one cell and face right",
                  "fire: the Zorlon cannon rightwards with full energy, else an energy missile the way you face"),
    cells=EMPTY + SHIELD_G + ZONE_G + QOTILE + DESTROYER + MISSILE + CANNON + flight.FACING_CELLS,
    glyphs={SHIELD_G: "a shield cell (eat it for energy)", ZONE_G: "the neutral zone (the Destroyer vanishes in it)",
            QOTILE: "the Qotile (hit it with the cannon)", DESTROYER: "the Destroyer missile (it homes on you)",
            MISSILE: "your shot", CANNON: "the Zorlon cannon shot", **flight.FACING_GLYPHS},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 14), max_steps=300, target=2, rate=0.1, period=2, caps=(1, 1, 1)),
    atari=Setting(size=(20, 20), max_steps=10000, target=3, rate=0.07, period=2, caps=(1, 1, 1)),
    draws=(1, 1), events=("The cannon destroyed the Qotile: a new round.", "You ate a shield cell."),
    death="the Destroyer missile meets you", death_message="The Destroyer missile got you. Game over.",
    gauge=("Energy", lambda s: s.cooldown),
)
