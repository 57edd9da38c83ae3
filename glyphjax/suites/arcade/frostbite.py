"""Frostbite: hop across rows of drifting ice floes to build an igloo of N blocks (pattern A).

MiniAtari: 10x16 field, 4 floe rows, N = 4 blocks, 300 turns (the reference's 4). Atari: 16x20,
7 floe rows, N = 16 blocks (the reference's 4 igloos x 4), 10,000 turns. The shore is the top
row; floe rows are every second row below it, with icy water between and around the floes. Each
row holds two floes of `FLOE` cells that drift one column (left on even-numbered floe rows,
right on odd ones, wrapping round) every 1 or 2 turns (drawn at reset). UP / DOWN hop to the
next floe row (or the shore); LEFT / RIGHT step one column. Standing on a floe you drift with
it. Landing on water (hopping or stepping off a floe) drowns you and ends the episode without
penalty. Landing on a row whose floes are still white adds one igloo block (+1/N) and turns that
row blue; when every row is blue they all turn white again. No temperature clock, no birds or
crabs, and the igloo is complete at N blocks (no walk home to enter it).
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import scroll, scrolled

SHORE, WATER, WHITE, BLUE = ".", "~", "▢", "▣"
YOU = "@"
ACTIONS = ("NOOP", "UP", "DOWN", "LEFT", "RIGHT")
_MOVES = ((0, 0), (-2, 0), (2, 0), (0, -1), (0, 1))
FLOE = 3  # cells per floe
EV_BLOCK = 1


def rows_of(s: Setting) -> int:
    """How many floe rows (rows 2, 4, ... below the shore)."""
    return (s.size[0] - 2) // 2


def _rules(s: Setting) -> str:
    return (f"Frostbite. You {YOU} start on the shore {SHORE} (the top row). Below it, every second row "
            f"holds two drifting ice floes ({FLOE} cells each) in icy water {WATER}; each row drifts one "
            "column every 1 or 2 turns, alternately left and right, wrapping round. UP/DOWN hop to the "
            "next floe row (or back to the shore); LEFT/RIGHT step one column. On a floe you drift with "
            f"it. Landing in the water drowns you. Landing on a row of white floes {WHITE} adds a "
            f"block to your igloo and turns that row blue {BLUE}; when all rows are blue they turn "
            "white again.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    n = rows_of(s)
    rows = 2 + 2 * jnp.arange(n)
    start = draws.randint(0, w, (n,))
    cols = (jnp.arange(w)[None, :] - start[:, None]) % (w // 2)
    field = jnp.zeros((h, w), jnp.int8).at[rows].set((cols < FLOE).astype(jnp.int8))
    direction = jnp.where(jnp.arange(n) % 2 == 0, -1, 1)
    lanes = (jnp.zeros((h, 3), jnp.int32).at[:, 2].set(1).at[rows, 1].set(direction)
             .at[rows, 2].set(draws.randint(1, 3, (n,))))
    return new_state(s, field=field, lanes=lanes, player=jnp.array([0, w // 2], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    n = rows_of(s)
    you = jnp.clip(state.player + action_delta(action, _MOVES), 0, jnp.array([2 * n, w - 1]))
    drowned = (you[0] > 0) & (scrolled(state.field, state.lanes)[you[0], you[1]] == 0)
    lanes = scroll(state.lanes, state.t)
    ride = lanes[you[0], 0] - state.lanes[you[0], 0]
    you = jnp.stack([you[0], (you[1] + ride) % w]).astype(jnp.int32)
    bit = jnp.left_shift(1, you[0] // 2 - 1)  # the row's bit in `phase` (set: blue)
    block = (you[0] != state.player[0]) & (you[0] > 0) & ~drowned & ((state.phase & bit) == 0)
    blue = jnp.where(block, state.phase | bit, state.phase)
    blue = jnp.where(blue == (1 << n) - 1, 0, blue)
    nxt = state.replace(player=you, lanes=lanes, phase=blue.astype(jnp.int32))
    return nxt, Outcome(gained=block.astype(jnp.int32), died=drowned, event=jnp.where(block, EV_BLOCK, 0))


def _paint(state, s: Setting):
    h, w = s.size
    rows = jnp.arange(h)
    floe_row = (rows >= 2) & (rows % 2 == 0) & (rows <= 2 * rows_of(s))
    blue = (jnp.right_shift(state.phase, jnp.maximum(rows // 2 - 1, 0)) & 1) == 1
    floes = scrolled(state.field, state.lanes) > 0
    codes = jnp.where(floe_row[:, None], jnp.where(floes, jnp.where(blue[:, None], 4, 3), 2), 2)
    codes = codes.at[0].set(1)
    return codes.at[state.player[0], state.player[1]].set(5)


def _scripted(key, state, params):
    """Hop towards the nearest white row (downwards first) when the cell you would land on is
    floe; otherwise wait (riding your floe is safe)."""
    h, w = state.field.shape
    n = (h - 2) // 2
    r, c = state.player[0], state.player[1]
    white = ((jnp.right_shift(state.phase, jnp.arange(n)) & 1) == 0) & (2 + 2 * jnp.arange(n) != r)
    below = white & (2 + 2 * jnp.arange(n) > r)
    go_down = below.any() | (r == 0)
    target = jnp.clip(r + jnp.where(go_down, 2, -2), 0, 2 * n)
    floe = (scrolled(state.field, state.lanes)[target, c] > 0) | (target == 0)
    return jnp.where(floe, jnp.where(go_down, 2, 1), 0).astype(jnp.int32)


FROSTBITE = Game(
    name="frostbite", pattern="A", unit="igloo block", actions=ACTIONS,
    descriptions=("stay where you are (drifting with your floe)", "hop up to the next floe row or the shore",
                  "hop down to the next floe row", "step one column left", "step one column right"),
    cells=EMPTY + SHORE + WATER + WHITE + BLUE + YOU,
    glyphs={YOU: "you", SHORE: "the shore (safe ground)", WATER: "icy water (landing in it drowns you)",
            WHITE: "a white ice floe (landing on its row adds an igloo block)",
            BLUE: "a blue ice floe (its row already gave a block this round)"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 16), max_steps=300, target=4),
    atari=Setting(size=(16, 20), max_steps=10000, target=16),
    draws=(14, 0), events=("You added a block to your igloo.",), death="you land in the water",
    death_message="You fell into the icy water. Game over.",
)
