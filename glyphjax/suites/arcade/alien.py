"""Alien: crush the aliens' eggs and burn the aliens with your flamethrower (pattern D).

MiniAtari: 10x12 maze without eggs, 4 aliens moving every 3rd turn, N = 4 aliens destroyed, 300
turns. Atari: 20x20 maze lined with eggs, 4 aliens moving every 2nd turn, N = 24 units (eggs
crushed or aliens destroyed, the catalogue's W), 10,000 turns. A move turns you that way (even
into a wall); FIRE keeps you in place and sends a flame up to REACH cells the way you face
(walls stop it) that destroys the first alien on it. Stepping on an egg crushes it; a pulsar
makes the aliens flee for a while (`maze.frighten`) and meeting a fleeing alien destroys it. A
destroyed alien (+1/N) comes back to its home and waits there. A turn: you move or fire, crush
or pick up what you step on, the flame burns, then the aliens move (`maze.ghost_turn`: they
chase you, scatter to the corners now and then and wander with probability `rate`). An alien
meeting you otherwise (same cell, or passing each other) kills you (-1, the end). Unlike the
Atari game there is no bonus fruit, and the flame never runs out. The reference's Atari game
orders its actions NOOP, UP, DOWN, LEFT, RIGHT, FIRE; one set serves both here.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import maze
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state

WALL, EGG, PULSAR, MONSTER, SCARED = "▓", "°", "✦", "Ω", "ω"
FACING = "⇑⇓⇐⇒"  # you, facing up, down, left, right (core.grid direction order)
ACTIONS = maze.MAZE_ACTIONS + ("FIRE",)
FIRE, REACH, FRIGHT, HOLD = 5, 4, 12, 10
EV_BURN, EV_CAUGHT_FLEEING, EV_PULSAR, EV_EGG = 1, 2, 3, 4

MINI = maze.layout(maze.mirrored(("######", "#o    ", "# ## #", "#     ", "# #G G", "    # ",
                                  "# ## #", "#     ", "# ##  ", "######"))[:8]
                   + ("# ##P   ## #", "############"))
_ROWS = maze.mirrored(("##########", "#.........", "#.##.####.", "#o##.####.", "#.........", "#.##.#.###",
                       "#....#....", "####.###.#", "####.#  G ", "    .     ", "####.#  G ", "####.# ###",
                       "#.........", "#.##.####.", "#o.#......", "##.#.#.###", "#....#....", "#.######..",
                       "#.........", "##########"))
ATARI = maze.layout(_ROWS[:18] + (_ROWS[18][:9] + "P" + _ROWS[18][10:],) + _ROWS[19:])
LAYOUTS = {MINI.size: MINI, ATARI.size: ATARI}


def _rules(s: Setting) -> str:
    eggs = f"Eggs {EGG} line the corridors: stepping on one crushes it. " if LAYOUTS[s.size].pellets > 2 else ""
    return (f"Alien. You walk a maze (walls {WALL}) hunted by aliens {MONSTER} that chase you one cell "
            f"every {s.period} turns and now and then scatter to the corners. You are drawn as an "
            f"arrow {FACING[0]}{FACING[1]}{FACING[2]}{FACING[3]} showing the way you face: a move "
            f"turns you that way (even into a wall). FIRE sends a flame up to {REACH} cells the way "
            "you face (walls stop it); it destroys the first alien on it. " + eggs
            + f"A pulsar {PULSAR} makes the aliens flee ({SCARED}) for {FRIGHT} turns; meeting a "
            "fleeing alien destroys it. A destroyed alien returns to its home. An alien that meets "
            "you otherwise (same cell, or passing each other) kills you. Leaving by an open side "
            "edge brings you in at the opposite edge.")


def _reset(draws, s: Setting, params):
    lay = LAYOUTS[s.size]
    homes = jnp.array(lay.homes, jnp.int32)
    aliens = maze.send_home(new_state(s).foes, jnp.ones(homes.shape[0], bool), homes, 0)
    return new_state(s, player=jnp.array(lay.start, jnp.int32), field=jnp.asarray(lay.field), foes=aliens,
                     heading=jnp.array([-1, 0], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    homes = jnp.array(LAYOUTS[s.size].homes, jnp.int32)
    delta = action_delta(action, maze.MAZE_MOVES + ((0, 0),))
    heading = jnp.where((action >= 1) & (action <= 4), delta, state.heading)
    you = maze.walk(state.field, state.player, delta)
    field, pellets, powered = maze.eat(state.field, you)
    aliens, left = maze.frighten(state.foes, state.phase, powered, FRIGHT)
    burned = maze.first_on(aliens, maze.ray(field, you, heading, REACH), you) & (action == FIRE)
    aliens = maze.send_home(aliens, burned, homes, HOLD)
    moved = maze.ghost_turn(draws.uniform((aliens.size, 2)), aliens, field,
                            maze.ghost_targets(aliens, you, state.t, s.size), state.t, params.period,
                            params.rate, None)
    caught, eaten = maze.contact(aliens, moved, state.player, you)
    moved = maze.send_home(moved, eaten, homes, HOLD)
    eggs = pellets - powered.astype(jnp.int32)
    event = jnp.select([burned.any(), eaten.any(), powered, eggs > 0], [EV_BURN, EV_CAUGHT_FLEEING, EV_PULSAR, EV_EGG], 0)
    return (state.replace(player=you, field=field, foes=moved, phase=left, heading=heading),
            Outcome(gained=eggs + burned.sum() + eaten.sum(), died=caught, event=event))


def _paint(state, s: Setting):
    facing = jnp.argmax((jnp.array([[-1, 0], [1, 0], [0, -1], [0, 1]]) == state.heading[None]).all(-1))
    return maze.maze_paint(state.field, state.foes, state.player, 5, 7 + facing)


def _scripted(key, state, params):
    """FIRE when an alien stands in the flame's reach; turn towards one in line at least 3 cells
    away; otherwise `maze.maze_policy` towards the nearest egg or pulsar (towards the aliens
    when none is left), away from hunting aliens."""
    field, you, aliens = state.field, state.player, state.foes
    dirs = jnp.array(maze.MAZE_MOVES[1:], jnp.int32)  # LEFT, RIGHT, UP, DOWN
    seen = jnp.stack([maze.first_on(aliens, maze.ray(field, you, d, REACH), you) for d in dirs])  # [4, N]
    far = seen.any(-1) & (jnp.where(seen, jnp.abs(aliens.pos - you[None]).max(-1)[None], 0).max(-1) >= 3)
    facing = (dirs == state.heading[None]).all(-1)
    goals = (field == maze.DOT) | (field == maze.POWER)
    goals = jnp.where(goals.any(), goals, entities.occupancy(aliens, *field.shape) > 0)
    move = jnp.where(far.any(), 1 + jnp.argmax(far), maze.maze_policy(key, field, you, aliens, goals))
    return jnp.where((seen.any(-1) & facing).any(), FIRE, move).astype(jnp.int32)


ALIEN = Game(
    name="alien", pattern="D", unit="alien destroyed or egg crushed", actions=ACTIONS,
    descriptions=maze.MAZE_DESCRIPTIONS[:1] + tuple(d + " (and face that way)" for d in maze.MAZE_DESCRIPTIONS[1:])
    + (f"burn the first alien up to {REACH} cells the way you face",),
    cells=EMPTY + WALL + EGG + PULSAR + EMPTY + MONSTER + SCARED + FACING,
    glyphs={WALL: "wall", EGG: "alien egg", PULSAR: "pulsar (makes the aliens flee)", MONSTER: "alien",
            SCARED: "fleeing alien (meet it to destroy it)", **{g: f"you (facing {d})" for g, d in
                                                               zip(FACING, ("up", "down", "left", "right"))}},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=MINI.size, max_steps=300, target=4, rate=0.1, period=3, caps=(4, 1, 1)),
    atari=Setting(size=ATARI.size, max_steps=10000, target=24, rate=0.1, period=2, caps=(4, 1, 1)),
    draws=(1, 8), events=("Your flame destroyed an alien.", "You destroyed a fleeing alien.",
                          "You took a pulsar: the aliens flee.", "You crushed an egg."),
    death="an alien catches you", death_message="An alien caught you. Game over.",
)
