"""Road Runner: run down the road eating birdseed, jumping rocks, with the coyote on your tail (pattern D).

Atari only: 16x30 field, N = 50 units (the catalogue's W: seed piles eaten and coyote trips),
10,000 turns. The road is row R = H - 3 (row H - 2 its surface). Every turn the road scrolls one
column left (`scroll.shift_in`, axis 1: you run right) and an item may enter at its right end:
birdseed with probability SEED, else a rock with probability `rate` (never within 3 columns of
the last rock). LEFT/RIGHT move you a column (columns 1 to W - 3), JUMP (on the road) lifts you
to row R - 1 for AIR turns. On the road, you eat the seed (+1/N) and hit the rock (-1, the end)
that ends the turn on your cell or passes through it; in the air nothing touches you. The coyote
runs on the road behind you: each turn it steps one column towards you with probability
CHASE; a rock on or passing its cell trips it (+1/N) and sends it back to column 0. The coyote
meeting you on the road (same cell, or passing each other) catches you (-1, the end).
Differences from Atari Road Runner: one lane (the catalogue's actions have no UP/DOWN), no trucks,
mines or seed-starvation rule, the coyote never leaves the road; the reference scores coyote
stuns on mines, here on rocks.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import scroll
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.physics import meets

YOU, COYOTE, SEED_G, ROCK_G, ROAD = "@", "Ψ", "∴", "O", "═"
ACTIONS = ("NOOP", "LEFT", "RIGHT", "JUMP")
JUMP, SEED, ROCK = 3, 1, 2  # action; road item codes
P_SEED, AIR, CHASE, GAP = 0.1, 3, 0.5, 3
EV_SEED, EV_TRIP = 1, 2


def _rules(s: Setting) -> str:
    h, w = s.size
    return (f"Road Runner. You {YOU} run along the road (row {h - 3}); the road scrolls one column left "
            f"every turn and birdseed {SEED_G} and rocks {ROCK_G} come in from the right. LEFT and RIGHT "
            f"move you a column, JUMP lifts you one row for {AIR} turns. On the road you eat the seed "
            "and hit the rock that reaches your cell or passes through it; in the air nothing touches "
            f"you. The coyote {COYOTE} runs behind you and closes in one column on about "
            f"{int(CHASE * 10)} turns in 10; a rock reaching it trips it back to the left end (that "
            "scores). The coyote meeting you on the road catches you.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    return new_state(s, player=jnp.array([h - 3, w // 2], jnp.int32), opponent=jnp.array([h - 3, 0], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    road = h - 3
    grounded = state.cooldown == 0
    air = jnp.where(grounded & (action == JUMP), AIR, jnp.maximum(state.cooldown - 1, 0)).astype(jnp.int32)
    col = jnp.clip(state.player[1] + (action == 2) - (action == 1), 1, w - 3).astype(jnp.int32)
    you = jnp.stack([jnp.where(air > 0, road - 1, road), col]).astype(jnp.int32)
    item = jnp.where(draws.uniform() < P_SEED, SEED,
                     jnp.where((draws.uniform() < params.rate) & ~(state.field[road, w - GAP:] == ROCK).any(), ROCK, 0))
    field = scroll.shift_in(state.field, jnp.zeros(h, jnp.int8).at[road].set(item), 1, True)
    def passing(c, right):  # the item on column c now, or (a body that stepped right) passed through it
        return jnp.where((field[road, c] == 0) & right, state.field[road, c], field[road, c])
    on_road = air == 0
    met = jnp.where(on_road, passing(col, col > state.player[1]), 0)
    field = field.at[road, col].set(jnp.where(on_road & (met == SEED), 0, field[road, col]).astype(jnp.int8))
    step = jnp.sign(col - state.opponent[1]) * (draws.uniform() < CHASE)
    coyote = state.opponent.at[1].set(jnp.clip(state.opponent[1] + step, 0, w - 1)).astype(jnp.int32)
    tripped = passing(coyote[1], step > 0) == ROCK
    body = lambda cell: entities.spawn(entities.empty(1), cell, jnp.zeros(2, jnp.int32), 0)
    caught = on_road & meets(body(state.opponent), body(coyote), state.player.at[0].set(road), you)[0] & ~tripped
    coyote = coyote.at[1].set(jnp.where(tripped, 0, coyote[1]))
    gained = (met == SEED).astype(jnp.int32) + tripped
    nxt = state.replace(player=you, opponent=coyote, field=field, cooldown=air)
    event = jnp.where(tripped, EV_TRIP, jnp.where(met == SEED, EV_SEED, 0))
    return nxt, Outcome(gained=gained, died=(met == ROCK) | caught, event=event)


def _paint(state, s: Setting):
    h, w = s.size
    codes = state.field.astype(jnp.int32).at[h - 2].set(3)
    codes = codes.at[state.opponent[0], state.opponent[1]].set(4)
    return codes.at[state.player[0], state.player[1]].set(5)


def _scripted(key, state, params):
    """JUMP (from the road) when a rock is one or two columns ahead; otherwise stay three columns
    ahead of the middle, stepping right when the coyote is within four columns."""
    h, w = state.field.shape
    road, col = h - 3, state.player[1]
    ahead = state.field[road, jnp.clip(col + jnp.array([1, 2]), 0, w - 1)] == ROCK
    jump = (state.cooldown == 0) & ahead.any()
    chased = col - state.opponent[1] <= 4
    move = jnp.where(chased | (col < w // 2 + 3), 2, jnp.where(col > w // 2 + 3, 1, 0))
    return jnp.where(jump, JUMP, jnp.where(ahead.any(), 0, move)).astype(jnp.int32)


ROADRUNNER = Game(
    name="roadrunner", pattern="D", unit="seed pile eaten or coyote tripped", actions=ACTIONS,
    descriptions=("keep your column", "run one column left", "run one column right",
                  f"jump (you stay in the air {AIR} turns)"),
    cells=EMPTY + SEED_G + ROCK_G + ROAD + COYOTE + YOU,
    glyphs={YOU: "you", COYOTE: "the coyote (it chases you; a rock trips it)",
            SEED_G: "birdseed (run over it to eat it)", ROCK_G: "a rock", ROAD: "a floor (solid)"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=None, atari=Setting(size=(16, 30), max_steps=10000, target=50, rate=0.15),
    draws=(1, 3), events=("You ate a pile of birdseed.", "A rock tripped the coyote back."),
    death="a rock hits you or the coyote catches you",
    death_message="You were stopped. Game over.",
)
