"""Boxing: land punches on the opponent in a ring; first to W punches (pattern C).

MiniAtari: 8x12 field, W = 5, 200 turns (the reference's first to 5). Atari: 20x20 field,
W = 10, 10,000 turns (the reference's Atari boxing pays pattern D, +1/10 a punch and -1 when
knocked out; ours is the same duel at both settings). The ropes are the border; both boxers stay
inside, one cell a turn, never on each other's cell. PUNCH lands when the opponent is within
Manhattan distance 2 (`REACH`) and your cooldown is over; after a punch (landed or not) the next
one comes `COOLDOWN` turns later at the earliest. A turn: cooldowns tick, you move or punch,
then the opponent steps towards you with probability `rate` (0.6 / 0.8) and, in reach and off
cooldown, punches with probability rate / 2 (deterministic given the step key). Atari boxing
ends at a knockout (100 punches) or after two minutes; here the first to W wins.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core.grid import border_mask
from glyphjax.suites.arcade.arena import (DUEL_GLYPHS, DUEL_MOVES, RIVAL, YOU, in_reach, move_action, toward, track,
                                          walk)
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state

ROPE = "#"
ACTIONS = ("NOOP", "UP", "DOWN", "LEFT", "RIGHT", "PUNCH")
PUNCH, REACH, COOLDOWN = 5, 2, 2
EV_LANDED, EV_TAKEN = 1, 2


def _rules(s: Setting) -> str:
    return (f"Boxing. You {YOU} and the opponent {RIVAL} box inside the ropes {ROPE}, one cell a "
            f"turn, never on the same cell. PUNCH lands when the opponent is within Manhattan "
            f"distance {REACH} of you; after a punch (landed or not) your next one can come "
            f"{COOLDOWN} turns later. The opponent comes after you, though not every turn, and "
            f"punches back when you are within {REACH} of it (not every time).")


def _box(s: Setting):
    h, w = s.size
    return jnp.array([1, 1]), jnp.array([h - 2, w - 2])


def _reset(draws, s: Setting, params):
    h, w = s.size
    return new_state(s, player=jnp.array([h - 2, 2], jnp.int32), opponent=jnp.array([1, w - 3], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    lo, hi = _box(s)
    mine, theirs = jnp.maximum(state.cooldown - 1, 0), jnp.maximum(state.phase - 1, 0)
    you = walk(state.player, action_delta(action, DUEL_MOVES + ((0, 0),)), lo, hi, state.opponent)
    punch = (action == PUNCH) & (mine == 0)
    landed = punch & in_reach(you, state.opponent, REACH)
    opp = track(state.opponent, you, draws.uniform(), params.rate, lo, hi, you)
    swing = (theirs == 0) & in_reach(you, opp, REACH) & (draws.uniform() < params.rate / 2)
    nxt = state.replace(player=you, opponent=opp, cooldown=jnp.where(punch, COOLDOWN, mine).astype(jnp.int32),
                        phase=jnp.where(swing, COOLDOWN, theirs).astype(jnp.int32))
    event = jnp.where(landed, EV_LANDED, jnp.where(swing, EV_TAKEN, 0))
    return nxt, Outcome(gained=landed.astype(jnp.int32), conceded=swing.astype(jnp.int32), event=event)


def _paint(state, s: Setting):
    codes = jnp.asarray(border_mask(*s.size), jnp.int32)
    codes = codes.at[state.opponent[0], state.opponent[1]].set(3)
    return codes.at[state.player[0], state.player[1]].set(2)


def _scripted(key, state, params):
    """PUNCH when the opponent is in reach and the cooldown is over (next turn's); otherwise
    step towards it."""
    ready = state.cooldown <= 1
    close = in_reach(state.player, state.opponent, REACH)
    return jnp.where(ready & close, PUNCH, move_action(toward(state.player, state.opponent))).astype(jnp.int32)


BOXING = Game(
    name="boxing", pattern="C", unit="punch", actions=ACTIONS,
    descriptions=("stand still", "step up one row", "step down one row", "step left one column",
                  "step right one column", f"throw a punch (lands if the opponent is within {REACH} cells)"),
    cells=EMPTY + ROPE + YOU + RIVAL,
    glyphs={**DUEL_GLYPHS, ROPE: "the ropes (you cannot pass them)"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(8, 12), max_steps=200, target=5, rate=0.6),
    atari=Setting(size=(20, 20), max_steps=10000, target=10, rate=0.8),
    draws=(0, 2), events=("Your punch landed.", "The opponent punched you."),
)
