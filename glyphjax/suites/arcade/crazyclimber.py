"""Crazy Climber: scale five buildings stacked on top of one another, dodging flowerpots and
closing windows (pattern D; Atari only, no MiniAtari counterpart).

Atari: a 24x12 view, N = 5 buildings (the catalogue's and the reference's W), 1,000 turns. The
level is one tall map (`screens.follow`: the view scrolls with you, kept 8 rows above its bottom):
the street at the bottom, then five buildings of `STOREYS` rows, each ending in a roof line. The
facade between the two wall columns is climbable; about a third of its cells are windows that
close `SHUT` turns out of every `period` (each window its own phase, drawn at reset) and are
drawn `WINDOW` while closed. UP / DOWN / LEFT / RIGHT move one cell, never into a wall or a
closed window; a window closing on your cell knocks you one row down. Each roof reached for
the first time pays +1/N; the fifth wins. With probability `rate` a turn a flowerpot drops from
a random column of the view's top row and falls one row a turn through everything; one meeting
you (same cell or swapped cells) is death (-1, the end).
Differs from Atari: one climber moving one cell a turn (no two-arm climbing), no helicopter,
condor, King Kong or electric signs; the buildings are stacked (topping one, you climb on into
the next) rather than flown between. The reference pushes you down 2 rows off a random window;
ours knocks you 1 row off a window that closes (its blink is on the screen, so it can be
timed).
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import screens
from glyphjax.suites.arcade.arena import YOU
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.physics import meets

WALL, ROOF, WINDOW, POT = "▓", "▔", "▥", "⚱"
ACTIONS = ("NOOP", "UP", "DOWN", "LEFT", "RIGHT")
_MOVES = jnp.array([[0, 0], [-1, 0], [1, 0], [0, -1], [0, 1]], jnp.int32)
STOREYS, SHUT, DENSITY, ANCHOR = 30, 3, 0.35, 8
C_WALL, C_ROOF, C_WIN = 1, 2, 3  # field codes; a window is C_WIN + its blink phase
EV_ROOF = 1


def _map_rows(s: Setting) -> int:
    return s.size[0] + STOREYS * s.target


def _rules(s: Setting) -> str:
    return (f"Crazy Climber. Climb the facade between the walls {WALL} of {s.target} buildings stacked one "
            f"on another; each ends in a roof {ROOF}. UP / DOWN / LEFT / RIGHT move one cell. Windows close "
            f"{SHUT} turns out of every {s.period}, each at its own time; a closed window {WINDOW} blocks "
            "you, and one closing on your cell knocks you one row down. The view scrolls with you. Each "
            f"roof you reach for the first time scores; the last one wins. Flowerpots {POT} drop from the "
            "top of the view and fall one row a turn; one meeting you kills you.")


def shut(field: jnp.ndarray, t: jnp.ndarray, period: jnp.ndarray) -> jnp.ndarray:
    """bool[...]: the cells that are closed windows at turn t."""
    return (field >= C_WIN) & ((t + field.astype(jnp.int32) - C_WIN) % period < SHUT)


def _reset(draws, s: Setting, params):
    h, w = s.size
    m = _map_rows(s)
    u = draws.uniform((m, w))
    rows, cols = jnp.arange(m)[:, None], jnp.arange(w)[None, :]
    roof = ((m - 1 - rows) % STOREYS == 0) & (rows < m - 1)
    wall = (cols == 0) | (cols == w - 1) | (rows == m - 1)
    window = (u < DENSITY) & ~roof & ((m - 1 - rows) % STOREYS != 1)  # never on a roof or just above it
    phase = jnp.floor(u / DENSITY * params.period).astype(jnp.int32)
    field = jnp.where(wall, C_WALL, jnp.where(roof, C_ROOF, jnp.where(window, C_WIN + phase, 0)))
    return new_state(s, field=field.astype(jnp.int8), player=jnp.array([m - 2, w // 2], jnp.int32))


def _blocked(state, cell, params):
    m, w = state.field.shape
    r, c = jnp.clip(cell[0], 0, m - 1), jnp.clip(cell[1], 0, w - 1)
    return (state.field[r, c] == C_WALL) | shut(state.field[r, c], state.t, params.period)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    m = _map_rows(s)
    a = jnp.clip(action, 0, len(ACTIONS) - 1)
    want = state.player + jnp.where(action >= 0, _MOVES[a], 0)
    you = jnp.where(_blocked(state, want, params), state.player, want)
    knocked = shut(state.field[you[0], you[1]], state.t, params.period)
    you = jnp.where(knocked, jnp.stack([jnp.minimum(you[0] + 1, m - 2), you[1]]), you).astype(jnp.int32)
    top = screens.follow(you[0], h - ANCHOR, m, h)
    pots1 = entities.advance(state.bombs, m, w)
    hit = meets(state.bombs, pots1, state.player, you).any()
    pots1 = entities.kill(pots1, pots1.pos[:, 0] >= top + h)
    drop = draws.uniform() < params.rate
    pots = entities.spawn(pots1, jnp.stack([top, draws.randint(1, w - 1)]), jnp.array([1, 0]), 0, where=drop)
    level = jnp.clip((m - 1 - you[0]) // STOREYS, 0, s.target)
    gained = jnp.maximum(level - state.score, 0)
    return state.replace(player=you, bombs=pots), Outcome(gained=gained, died=hit,
                                                          event=jnp.where(gained > 0, EV_ROOF, 0))


def _paint(state, s: Setting):
    h, w = s.size
    corner = jnp.stack([screens.follow(state.player[0], h - ANCHOR, _map_rows(s), h), 0])
    cells = screens.window(state.field, corner, s.size)
    closed = shut(cells, state.t, jnp.int32(s.period))
    codes = jnp.where(cells == C_WALL, 1, jnp.where(cells == C_ROOF, 2, jnp.where(closed, 3, 0)))
    codes = entities.paint(codes, screens.seen(state.bombs, corner), jnp.array([4], jnp.int32))
    here = state.player - corner
    return codes.at[here[0], here[1]].set(5)


def _scripted(key, state, params):
    """Climb when the cell above is open and no pot falls in your column within 4 rows above it;
    else step aside to the safer column whose cell above is open; stay or back down if that fails."""
    you, pots = state.player, state.bombs

    def danger(cell):  # a pot in cell's column 1-4 rows above it (it could meet you soon)
        gap = cell[0] - pots.pos[:, 0]
        return (pots.alive & (pots.pos[:, 1] == cell[1]) & (gap >= 0) & (gap <= 4)).any()

    def value(k):
        nxt = you + _MOVES[k]
        free = ~_blocked(state, nxt, params)
        safe = free & ~danger(nxt) | (k == 0) & ~danger(you)
        above_open = ~_blocked(state, nxt + jnp.array([-1, 0]), params)
        return (safe * 100 + (k == 1) * 20 + above_open * 5 + (k == 0) * 2 - (k == 2) * 3
                - jnp.abs(nxt[1] - state.field.shape[1] // 2)).astype(jnp.int32)

    return jnp.argmax(jnp.stack([value(k) for k in range(len(ACTIONS))])).astype(jnp.int32)


CRAZYCLIMBER = Game(
    name="crazyclimber", pattern="D", unit="building topped", actions=ACTIONS,
    descriptions=("stay where you are", "climb one row up", "climb one row down", "move one column left",
                  "move one column right"),
    cells=EMPTY + WALL + ROOF + WINDOW + POT + YOU,
    glyphs={YOU: "you", WALL: "wall", ROOF: "a roof (reach it to top the building)",
            WINDOW: "a closed window (blocks you; it opens again)", POT: "a falling flowerpot"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted, mini=None,
    atari=Setting(size=(24, 12), max_steps=1000, target=5, rate=0.15, period=8, caps=(1, 1, 8)),
    draws=(24 * 12 + 30 * 5 * 12, 2), events=("You topped a building.",), death="a flowerpot hits you",
    death_message="A flowerpot hit you. Game over.",
)
