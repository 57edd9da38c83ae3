"""Tutankham: rob the tomb's rooms of their treasures and leave by the locked exit (pattern D).

Atari only: 16x20 room, N = 8 units (the catalogue's W: 3 treasures and the exit in each room),
10,000 turns. You walk the room's corridors (walls block, `maze.walk`); LEFT and RIGHT also
turn you that way (UP and DOWN keep your facing, as the original's laser fires only sideways).
FIRE sends the laser up to REACH cells the way you face (walls stop it); it destroys the first
creature on it (no points). Stepping on a treasure takes it (+1/N), on the key takes it (no
points); walking into the exit while holding the key takes you through (+1/N) into the next
room: the same room again with its treasures and key back, you at the start, no creatures.
A turn: you move or fire, take what you step on, the laser burns, the creatures move (one cell
every `period` turns, chasing you along the corridors and turning at random with probability
WANDER: `maze.ghost_turn`), then, with probability `rate`, a creature comes out of a random
nest at least 4 cells from you (at most 3 at a time). A creature meeting you (same cell, or
passing each other: `maze.contact`) kills you (-1, the end). Differences from Atari Tutankham:
one room layout repeated, no flash bomb, no time limit, no points for creatures; the
reference's creatures are snakes and mummies, here one kind.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import maze
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state

WALL, TREASURE, KEY, EXIT, NEST, CREATURE = "▓", "$", "⚷", "∩", "⊚", "ℨ"
FACING = "⇐⇒"  # you, facing left / right
ACTIONS = maze.MAZE_ACTIONS + ("FIRE",)
FIRE, REACH, WANDER, CLEAR = 5, 6, 0.25, 4
EV_TREASURE, EV_KEY, EV_EXIT, EV_LASER = 1, 2, 3, 4

ROOM = maze.layout((  # '.' a treasure, 'o' the key, '=' the exit, 'G' a creature nest
    "####################",
    "#P   #  .   #    G #",
    "# ## # #### # ## # #",
    "# #    #    #  #   #",
    "# # #### ## ## # ###",
    "#G  #     #  . #   #",
    "### # ### # #### # #",
    "#   #   # #      # =",
    "# ### # # #### ### #",
    "# #   #        #   #",
    "# # ##### #### # # #",
    "#  .#   #  G # # # #",
    "## ## # ## # #   # #",
    "#     #    #   #  o#",
    "#  G  #  ###   #   #",
    "####################",
))
EXIT_CELL = (7, 19)


def _rules(s: Setting) -> str:
    return (f"Tutankham. You walk a tomb room (walls {WALL}) drawn as an arrow {FACING[0]}{FACING[1]} "
            f"showing the way you face: LEFT and RIGHT turn you, UP and DOWN keep your facing. Step on "
            f"a treasure {TREASURE} to take it and on the key {KEY} to take it; with the key, walking "
            f"into the exit {EXIT} takes you through to the next room (the same room, with its "
            f"treasures and key back). FIRE sends a laser up to {REACH} cells the way you face (walls "
            f"stop it); it destroys the first creature {CREATURE} on it. Creatures come out of the "
            f"nests {NEST} now and then (at most 3 at a time) and chase you one cell every "
            f"{s.period} turns; one that meets you (same cell, or passing each other) kills you.")


def _room(state, s: Setting):
    """The room as at the start: treasures and key back, you at the start facing right, no creatures."""
    return state.replace(field=jnp.asarray(ROOM.field), player=jnp.array(ROOM.start, jnp.int32),
                         foes=entities.empty(s.caps[0]), phase=jnp.int32(0), heading=jnp.array([0, 1], jnp.int32))


def _reset(draws, s: Setting, params):
    return _room(new_state(s), s)


def _step(draws, state, action, s: Setting, params):
    delta = action_delta(action, maze.MAZE_MOVES + ((0, 0),))
    heading = jnp.where((action == 1) | (action == 2), delta, state.heading)
    through = (state.phase == 1) & (state.player + delta == jnp.array(EXIT_CELL)).all()
    you = maze.walk(state.field, state.player, delta)
    field, pellets, key = maze.eat(state.field, you)
    burned = maze.first_on(state.foes, maze.ray(field, you, heading, REACH), you) & (action == FIRE)
    foes = entities.kill(state.foes, burned)
    moved = maze.ghost_turn(draws.uniform((foes.size, 2)), foes, jnp.where(field == maze.DOOR, maze.WALL, field),
                            jnp.broadcast_to(you, foes.pos.shape), state.t, params.period, WANDER, None)
    caught, _ = maze.contact(foes, moved, state.player, you)
    nests = jnp.array(ROOM.homes, jnp.int32)
    nest = nests[draws.randint(0, len(ROOM.homes))]
    go = (draws.uniform() < params.rate) & (jnp.abs(nest - you).max() >= CLEAR)
    moved = entities.spawn(moved, nest, jnp.zeros(2, jnp.int32), maze.HUNTING, where=go)
    nxt = state.replace(player=you, field=field, foes=moved, phase=state.phase | key.astype(jnp.int32), heading=heading)
    nxt = jax.tree.map(lambda a, b: jnp.where(through, a, b), _room(nxt, s), nxt)
    treasure = pellets - key.astype(jnp.int32)
    event = jnp.select([through, treasure > 0, key, burned.any()], [EV_EXIT, EV_TREASURE, EV_KEY, EV_LASER], 0)
    return nxt, Outcome(gained=treasure + through, died=caught & ~through, event=event)


def _paint(state, s: Setting):
    nests = jnp.zeros(s.size, bool).at[tuple(jnp.array(ROOM.homes).T)].set(True)
    base = jnp.where(nests & (state.field == maze.CORRIDOR), 5, state.field)
    return maze.maze_paint(base, state.foes, state.player, 6, 8 + (state.heading[1] > 0))


def _scripted(key, state, params):
    """FIRE when a creature stands in the laser's reach the way you face; turn towards one in
    line at least 3 cells away on the other side; otherwise `maze.maze_policy` towards the
    nearest treasure or the key, and with both gone and the key held to the exit."""
    field, you, foes = state.field, state.player, state.foes
    dirs = jnp.array([[0, -1], [0, 1]], jnp.int32)
    seen = jnp.stack([maze.first_on(foes, maze.ray(field, you, d, REACH), you) for d in dirs])  # [2, N]
    far = seen.any(-1) & (jnp.where(seen, jnp.abs(foes.pos - you[None]).max(-1)[None], 0).max(-1) >= 3)
    facing = (dirs == state.heading[None]).all(-1)
    goals = (field == maze.DOT) | (field == maze.POWER)
    door = jnp.zeros_like(goals).at[EXIT_CELL[0], EXIT_CELL[1] - 1].set(True)
    leave = ~goals.any() & (you == jnp.array([EXIT_CELL[0], EXIT_CELL[1] - 1])).all()
    move = maze.maze_policy(key, field, you, foes, jnp.where(goals.any(), goals, door))
    move = jnp.where(far.any() & ~(seen.any(-1) & facing).any(), 1 + jnp.argmax(far), jnp.where(leave, 2, move))
    return jnp.where((seen.any(-1) & facing).any(), FIRE, move).astype(jnp.int32)


TUTANKHAM = Game(
    name="tutankham", pattern="D", unit="treasure taken or exit passed", actions=ACTIONS,
    descriptions=("stay where you are", "move one cell left (and face left)", "move one cell right (and face right)",
                  "move one cell up", "move one cell down", f"fire the laser up to {REACH} cells the way you face"),
    cells=EMPTY + WALL + TREASURE + KEY + EXIT + NEST + CREATURE + EMPTY + FACING,
    glyphs={WALL: "wall", TREASURE: "treasure", KEY: "the key (opens the exit)",
            EXIT: "the exit (walk into it holding the key)", NEST: "a creature nest",
            CREATURE: "a tomb creature", FACING[0]: "you (facing left)", FACING[1]: "you (facing right)"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=None, atari=Setting(size=ROOM.size, max_steps=10000, target=8, rate=0.05, period=2, caps=(3, 1, 1)),
    draws=(1, 8), events=("You took a treasure.", "You took the key: the exit is open to you.",
                          "You went through the exit into the next room.", "Your laser destroyed a creature."),
    death="a creature catches you", death_message="A creature caught you. Game over.",
)
