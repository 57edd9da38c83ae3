"""Gopher: guard your carrots from a gopher tunnelling up from below; bonk it as it surfaces
(pattern D).

MiniAtari: 8x14 field, 3 carrots, N = 3 bonks, 300 turns. Atari: 16x20, 3 carrots, N = 8 (the
catalogue's W), 10,000 turns. Rows: 1 your walkway, 2 the ground (carrots on their columns),
3 .. H-2 dirt, H-1 the gopher's tunnel. Every `period` turns the gopher moves: along the tunnel
one column towards a target column drawn from the step key, then up that column; a move up
into dirt only digs it open (the gopher stays), into an open cell climbs. From row 3 it eats
the carrot above (and a new target is drawn), or with no carrot there goes back to the tunnel.
FILL on your column: with the gopher on row 3 below you it is bonked (+1/N) and sent back to
the tunnel; otherwise the topmost open cell of the column (above the gopher, if it is there)
is filled with dirt. The last carrot eaten is the end (-1). Atari's seeds dropped by the duck
and scoring for filled holes are left out.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.suites.arcade.arena import YOU
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import slide

DIRT, CARROT, GOPHER = "▚", "▼", "ɢ"
ACTIONS = ("NOOP", "LEFT", "RIGHT", "FILL")
_MOVES = ((0, 0), (0, -1), (0, 1), (0, 0))
FILL, DIRT_CODE, CARROT_CODE = 3, 1, 2
TOP = 3  # the top dirt row
EV_BONK, EV_EATEN = 1, 2


def carrot_cols(s: Setting) -> tuple[int, ...]:
    """The carrots' columns: the middle and a quarter of the field to each side."""
    w = s.size[1]
    return (w // 4, w // 2, w - 1 - w // 4)


def _rules(s: Setting) -> str:
    return (f"Gopher. You {YOU} walk along row 1 above your carrots {CARROT} (row 2). The gopher {GOPHER} runs "
            f"in a tunnel along the bottom row and digs up through the dirt {DIRT} towards a carrot, one move "
            f"every {s.period} turns; a move into dirt only digs it open. From row {TOP} it eats the carrot "
            f"above. FILL bonks the gopher when it is on row {TOP} right below you; otherwise it fills the "
            "topmost open cell of the dirt below you (above the gopher when it is in that column). Losing "
            "your last carrot ends the game.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    field = jnp.zeros((h, w), jnp.int8).at[TOP:h - 1].set(DIRT_CODE)
    field = field.at[2, jnp.array(carrot_cols(s))].set(CARROT_CODE)
    return new_state(s, field=field, player=jnp.array([1, w // 2], jnp.int32),
                     opponent=jnp.array([h - 1, 0], jnp.int32), phase=jnp.int32(carrot_cols(s)[0]))


def _gopher(draws, field, gopher, target, moves, s: Setting):
    """One gopher move -> (field, gopher, target, ate)."""
    h, _ = s.size
    r, c = gopher[0], gopher[1]
    new_target = jnp.array(carrot_cols(s))[draws.randint(0, 3)]
    walking = (r == h - 1) & (c != target)
    at_top = r == TOP
    ate = moves & at_top & (field[2, c] == CARROT_CODE)
    dirt_above = field[jnp.maximum(r - 1, 0), c] == DIRT_CODE
    climb = moves & ~walking & ~at_top & ~dirt_above
    dig = moves & ~walking & ~at_top & dirt_above
    field = field.at[r - 1, c].set(jnp.where(dig, 0, field[r - 1, c]).astype(field.dtype))
    field = field.at[2, c].set(jnp.where(ate, 0, field[2, c]).astype(field.dtype))
    back = moves & at_top
    col = jnp.where(moves & walking, c + jnp.sign(target - c), c)
    row = jnp.where(back, h - 1, jnp.where(climb, r - 1, r))
    return field, jnp.stack([row, col]).astype(jnp.int32), jnp.where(back, new_target, target), ate


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you = slide(state.player, action_delta(action, _MOVES), jnp.array([1, 0]), jnp.array([1, w - 1]))
    g = state.opponent
    fill = action == FILL
    bonk = fill & (g[0] == TOP) & (g[1] == you[1])
    rows = jnp.arange(h)
    below_gopher = jnp.where(g[1] == you[1], rows < g[0], True)
    open_cells = (state.field[:, you[1]] == 0) & (rows >= TOP) & (rows < h - 1) & below_gopher
    top_open = jnp.argmax(open_cells)
    filled = fill & ~bonk & open_cells.any()
    field = state.field.at[top_open, you[1]].set(jnp.where(filled, DIRT_CODE, state.field[top_open, you[1]]))
    target = jnp.where(bonk, jnp.array(carrot_cols(s))[draws.randint(0, 3)], state.phase)
    g = jnp.where(bonk, jnp.stack([h - 1, jnp.where(draws.bernoulli(0.5), 0, w - 1)]), g).astype(jnp.int32)
    moves = ((state.t % params.period) == 0) & ~bonk
    field, g, target, ate = _gopher(draws, field, g, target, moves, s)
    lost = ~(field[2] == CARROT_CODE).any()
    nxt = state.replace(player=you, opponent=g, phase=target, field=field)
    event = jnp.where(bonk, EV_BONK, jnp.where(ate, EV_EATEN, 0))
    return nxt, Outcome(gained=bonk.astype(jnp.int32), died=lost, event=event)


def _paint(state, s: Setting):
    codes = state.field.astype(jnp.int32)
    codes = codes.at[state.opponent[0], state.opponent[1]].set(4)
    return codes.at[state.player[0], state.player[1]].set(3)


def _scripted(key, state, params):
    """Stand over the gopher's column (its target while it runs the tunnel) and bonk it when it
    reaches the top dirt row."""
    g = state.opponent
    h = state.field.shape[0]
    aim = jnp.where(g[0] == h - 1, state.phase, g[1])
    col = state.player[1]
    return jnp.where(aim < col, 1, jnp.where(aim > col, 2, jnp.where(g[0] == TOP, FILL, 0))).astype(jnp.int32)


GOPHER_GAME = Game(
    name="gopher", pattern="D", unit="gopher bonked", actions=ACTIONS,
    descriptions=("stay where you are", "walk one column left", "walk one column right",
                  "bonk the gopher below you, or fill the hole below you"),
    cells=EMPTY + DIRT + CARROT + YOU + GOPHER,
    glyphs={DIRT: "dirt (the gopher digs through it)", CARROT: "a carrot", YOU: "you", GOPHER: "the gopher"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(8, 14), max_steps=300, target=3, period=1),
    atari=Setting(size=(16, 20), max_steps=10000, target=8, period=1),
    draws=(1, 3), events=("You bonked the gopher.", "The gopher ate a carrot."),
    death="the gopher eats your last carrot", death_message="The gopher ate your last carrot. Game over.",
)
