"""Amidar: paint the track around every box of a lattice without being caught (pattern D).

MiniAtari: 10x12 field, a lattice of 2x3 boxes, 2 warriors moving every 3rd turn, N = 6 boxes,
300 turns. Atari: 16x20, 4x4 boxes, 4 warriors moving every 2nd turn, N = 16 boxes, 10,000
turns. You walk only on the track (the lattice's rows and columns); a track cell you step on is
painted (`maze.eat`: an unpainted cell is a pellet). When every track cell around a box is
painted the box fills in (+1/N). Warriors move along the track as `maze.ghost_turn`'s
ghosts (chase you, scatter now and then, a random way with probability `rate`, 1/2 here); one
meeting you (same cell, or passing each other) kills you (-1, the end). Unlike Atari Amidar the
units are boxes, not painted segments (the catalogue's W = 100 segments does not apply), there
is no jump and the warriors do not follow the arcade's fixed "Amidar movement".
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from glyphjax.suites.arcade import maze
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state

TRACK, PAINTED, FILLED, WARRIOR, YOU = "∙", "▪", "▒", "V", "@"
EV_BOX, EV_PAINT = 1, 2
LATTICES = {(10, 12): ((1, 4, 8), (1, 4, 7, 10)), (16, 20): ((1, 4, 7, 10, 14), (1, 5, 9, 13, 18))}


@functools.cache
def lattice(size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """-> (field: int8[H, W] walls with unpainted track, borders: bool[B, H, W] the track around
    each box, insides: bool[B, H, W] its inner cells, warrior homes: the track's top corners and
    middle)."""
    h, w = size
    rows, cols = LATTICES[size]
    field = np.full(size, maze.WALL, np.int8)
    for r in rows:
        field[r, cols[0]:cols[-1] + 1] = maze.DOT
    for c in cols:
        field[rows[0]:rows[-1] + 1, c] = maze.DOT
    borders, insides = [], []
    for r0, r1 in zip(rows, rows[1:]):
        for c0, c1 in zip(cols, cols[1:]):
            box = np.zeros(size, bool)
            box[r0:r1 + 1, c0:c1 + 1] = True
            inside = np.zeros(size, bool)
            inside[r0 + 1:r1, c0 + 1:c1] = True
            borders.append(box & ~inside)
            insides.append(inside)
    homes = [(rows[0], cols[0]), (rows[0], cols[-1]), (rows[1], cols[0]), (rows[1], cols[-1])]
    return field, np.stack(borders), np.stack(insides), homes


def _start(s: Setting) -> tuple[int, int]:
    rows, cols = LATTICES[s.size]
    return rows[-1], cols[len(cols) // 2]


def _rules(s: Setting) -> str:
    return (f"Amidar. You {YOU} walk the track ({TRACK} unpainted, {PAINTED} painted) of a lattice "
            f"of boxes, one cell a turn; every track cell you step on is painted. When all the "
            f"track around a box is painted the box fills in {FILLED}. Warriors {WARRIOR} patrol "
            f"the track, one cell every {s.period} turns, heading towards you (or a corner now and then) "
            f"but taking a random way with probability {s.rate:g} at every step; one that meets you "
            "(same cell, or passing each other) kills you.")


def _reset(draws, s: Setting, params):
    field, _, _, homes = lattice(s.size)
    field, start = field.copy(), _start(s)
    field[start] = maze.CORRIDOR
    n = s.caps[0]
    warriors = maze.send_home(new_state(s).foes, jnp.ones(n, bool), jnp.array(homes[:n], jnp.int32), 0)
    return new_state(s, player=jnp.array(start, jnp.int32), field=jnp.asarray(field), foes=warriors)


def _filled(field: jnp.ndarray, s: Setting) -> jnp.ndarray:
    """bool[B]: boxes whose surrounding track is all painted."""
    borders = jnp.asarray(lattice(s.size)[1])
    return ~(borders & (field == maze.DOT)[None]).any((1, 2))


def _step(draws, state, action, s: Setting, params):
    you = maze.walk(state.field, state.player, action_delta(action, maze.MAZE_MOVES))
    field, painted, _ = maze.eat(state.field, you)
    boxes = (_filled(field, s) & ~_filled(state.field, s)).sum().astype(jnp.int32)
    moved = maze.ghost_turn(draws.uniform((state.foes.size, 2)), state.foes, field,
                            maze.ghost_targets(state.foes, you, state.t, s.size), state.t, params.period,
                            params.rate, None)
    caught, _ = maze.contact(state.foes, moved, state.player, you)
    event = jnp.where(boxes > 0, EV_BOX, jnp.where(painted > 0, EV_PAINT, 0))
    return (state.replace(player=you, field=field, foes=moved),
            Outcome(gained=boxes, died=caught, event=event))


def _paint(state, s: Setting):
    insides = jnp.asarray(lattice(s.size)[2])
    full = (insides & _filled(state.field, s)[:, None, None]).any(0)
    codes = jnp.select([state.field == maze.DOT, state.field == maze.CORRIDOR, full], [1, 2, 3], 0)
    return maze.maze_paint(codes, state.foes, state.player, 4, 6)


def _scripted(key, state, params):
    """`maze.maze_policy` towards the nearest unpainted track cell, away from the warriors."""
    return maze.maze_policy(key, state.field, state.player, state.foes, state.field == maze.DOT)


AMIDAR = Game(
    name="amidar", pattern="D", unit="box filled", actions=maze.MAZE_ACTIONS,
    descriptions=maze.MAZE_DESCRIPTIONS,
    cells=EMPTY + TRACK + PAINTED + FILLED + WARRIOR + WARRIOR + YOU,  # code 5: a frightened warrior (none)
    glyphs={TRACK: "unpainted track", PAINTED: "painted track", FILLED: "filled box", WARRIOR: "warrior",
            YOU: "you"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 12), max_steps=300, target=6, rate=0.5, period=3, caps=(2, 1, 1)),
    atari=Setting(size=(16, 20), max_steps=10000, target=16, rate=0.5, period=2, caps=(4, 1, 1)),
    draws=(1, 8), events=("A box filled in.", "You painted a track cell."),
    death="a warrior catches you", death_message="A warrior caught you. Game over.",
)
