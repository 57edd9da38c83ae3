"""Ms. Pac-Man: eat every pellet of the maze without being caught by a ghost (pattern D).

MiniAtari: 10x14 maze, 2 ghosts moving every 2nd turn, N = 63 pellets, 400 turns. Atari: 24x28
maze, 4 ghosts moving every turn, N = 213 pellets (the catalogue's W), 1,000 turns. Both mazes
are drawn here (not the reference's), with a tunnel row and a ghost pen; ghosts leave the pen
one after another (at the Atari setting stepping out above its door). A turn: you move one cell
(walls and the pen door block you; the tunnel wraps), eat the pellet there (+1/N; a power pellet
frightens the ghosts for a while), then the ghosts move (`maze.ghost_turn`: chase you, scatter
to their corners now and then, wander at random with probability `rate`; frightened ones flee
at half speed). Meeting a hunting ghost (same cell
or swapped cells) is death (-1, the end); meeting a frightened one sends it back to the pen.
Unlike the arcade game, eaten ghosts and fruit score nothing (the units are pellets only). The
reference's Atari game orders its actions NOOP, UP, RIGHT, LEFT, DOWN; one set serves both here.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.suites.arcade import maze
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state

WALL, DOT, POWER, DOOR, GHOST, SCARED, YOU = "▓", "·", "◉", "╌", "G", "g", "@"
FRIGHT, HOLD = 16, 6  # frightened turns after a power pellet; turns an eaten ghost stays home
EV_GHOST, EV_POWER, EV_DOT = 1, 2, 3

MINI = maze.layout((
    "##############",
    "#o..........o#",
    "#.##.####.##.#",
    "#............#",
    "#.##.#GG#.##.#",
    " ....####.... ",
    "#.##.####.##.#",
    "#.....P......#",
    "#o.##....##.o#",
    "##############",
))
_LEFT = ("##############", "#............#", "#.####.#####.#", "#o####.#####.#", "#.............",
         "#.####.##.####", "#......##....#", "######.##### #", "######.##     ", "######.## ###=",
         "      .   #  G", "######.## #  G", "######.## ####", "######.##     ", "######.## ####",
         "#............#", "#.####.#####.#", "#o..##....   .", "###.##.##.####", "#......##....#",
         "#.####.#####.#", "#.####.#####.#", "#.............", "##############")
_ROWS = maze.mirrored(_LEFT)
ATARI = maze.layout(_ROWS[:17] + (_ROWS[17][:13] + "P" + _ROWS[17][14:],) + _ROWS[18:])
LAYOUTS = {MINI.size: MINI, ATARI.size: ATARI}


def _rules(s: Setting) -> str:
    ghosts = len(LAYOUTS[s.size].homes)
    pace = "every turn" if s.period == 1 else f"every {s.period} turns"
    return (f"Ms. Pac-Man. You {YOU} walk the corridors of a maze (walls {WALL}) eating pellets "
            f"{DOT} and power pellets {POWER}. {ghosts} ghosts {GHOST} leave their pen (its door "
            f"{DOOR} lets only ghosts through) and chase you, one cell {pace}; now and then they "
            f"scatter to the corners. A power pellet frightens them for {FRIGHT} turns: frightened "
            f"ghosts {SCARED} flee at half speed, and meeting one sends it back to the pen. A ghost "
            "that meets you otherwise (same cell, or passing each other) catches you. Leaving by "
            "an open side edge brings you in at the opposite edge (tunnel).")


def _reset(draws, s: Setting, params):
    lay = LAYOUTS[s.size]
    homes = jnp.array(lay.homes, jnp.int32)
    n = homes.shape[0]
    ghosts = maze.send_home(new_state(s).foes, jnp.ones(n, bool), homes, 1 + 4 * jnp.arange(n, dtype=jnp.int32))
    return new_state(s, player=jnp.array(lay.start, jnp.int32), field=jnp.asarray(lay.field), foes=ghosts)


def _step(draws, state, action, s: Setting, params):
    lay = LAYOUTS[s.size]
    you = maze.walk(state.field, state.player, action_delta(action, maze.MAZE_MOVES))
    field, pellets, powered = maze.eat(state.field, you)
    ghosts, left = maze.frighten(state.foes, state.phase, powered, FRIGHT)
    targets = maze.ghost_targets(ghosts, you, state.t, s.size)
    moved = maze.ghost_turn(draws.uniform((ghosts.size, 2)), ghosts, field, targets, state.t,
                            params.period, params.rate, lay.exit)
    caught, eaten = maze.contact(ghosts, moved, state.player, you)
    moved = maze.send_home(moved, eaten, jnp.array(lay.homes, jnp.int32), HOLD)
    event = jnp.select([eaten.any(), powered, pellets > 0], [EV_GHOST, EV_POWER, EV_DOT], 0)
    return (state.replace(player=you, field=field, foes=moved, phase=left),
            Outcome(gained=pellets, died=caught, event=event))


def _paint(state, s: Setting):
    return maze.maze_paint(state.field, state.foes, state.player, 5, 7)


def _scripted(key, state, params):
    """`maze.maze_policy`: the nearest pellet (or frightened ghost), away from hunting ghosts."""
    goals = (state.field == maze.DOT) | (state.field == maze.POWER)
    return maze.maze_policy(key, state.field, state.player, state.foes, goals)


MSPACMAN = Game(
    name="mspacman", pattern="D", unit="pellet", actions=maze.MAZE_ACTIONS,
    descriptions=maze.MAZE_DESCRIPTIONS,
    cells=EMPTY + WALL + DOT + POWER + DOOR + GHOST + SCARED + YOU,
    glyphs={WALL: "wall", DOT: "pellet", POWER: "power pellet", DOOR: "ghost-pen door (ghosts only)",
            GHOST: "ghost", SCARED: "frightened ghost (meet it to send it home)", YOU: "you"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=MINI.size, max_steps=400, target=MINI.pellets, rate=0.1, period=2, caps=(2, 1, 1)),
    atari=Setting(size=ATARI.size, max_steps=1000, target=ATARI.pellets, rate=0.1, period=1, caps=(4, 1, 1)),
    draws=(1, 8), events=("You sent a frightened ghost home.", "You ate a power pellet: the ghosts are frightened.",
                          "You ate a pellet."),
    death="a ghost catches you", death_message="A ghost caught you. Game over.",
)
