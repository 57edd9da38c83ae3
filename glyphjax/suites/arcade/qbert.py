"""Q*bert: hop round a pyramid of cubes painting each one, off the edge of none, under none of
the bouncing balls (pattern D).

MiniAtari: 12x12 field, a 4-row pyramid, N = 10 cubes, 300 turns (the reference's). Atari: 15x15
field, a 7-row pyramid, N = 28 (the catalogue's W), 10,000 turns. board.py draws the pyramid
packed: each hop (UP_LEFT, UP_RIGHT, DOWN_LEFT, DOWN_RIGHT) moves one row and one column. A
turn: you hop (or stay), the balls bounce, and the cube you stand on is painted (+1/N the first
time; you start on the apex unpainted; a fatal turn paints nothing). Every `period` turns each
ball drops one row, left or right at random, and falls off the bottom; then, with probability
`rate`, a new one appears on a random cube of the pyramid's second row (never yours). A hop
off the pyramid, or a ball on (or swapping with) your cube, kills you (-1). Painting every cube
wins. Atari's Coily, discs, colour cycles and further levels are left out. The catalogue's Atari action order differs
(UP_RIGHT first); here the mini set serves both settings.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade.arena import YOU
from glyphjax.suites.arcade.board import HOPS, UNPAINTED, hop, hop_distance, is_cube, paint_cube, pyramid, roll
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import meets

CUBE, PAINTED_CUBE, BALL = "▫", "◼", "●"
ACTIONS = ("NOOP", "UP_LEFT", "UP_RIGHT", "DOWN_LEFT", "DOWN_RIGHT")
_MOVES = ((0, 0),) + HOPS
EV_PAINT = 1


def rows_of(s: Setting) -> int:
    """Rows of the pyramid at a setting."""
    return 4 if s.size[0] < 15 else 7


def apex(s: Setting) -> tuple[int, int]:
    """The apex cube: the pyramid stands centred on the field."""
    return (s.size[0] - rows_of(s)) // 2, s.size[1] // 2


def _rules(s: Setting) -> str:
    n = rows_of(s)
    return (f"Q*bert. A pyramid of {n * (n + 1) // 2} cubes ({n} rows) stands in the field: {CUBE} unpainted, "
            f"{PAINTED_CUBE} painted. You {YOU} hop diagonally from cube to cube (one row and one column a "
            "hop); the cube you end a turn on is painted. Every "
            f"{s.period} turns each ball {BALL} bounces one row down the pyramid, left or right at random, and "
            "drops off the bottom; new balls appear on the second row. Hopping off the pyramid, or a ball "
            "landing on you, kills you. Paint every cube to win.")


def _reset(draws, s: Setting, params):
    top, mid = apex(s)
    field = jnp.asarray(pyramid(*s.size, rows_of(s), top))
    return new_state(s, field=field, player=jnp.array([top, mid], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    top, mid = apex(s)
    dest, on = hop(state.field, state.player, action_delta(action, _MOVES))
    you = jnp.where(on, dest, state.player)
    balls = roll(state.foes, state.field, draws.uniform((s.caps[0],)), (state.t % params.period) == 0)
    died = ~on | meets(state.foes, balls, state.player, you).any()
    field, fresh = paint_cube(state.field, you)
    field, fresh = jnp.where(died, state.field, field), fresh & ~died  # a fatal turn paints nothing
    cell = jnp.stack([top + 1, mid + jnp.where(draws.bernoulli(0.5), -1, 1)]).astype(jnp.int32)
    go = (draws.uniform() < params.rate) & ((state.t % params.period) == 0) & (cell != you).any()
    balls = entities.spawn(balls, cell, jnp.zeros(2, jnp.int32), 0, where=go)
    nxt = state.replace(player=you, field=field, foes=balls)
    return nxt, Outcome(gained=fresh.astype(jnp.int32), died=died, event=jnp.where(fresh, EV_PAINT, 0))


def _paint(state, s: Setting):
    codes = state.field.astype(jnp.int32)  # codes 1, 2: the cubes
    codes = entities.paint(codes, state.foes, jnp.array([4], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(3)


def _scripted(key, state, params):
    """Hop to the cube nearest an unpainted one (staying on the pyramid), never onto a cube a ball
    holds or may drop onto next; stay when every hop is unsafe."""
    dests = state.player[None] + jnp.array(HOPS, jnp.int32)  # [4, 2]
    h, w = state.field.shape
    cells = jnp.stack(jnp.meshgrid(jnp.arange(h), jnp.arange(w), indexing="ij"), -1)  # [h, w, 2]
    todo = state.field == UNPAINTED
    dist = jnp.where(todo[None], hop_distance(dests[:, None, None], cells[None]), 1 << 20).min((1, 2))
    b = state.foes
    reach = jnp.concatenate([b.pos, b.pos + jnp.array([1, -1]), b.pos + jnp.array([1, 1])])  # [3N, 2]
    near = (dests[:, None] == reach[None]).all(-1) & jnp.tile(b.alive, 3)[None]
    ok = is_cube(state.field, dests) & ~near.any(-1)
    best = jnp.argmin(jnp.where(ok, dist, 1 << 21))
    return jnp.where(ok.any(), best + 1, 0).astype(jnp.int32)


QBERT = Game(
    name="qbert", pattern="D", unit="cube painted", actions=ACTIONS,
    descriptions=("stay on your cube", "hop up and left", "hop up and right", "hop down and left",
                  "hop down and right"),
    cells=EMPTY + CUBE + PAINTED_CUBE + YOU + BALL,
    glyphs={CUBE: "an unpainted cube", PAINTED_CUBE: "a painted cube", YOU: "you", BALL: "ball"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(12, 12), max_steps=300, target=10, rate=0.3, period=2, caps=(3, 1, 1)),
    atari=Setting(size=(15, 15), max_steps=10000, target=28, rate=0.3, period=2, caps=(5, 1, 1)),
    draws=(1, 7), events=("You painted a cube.",),
    death="you hop off the pyramid or a ball lands on you",
    death_message="You fell off the pyramid or a ball got you. Game over.",
)
