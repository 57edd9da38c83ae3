"""Kangaroo: climb the floors of the tower to the joey under falling coconuts (pattern D).

MiniAtari: 14x12 field, N = 3 floors, 300 turns (the reference's 3 floors). Atari: 20x20,
N = 5 floors, 1,000 turns (the catalogue's horizon; the reference's Atari game pays fruit and
monkeys, 20 units, which ours does not have). Floors are every third row from the bottom; one
ladder (`LADDER`) joins each floor to the next, on alternating halves of the tower at a column
drawn at reset. You walk, jump (UP off a ladder: the 7-turn arc of core.platform; floors are
solid, so a jump never reaches the next floor) and climb (UP / DOWN on a ladder) under
`arena.climb_step`.
Each floor reached for the first time pays +1/N; the top floor, where the joey waits, is the
win. With probability `rate` a turn a coconut drops from a random column of the top row and
falls one row a turn through everything; one meeting you is death (-1, the end). No monkeys, no
punching, no bonus fruit; one 5-action set (no FIRE) serves both settings.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade.arena import YOU, climb_step
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.physics import meets

FLOOR, LADDER, JOEY, COCONUT = "═", "H", "☺", "o"
ACTIONS = ("NOOP", "LEFT", "RIGHT", "UP", "DOWN")
_DX = jnp.array([0, -1, 1, 0, 0], jnp.int32)
EV_FLOOR = 1


def floors(h: int) -> int:
    """How many floors stand above the ground floor (the bottom row)."""
    return (h - 5) // 3


def _rules(s: Setting) -> str:
    return (f"Kangaroo. Climb the tower to the joey {JOEY} on the top floor. Floors {FLOOR} are every "
            f"third row; one ladder {LADDER} joins each floor to the next. LEFT/RIGHT walk one column a "
            "turn; UP on a ladder climbs it, elsewhere it jumps (3 rows up and back down over 7 turns; "
            "floors are solid, so you cannot jump onto the next one); DOWN climbs down a ladder. Off a "
            "ladder you fall until you land. Each floor you reach for the first time scores; the top "
            f"floor wins. Coconuts {COCONUT} drop from the top and fall one row a turn through the "
            "floors; one meeting you kills you.")


def _layout(s: Setting, ladder_cols: jnp.ndarray):
    """(solid floors, ladder cells) of a tower: floor k is row h - 1 - 3k; the ladder from floor k
    runs from the row above it up through floor k + 1 at column ladder_cols[k]."""
    h, w = s.size
    rows = jnp.arange(h)[:, None]
    solid = ((h - 1 - rows) % 3 == 0) & (rows >= h - 1 - 3 * floors(h)) & jnp.ones((1, w), bool)
    k = (h - 2 - rows) // 3  # the floor below each row's ladder span
    col = ladder_cols[jnp.clip(k, 0, floors(h) - 1)]
    ladder = (jnp.arange(w)[None, :] == col) & (k >= 0) & (k < floors(h)) & (rows < h - 1)
    return solid, ladder


def _reset(draws, s: Setting, params):
    h, w = s.size
    n = floors(h)
    half = (w - 2) // 2
    cols = 1 + draws.randint(0, half, (n,)) + jnp.where(jnp.arange(n) % 2 == 1, half, 0)
    solid, ladder = _layout(s, cols)
    field = jnp.where(ladder, 2, jnp.where(solid, 1, 0)).astype(jnp.int8)
    return new_state(s, field=field, player=jnp.array([h - 2, w // 2], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    a = jnp.clip(action, 0, len(ACTIONS) - 1)
    dx = jnp.where(action >= 0, _DX[a], 0)
    you, arc = climb_step(state.field == 1, state.field == 2, state.player, state.phase, dx,
                          action == 3, action == 4)
    bombs1 = entities.advance(state.bombs, h, w)
    hit = meets(state.bombs, bombs1, state.player, you).any()
    drop = draws.uniform() < params.rate
    bombs = entities.spawn(bombs1, jnp.stack([0, draws.randint(0, w)]), jnp.array([1, 0]), 0, where=drop)
    level = jnp.clip((h - 2 - you[0]) // 3, 0, floors(h))
    gained = jnp.maximum(level - state.score, 0)
    nxt = state.replace(player=you, phase=arc, bombs=bombs)
    return nxt, Outcome(gained=gained, died=hit, event=jnp.where(gained > 0, EV_FLOOR, 0))


def _paint(state, s: Setting):
    h, w = s.size
    codes = state.field.astype(jnp.int32)
    codes = codes.at[h - 2 - 3 * floors(h), w - 2].set(3)
    codes = entities.paint(codes, state.bombs, jnp.array([4], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(5)


def _scripted(key, state, params):
    """Walk to the ladder up from your floor and climb it; on a floor, step aside from a coconut
    falling in your column within 4 rows."""
    h, w = state.field.shape
    you = state.player
    ladder = state.field == 2
    climbing = ladder[you[0], you[1]]
    col = jnp.argmax(ladder[you[0]])
    walk = jnp.where(col < you[1], 1, jnp.where(col > you[1], 2, 3))
    b = state.bombs
    danger = (b.alive & (b.pos[:, 1] == you[1]) & (b.pos[:, 0] < you[0]) & (you[0] - b.pos[:, 0] <= 4)).any()
    on_floor = state.field[jnp.clip(you[0] + 1, 0, h - 1), you[1]] == 1
    aside = jnp.where(you[1] > 1, 1, 2)
    act = jnp.where(danger & on_floor & ~climbing, aside, jnp.where(climbing, 3, walk))
    return act.astype(jnp.int32)


KANGAROO = Game(
    name="kangaroo", pattern="D", unit="new floor reached", actions=ACTIONS,
    descriptions=("stand still", "walk one column left", "walk one column right",
                  "climb up the ladder you are on, or jump", "climb down a ladder"),
    cells=EMPTY + FLOOR + LADDER + JOEY + COCONUT + YOU,
    glyphs={YOU: "you", FLOOR: "a floor (solid)", LADDER: "a ladder (UP / DOWN climb it)",
            JOEY: "the joey (reach its floor to win)", COCONUT: "a falling coconut"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(14, 12), max_steps=300, target=3, rate=0.1, caps=(1, 1, 3)),
    atari=Setting(size=(20, 20), max_steps=1000, target=5, rate=0.15, caps=(1, 1, 5)),
    draws=(5, 2), events=("You reached a new floor.",), death="a coconut hits you",
    death_message="A coconut hit you. Game over.",
)
