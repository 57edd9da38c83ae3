"""Venture: raid the treasure of four monster-guarded chambers off a hallway (pattern D).

Atari only: 16x20 map, N = 4 treasures (the catalogue's W: one per chamber), 10,000 turns. Four
walled chambers open onto the hallway through one doorway each; you pass doorways, monsters do
not, so each chamber's monster stays in its chamber and the hallmonster in the hallway
(they wait at a doorway for you). A move turns you that way (even into a wall); FIRE keeps you in
place and shoots an arrow up to REACH cells the way you face (walls stop it, doorways do not):
the first monster on it goes back to its lair and waits there HOLD turns (no points). Stepping on
a treasure takes it (+1/N); the fourth wins. A turn: you move or shoot, take what you step on,
the arrow flies, then the monsters move (one cell every `period` turns, chasing you along the
corridors by straight-line distance and turning at random with probability `rate`:
`maze.ghost_turn`). A monster meeting you (same cell, or passing each other: `maze.contact`)
kills you (-1, the end), a waiting one too. Differences from Atari Venture: one screen (no
zoom into a chamber), shot monsters leave no corpse, hallmonsters never enter a chamber however
long you stay, one level.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from glyphjax.suites.arcade import maze
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state

WALL, TREASURE, DOORWAY, MONSTER = "▓", "$", "⋯", "⊗"
FACING = "⇑⇓⇐⇒"  # you, facing up, down, left, right
ACTIONS = ("NOOP", "FIRE", "UP", "RIGHT", "LEFT", "DOWN")
MOVES = ((0, 0), (0, 0), (-1, 0), (0, 1), (0, -1), (1, 0))
FIRE, REACH, HOLD, DOORWAY_CODE = 1, 4, 20, 5
EV_TREASURE, EV_SHOT = 1, 2

MAP = maze.layout((  # '.' a treasure, '=' a doorway, 'G' a monster's lair
    "####################",
    "#P                G#",
    "# #######  ###=### #",
    "# #  .  #  #  G  # #",
    "# #     #  #     # #",
    "# #  G  #  # .   # #",
    "# #     #  #     # #",
    "# ###=###  ####### #",
    "#                  #",
    "# ###=###  ####### #",
    "# #  .  #  #  G  # #",
    "# #  G  #  #     # #",
    "# #     #  #   . # #",
    "# #######  ###=### #",
    "#                  #",
    "####################",
))
FIELD = np.where(MAP.field == maze.DOOR, DOORWAY_CODE, MAP.field).astype(np.int8)  # doorways: you pass


def _rules(s: Setting) -> str:
    return (f"Venture. Four walled chambers (walls {WALL}) open onto a hallway through doorways "
            f"{DOORWAY}; each holds a treasure {TREASURE} and a monster {MONSTER}, and a hallmonster "
            "roams the hallway. You pass doorways, monsters do not. You are drawn as an arrow "
            f"{FACING} showing the way you face: a move turns you that way (even into a wall). FIRE "
            f"shoots an arrow up to {REACH} cells the way you face (walls stop it): the first monster on "
            f"it goes back to its lair and waits there {HOLD} turns. Monsters chase you one cell every "
            f"{s.period} turns; one that meets you (same cell, or passing each other) kills you, a "
            "waiting one too. Take every treasure to win.")


def _reset(draws, s: Setting, params):
    lairs = jnp.array(MAP.homes, jnp.int32)
    monsters = maze.send_home(new_state(s).foes, jnp.ones(lairs.shape[0], bool), lairs, 0)
    return new_state(s, player=jnp.array(MAP.start, jnp.int32), field=jnp.asarray(FIELD), foes=monsters,
                     heading=jnp.array([0, 1], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    lairs = jnp.array(MAP.homes, jnp.int32)
    delta = action_delta(action, MOVES)
    heading = jnp.where(action >= 2, delta, state.heading)
    you = maze.walk(state.field, state.player, delta)
    field, treasure, _ = maze.eat(state.field, you)
    shot = maze.first_on(state.foes, maze.ray(field, you, heading, REACH), you) & (action == FIRE)
    foes = maze.send_home(state.foes, shot, lairs, HOLD)
    moved = maze.ghost_turn(draws.uniform((foes.size, 2)), foes, jnp.where(field == DOORWAY_CODE, maze.WALL, field),
                            jnp.broadcast_to(you, foes.pos.shape), state.t, params.period, params.rate, None)
    caught, _ = maze.contact(foes, moved, state.player, you)
    event = jnp.where(treasure > 0, EV_TREASURE, jnp.where(shot.any(), EV_SHOT, 0))
    return (state.replace(player=you, field=field, foes=moved, heading=heading),
            Outcome(gained=treasure, died=caught, event=event))


def _paint(state, s: Setting):
    facing = jnp.argmax((jnp.array([[-1, 0], [1, 0], [0, -1], [0, 1]]) == state.heading[None]).all(-1))
    field = jnp.where(state.field == DOORWAY_CODE, 3, state.field)
    return maze.maze_paint(field, state.foes, state.player, 4, 6 + facing)


def _scripted(key, state, params):
    """Shoot when a moving monster stands in the arrow's reach the way you face; turn towards one in line
    at least 3 cells away; otherwise `maze.maze_policy` towards the nearest treasure, away from
    the monsters."""
    field, you, foes = state.field, state.player, state.foes
    active = foes.replace(alive=foes.alive & (foes.timer == 0))
    dirs = jnp.array([[-1, 0], [0, 1], [0, -1], [1, 0]], jnp.int32)  # UP, RIGHT, LEFT, DOWN (actions 2-5)
    seen = jnp.stack([maze.first_on(active, maze.ray(field, you, d, REACH), you) for d in dirs])  # [4, N]
    far = seen.any(-1) & (jnp.where(seen, jnp.abs(foes.pos - you[None]).max(-1)[None], 0).max(-1) >= 3)
    facing = (dirs == state.heading[None]).all(-1)
    step = maze.maze_policy(key, field, you, foes, field == maze.DOT, moves=((0, 0),) + MOVES[2:])
    move = jnp.where(far.any(), 2 + jnp.argmax(far), jnp.where(step == 0, 0, step + 1))
    return jnp.where((seen.any(-1) & facing).any(), FIRE, move).astype(jnp.int32)


VENTURE = Game(
    name="venture", pattern="D", unit="treasure", actions=ACTIONS,
    descriptions=("stay where you are", f"shoot an arrow up to {REACH} cells the way you face",
                  "move one cell up (and face up)", "move one cell right (and face right)",
                  "move one cell left (and face left)", "move one cell down (and face down)"),
    cells=EMPTY + WALL + TREASURE + DOORWAY + MONSTER + EMPTY + FACING,
    glyphs={WALL: "wall", TREASURE: "treasure", DOORWAY: "a chamber doorway (monsters cannot pass it)",
            MONSTER: "a monster (its touch kills)",
            **{g: f"you (facing {d})" for g, d in zip(FACING, ("up", "down", "left", "right"))}},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=None, atari=Setting(size=MAP.size, max_steps=10000, target=4, rate=0.5, period=3, caps=(5, 1, 1)),
    draws=(1, 10), events=("You took a treasure.", "Your arrow sent a monster back to its lair."),
    death="a monster touches you", death_message="A monster got you. Game over.",
)
