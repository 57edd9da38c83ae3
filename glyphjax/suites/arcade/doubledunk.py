"""Double Dunk: half-court one-on-one basketball; first to W points (pattern C).

MiniAtari: 10x14 court, every basket 1 point, W = 4 (the reference's first to 4 baskets), 250
turns. Atari: 16x20 court, baskets 2 points and 3 from beyond the three-point line, W = 24 (the
catalogue's), 10,000 turns. Both sides attack the one hoop in the middle of row 0 (Double Dunk is
a half-court game); the ball is always held, by you or by the opponent (`ArcadeState.phase`).
Both bodies move one cell a turn in rows 1..H-1, never onto each other (`arena.walk`). SHOOT
with the ball: the shot goes in with probability max(0.9 - 0.12 d, 0.05), d the Chebyshev
distance to the hoop (deterministic given the step key); a basket gives the ball to the other
side at the bottom of the court (both line up again); a miss gives the rebound to whoever is
nearer the hoop (the defender on a tie). SHOOT without the ball tries a steal: the opponent
beside you (within one cell) loses the ball with probability `STEAL`. The opponent, each turn
with probability `rate` (0.6 / 0.7): with the ball steps towards the hoop and shoots from
`RANGE` cells out; without it steps to the cell between you and the hoop, and tries a steal
(probability STEAL) when beside you. Differs from Atari Double Dunk: one player a side (Atari:
two, with play calls), no fouls, clears or shot clock; the reference's Atari scores 2/3-point
shots from a make probability by distance too.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.suites.arcade.arena import DUEL_GLYPHS, DUEL_MOVES, RIVAL, YOU, beside, move_action, toward, walk
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state

HOOP, BALL, ARC = "○", "●", "┄"
ACTIONS = ("NOOP", "UP", "DOWN", "LEFT", "RIGHT", "SHOOT")
SHOOT, RANGE, STEAL = 5, 2, 0.3
MINE, THEIRS = 0, 1  # who holds the ball (state.phase)
EV_BASKET, EV_CONCEDED, EV_MISS, EV_STOLEN, EV_LOST = 1, 2, 3, 4, 5


def three_line(s: Setting) -> int | None:
    """The Chebyshev distance of the three-point line from the hoop (None: every basket is 1)."""
    return s.size[0] // 2 if s.target > 10 else None


def make_chance(d: jnp.ndarray) -> jnp.ndarray:
    return jnp.maximum(0.9 - 0.12 * d, 0.05)


def _hoop(s: Setting):
    return jnp.array([0, s.size[1] // 2], jnp.int32)


def _dist(a, b):
    return jnp.abs(a - b).max()


def _points(d, s: Setting):
    line = three_line(s)
    return jnp.int32(1) if line is None else jnp.where(d > line, 3, 2).astype(jnp.int32)


def _rules(s: Setting) -> str:
    line = three_line(s)
    worth = ("Every basket scores 1 point." if line is None else
             f"A basket scores 2 points, 3 from beyond the three-point line {ARC} (more than {line} cells from the hoop).")
    return (f"Double Dunk, one on one on a half court: both of you shoot at the hoop {HOOP} in the middle of the "
            f"top row. You {YOU} and the opponent {RIVAL} move one cell a turn (rows below the hoop's), never onto "
            f"each other; the ball {BALL} is drawn above whoever holds it. SHOOT with the ball: it goes in with "
            "probability max(0.9 - 0.12 d, 0.05), d the distance to the hoop (the larger of rows and columns). "
            f"{worth} After a basket the other side takes the ball at the bottom of the court; after a miss the "
            f"one nearer the hoop gets the rebound (the defender on a tie). SHOOT without the ball tries a steal: "
            f"the opponent within one cell loses the ball with probability {STEAL}. The opponent attacks the hoop "
            f"and shoots from {RANGE} cells out, and defends by standing between you and the hoop and trying "
            "steals; it acts on most turns, not all.")


def _lineup(s: Setting, mine: jnp.ndarray):
    """(your cell, the opponent's cell) at a restart: the attacker at the bottom, the defender
    in the middle of the court, both in the hoop's column."""
    h, w = s.size
    bottom, middle = jnp.array([h - 1, w // 2], jnp.int32), jnp.array([h // 2, w // 2], jnp.int32)
    return jnp.where(mine, bottom, middle), jnp.where(mine, middle, bottom)


def _reset(draws, s: Setting, params):
    you, opp = _lineup(s, jnp.bool_(True))
    return new_state(s, player=you, opponent=opp, phase=jnp.int32(MINE))


def _shot(shooter, u, s: Setting):
    """-> (in, points) of a shot from `shooter`."""
    d = _dist(shooter, _hoop(s))
    return u < make_chance(d), _points(d, s)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    lo, hi = jnp.array([1, 0]), jnp.array([h - 1, w - 1])
    hoop = _hoop(s)
    mine = state.phase == MINE
    you = walk(state.player, action_delta(action, DUEL_MOVES + ((0, 0),)), lo, hi, state.opponent)
    u_shot, u_steal, u_act, u_their_shot, u_their_steal = (draws.uniform() for _ in range(5))
    shoot = (action == SHOOT) & mine
    made, pts = _shot(you, u_shot, s)
    scored = shoot & made
    missed = shoot & ~made
    stole = (action == SHOOT) & ~mine & beside(you, state.opponent) & (u_steal < STEAL)
    # the opponent (acts unless your turn already changed the ball's hands)
    calm = ~(shoot | stole)
    acts = calm & (u_act < params.rate)
    attack = ~mine
    d_opp = _dist(state.opponent, hoop)
    their_shoot = acts & attack & (d_opp <= RANGE)
    t_made, t_pts = _shot(state.opponent, u_their_shot, s)
    guard = jnp.clip(you + jnp.array([-1, 0]), lo, hi)
    goal = jnp.where(attack, hoop + jnp.array([1, 0]), guard)
    opp = jnp.where(acts & ~their_shoot, walk(state.opponent, toward(state.opponent, goal), lo, hi, you), state.opponent)
    their_steal = acts & mine & beside(you, opp) & (u_their_steal < STEAL)
    conceded = their_shoot & t_made
    their_miss = their_shoot & ~t_made
    # the rebound of a miss: the one nearer the hoop, the defender on a tie
    you_nearer = _dist(you, hoop) < _dist(opp, hoop)
    opp_nearer = _dist(opp, hoop) < _dist(you, hoop)
    after_miss_mine = jnp.where(missed, you_nearer, ~opp_nearer)
    holder_mine = jnp.select([scored, conceded, missed | their_miss, stole, their_steal],
                             [False, True, after_miss_mine, True, False], mine)
    restart = scored | conceded
    you_r, opp_r = _lineup(s, holder_mine)
    you = jnp.where(restart, you_r, you)
    opp = jnp.where(restart, opp_r, opp)
    event = jnp.select([scored, conceded, missed | their_miss, stole, their_steal],
                       [EV_BASKET, EV_CONCEDED, EV_MISS, EV_STOLEN, EV_LOST], 0)
    nxt = state.replace(player=you, opponent=opp, phase=jnp.where(holder_mine, MINE, THEIRS).astype(jnp.int32))
    return nxt, Outcome(gained=jnp.where(scored, pts, 0).astype(jnp.int32),
                        conceded=jnp.where(conceded, t_pts, 0).astype(jnp.int32), event=event)


def _paint(state, s: Setting):
    h, w = s.size
    codes = jnp.zeros((h, w), jnp.int32)
    line = three_line(s)
    if line is not None:
        rr, cc = jnp.meshgrid(jnp.arange(h), jnp.arange(w), indexing="ij")
        codes = jnp.where(jnp.maximum(rr, jnp.abs(cc - w // 2)) == line, 3, codes)
    holder = jnp.where(state.phase == MINE, state.player, state.opponent)
    codes = codes.at[holder[0] - 1, holder[1]].set(2)
    codes = codes.at[0, w // 2].set(1)
    codes = codes.at[state.opponent[0], state.opponent[1]].set(5)
    return codes.at[state.player[0], state.player[1]].set(4)


def _scripted(key, state, params):
    """With the ball: SHOOT from within one cell of the hoop (two with the opponent beside you),
    else step towards the cell below the hoop, sideways round the opponent when it stands in the
    way. Without it: SHOOT (steal) when beside the opponent, else step towards it."""
    h, w = state.field.shape
    hoop = jnp.array([0, w // 2], jnp.int32)
    you, opp = state.player, state.opponent
    d = jnp.abs(you - hoop).max()
    near = beside(you, opp)
    step = toward(you, hoop + jnp.array([1, 0]))
    blocked = (you + step == opp).all()
    side = jnp.where(you[1] <= opp[1], jnp.array([0, -1]), jnp.array([0, 1]))
    side = jnp.where((you[1] + side[1] < 0) | (you[1] + side[1] >= w), -side, side)
    attack = jnp.where((d <= 1) | ((d <= 2) & near), SHOOT, move_action(jnp.where(blocked, side, step)))
    defend = jnp.where(near, SHOOT, move_action(toward(you, opp)))
    return jnp.where(state.phase == MINE, attack, defend).astype(jnp.int32)


DOUBLEDUNK = Game(
    name="doubledunk", pattern="C", unit="point", actions=ACTIONS,
    descriptions=("stand still", "step up one row", "step down one row", "step left one column",
                  "step right one column", "shoot at the hoop (with the ball) or try a steal (without it)"),
    cells=EMPTY + HOOP + BALL + ARC + YOU + RIVAL,
    glyphs={**DUEL_GLYPHS, HOOP: "the hoop (shoot at it)", BALL: "ball",
            ARC: "the three-point line (baskets from beyond it score 3)"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 14), max_steps=250, target=4, rate=0.6),
    atari=Setting(size=(16, 20), max_steps=10000, target=24, rate=0.7),
    draws=(0, 5), events=("You scored a basket.", "The opponent scored a basket.", "A shot missed.",
                          "You stole the ball.", "The opponent stole the ball."),
)
