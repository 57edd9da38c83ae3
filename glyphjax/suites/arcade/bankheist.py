"""Bank Heist: rob the banks of a city while the police chase you (pattern D).

MiniAtari: 10x14 city, 2 banks open at a time, N = 5 banks robbed, 400 turns, up to 3 police
cars moving every 2nd turn. Atari: 16x20 city, 3 banks at a time, N = 30 (the catalogue's W),
10,000 turns, up to 4 police cars moving every 3rd turn. One police car waits at a city gate at
the start; every robbery calls one more (up to the cap), entering at a gate. A turn: you drive
one cell (walls block; the open side edges are tunnels), robbing a bank you drive into (+1/N;
a new bank opens on a random free street cell), then the police move (`maze.ghost_turn`: chase
you, scatter now and then, a random way with probability `rate`). A police car meeting you
(same cell, or passing each other) is the end (-1). Unlike Atari Bank Heist there is no fuel,
no dynamite and one city.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.core.sampling import random_cell, random_cells
from glyphjax.suites.arcade import maze
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state

WALL, BANK, POLICE, YOU = "▓", "B", "C", "@"
EV_ROB = 1

MINI = maze.layout(maze.mirrored(("#######", "#G     ", "# ## ##", "#      ", "# ## # ", "     # ",
                                  "# ## ##", "#      ")) + ("# ##  P   ## #", "##############"))
_ROWS = maze.mirrored(("##########", "#G        ", "# ## ## ##", "# ## ## ##", "#         ", "# ## ## ##",
                       "# ## ## ##", "          ", "# ## ## ##", "# ## ## ##", "#         ", "# ## ## ##",
                       "# ## ## ##", "#         ", "#         ", "##########"))
ATARI = maze.layout(_ROWS[:13] + (_ROWS[13][:9] + "P" + _ROWS[13][10:],) + _ROWS[14:])
LAYOUTS = {MINI.size: MINI, ATARI.size: ATARI}


def _open_banks(s: Setting) -> int:
    return 2 if s.size == MINI.size else 3


def _rules(s: Setting) -> str:
    return (f"Bank Heist. You {YOU} drive through a city (walls {WALL}) one cell a turn. "
            f"{_open_banks(s)} banks {BANK} are open at a time: driving into one robs it, and a new "
            f"bank opens on a random street. Police cars {POLICE} chase you one cell every "
            f"{s.period} turns; one waits at a city gate at the start and every robbery calls one "
            f"more (at most {s.caps[0]}). A police car that meets you (same cell, or passing each "
            "other) catches you. Leaving by an open side edge brings you in at the opposite edge.")


def _reset(draws, s: Setting, params):
    lay = LAYOUTS[s.size]
    h, w = s.size
    free = jnp.asarray(lay.field == maze.CORRIDOR).at[lay.start].set(False)
    idx, _ = random_cells(draws.uniform((h * w,)), free, _open_banks(s))
    field = jnp.asarray(lay.field).reshape(-1).at[idx].set(maze.DOT).reshape(h, w)
    police = entities.spawn(new_state(s).foes, jnp.array(lay.homes[0], jnp.int32), jnp.zeros(2, jnp.int32),
                            maze.HUNTING)
    return new_state(s, player=jnp.array(lay.start, jnp.int32), field=field, foes=police)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    homes = jnp.array(LAYOUTS[s.size].homes, jnp.int32)
    you = maze.walk(state.field, state.player, action_delta(action, maze.MAZE_MOVES))
    field, robbed, _ = maze.eat(state.field, you)
    police = entities.spawn(state.foes, homes[entities.count(state.foes) % homes.shape[0]], jnp.zeros(2, jnp.int32),
                            maze.HUNTING, where=robbed > 0)
    free = (field == maze.CORRIDOR) & (entities.occupancy(police, h, w) == 0)
    free = free.at[you[0], you[1]].set(False)
    cell, found = random_cell(draws.uniform(), free)
    field = field.reshape(-1).at[cell].set(jnp.where((robbed > 0) & found, maze.DOT, field.reshape(-1)[cell]))
    field = field.reshape(h, w)
    moved = maze.ghost_turn(draws.uniform((police.size, 2)), police, field,
                            maze.ghost_targets(police, you, state.t, s.size), state.t, params.period,
                            params.rate, None)
    caught, _ = maze.contact(police, moved, state.player, you)
    return (state.replace(player=you, field=field, foes=moved),
            Outcome(gained=robbed, died=caught, event=jnp.where(robbed > 0, EV_ROB, 0)))


def _paint(state, s: Setting):
    return maze.maze_paint(state.field, state.foes, state.player, 5, 7)


def _scripted(key, state, params):
    """`maze.maze_policy` towards the nearest bank, away from the police."""
    return maze.maze_policy(key, state.field, state.player, state.foes, state.field == maze.DOT)


BANKHEIST = Game(
    name="bankheist", pattern="D", unit="bank robbed", actions=maze.MAZE_ACTIONS,
    descriptions=maze.MAZE_DESCRIPTIONS,
    cells=EMPTY + WALL + BANK + EMPTY + EMPTY + POLICE + POLICE + YOU,  # codes 3, 4, 6 unused here
    glyphs={WALL: "wall", BANK: "bank", POLICE: "police car", YOU: "you"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=MINI.size, max_steps=400, target=5, rate=0.2, period=2, caps=(3, 1, 1)),
    atari=Setting(size=ATARI.size, max_steps=10000, target=30, rate=0.2, period=3, caps=(4, 1, 1)),
    draws=(320, 13), events=("You robbed a bank.",),
    death="a police car catches you", death_message="The police caught you. Game over.",
)
