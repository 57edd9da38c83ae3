"""Zaxxon: fly through a scrolling fortress, through the gaps in its walls, and shoot N
turrets that fire back (pattern D).

MiniAtari: 10x16 field, N = 6 (the catalogue's), 300 turns. Atari: 24x20 field, N = 20 (the
catalogue's W), 10,000 turns. The fortress scrolls one column left every `period` turns
(`scroll.shift_in`, axis 1). On a scroll turn the entering column is a wall with a gap of
max(3, rows // 3) cells (3 / 8) at a random row when at least 6 columns have passed since the last wall and a draw says so
(probability 0.4), else open; a turret enters an open entering column at a random row with
probability `rate` and rides the fortress (`scroll.ride`). Your ship stays in column 1:
UP/DOWN move it one row, FIRE launches a shot (two at most on screen) that flies right two
cells a turn and stops at a wall (`scroll.strike`). Each turn, with probability `rate`, a random
turret fires a bullet that flies left one cell a turn. A turn: you move, the fortress scrolls,
shots, bullets and turrets move; a shot meeting a turret destroys it (+1/N); a wall on your
cell, or a turret or bullet meeting you, is death (-1, the end). The reference's Atari game has
altitude, fuel and a boss robot; here one 4-action set (the MiniAtari one) serves both.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import scroll
from glyphjax.suites.arcade.asteroids import BULLET
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import best_action, meets, random_alive, shoot_down
from glyphjax.suites.arcade.stargunner import SHIP

WALL, TURRET, SHELL = "▓", "Ŧ", "←"
ACTIONS = ("NOOP", "UP", "DOWN", "FIRE")
MOVES = ((0, 0), (-1, 0), (1, 0), (0, 0))
FIRE, SPACING = 3, 6
EV_KILL = 1


def gap_rows(h: int) -> int:
    """How many cells of a wall column are open (the gap)."""
    return max(3, h // 3)


def _rules(s: Setting) -> str:
    return (f"Zaxxon. The fortress scrolls left one column every {s.period} turns. Its walls {WALL} fill "
            f"a whole column but for a {gap_rows(s.size[0])}-cell gap; turrets {TURRET} ride along and fire bullets "
            f"{SHELL} that fly left one cell a turn. Your ship {SHIP} stays in column 1: UP/DOWN move it one row; "
            f"FIRE shoots {BULLET} (two at most at once) right, two cells a turn, stopped by walls. A shot "
            "that meets a turret destroys it. A wall on your cell, or a turret or bullet meeting you, "
            "destroys your ship.")


def _reset(draws, s: Setting, params):
    return new_state(s, player=jnp.array([s.size[0] // 2, 1], jnp.int32))


def _entering(draws, phase, h: int):
    """-> (entering column int8[h], is a wall, columns since the last wall)."""
    wall = (phase >= SPACING) & (draws.uniform() < 0.4)
    top = draws.randint(0, h - gap_rows(h) + 1)
    rows = jnp.arange(h)
    line = jnp.where(wall & ((rows < top) | (rows >= top + gap_rows(h))), 1, 0).astype(jnp.int8)
    return line, wall, jnp.where(wall, 0, phase + 1).astype(jnp.int32)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you = jnp.clip(state.player + action_delta(action, MOVES), jnp.array([0, 1]), jnp.array([h - 1, 1])).astype(jnp.int32)
    moves = (state.t % params.period) == 0
    line, wall, phase = _entering(draws, state.phase, h)
    field = scroll.shift_in(state.field, line, 1, moves)
    turrets = scroll.ride(state.foes, moves, h, w, axis=1)
    shots0 = entities.spawn(state.shots, you, jnp.array([0, 2], jnp.int32), 0, where=action == FIRE)
    shots1, stopped = scroll.strike(shots0, entities.advance(shots0, h, w), field == 1)
    shots, turrets, kills = shoot_down(shots0, shots1, state.foes, turrets)
    shells = entities.advance(state.bombs, h, w)
    died = ((field[you[0], you[1]] == 1) | meets(state.foes, turrets, state.player, you).any()
            | meets(state.bombs, shells, state.player, you).any())
    gunner, any_alive = random_alive(turrets, draws.uniform())
    shells = entities.spawn(shells, turrets.pos[gunner] + jnp.array([0, -1]), jnp.array([0, -1]), 0,
                            where=(draws.uniform() < params.rate) & any_alive)
    edge = jnp.stack([jnp.arange(h), jnp.full(h, w - 1)], axis=1).astype(jnp.int32)
    turrets = scroll.enter(turrets, moves & ~wall & (draws.uniform() < params.rate), draws.uniform(), edge,
                           jnp.ones(h, bool), (0, 0), 0)
    nxt = state.replace(player=you, field=field, foes=turrets, shots=entities.kill(shots, stopped), bombs=shells,
                        phase=jnp.where(moves, phase, state.phase))
    return nxt, Outcome(gained=kills, died=died, event=jnp.where(kills > 0, EV_KILL, 0))


def _paint(state, s: Setting):
    codes = jnp.where(state.field == 1, 1, 0).astype(jnp.int32)
    codes = entities.paint(codes, state.foes, jnp.array([2], jnp.int32))
    codes = entities.paint(codes, state.bombs, jnp.array([3], jnp.int32))
    codes = entities.paint(codes, state.shots, jnp.array([4], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(5)


def _scripted(key, state, params):
    """Never end a turn where the wall in column 1 or 2 (after a scroll) is, or a bullet or
    turret within two columns ahead in the row; steer to the gap of the nearest wall ahead, else
    to the nearest turret's row, and FIRE when a turret is in your row."""
    h, w = state.field.shape
    solid = state.field == 1
    cols = jnp.arange(w)
    walled = solid.any(0) & (cols >= 1)
    first = jnp.argmax(walled)
    gap = jnp.argmax(~solid[:, first])
    t = state.foes
    near = jnp.argmin(jnp.where(t.alive, t.pos[:, 1], 1 << 20))
    row = jnp.where(walled.any(), gap + 1, jnp.where(t.alive.any(), t.pos[near, 0], h // 2))

    def value(a):
        r = jnp.clip(state.player[0] + jnp.array(MOVES)[a, 0], 0, h - 1)
        hit = solid[r, 1] | solid[r, 2]
        threat = (state.bombs.alive & (state.bombs.pos[:, 0] == r) & (state.bombs.pos[:, 1] <= 3)).any()
        threat |= (t.alive & (t.pos[:, 0] == r) & (t.pos[:, 1] <= 3)).any()
        lined = (t.alive & (t.pos[:, 0] == r)).any()
        return -100.0 * (hit | threat) + 4.0 * lined * (1.0 + 1.5 * (a == FIRE)) - jnp.abs(row - r) - 0.1 * (a == 0)

    return best_action(value, len(ACTIONS))


ZAXXON = Game(
    name="zaxxon", pattern="D", unit="turret destroyed", actions=ACTIONS,
    descriptions=("stay in your row", "rise one row", "dive one row", "shoot right along your row"),
    cells=EMPTY + WALL + TURRET + SHELL + BULLET + SHIP,
    glyphs={WALL: "wall", TURRET: "turret", SHELL: "enemy bullet", BULLET: "your shot",
            SHIP: "your ship (facing right)"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 16), max_steps=300, target=6, rate=0.15, period=2, caps=(4, 2, 3)),
    atari=Setting(size=(24, 20), max_steps=10000, target=20, rate=0.15, period=2, caps=(6, 2, 4)),
    draws=(1, 7), events=("You destroyed a turret.",),
    death="a wall, a turret or a bullet meets your ship", death_message="Your ship crashed or was shot. Game over.",
)
