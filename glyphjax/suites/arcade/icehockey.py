"""Ice Hockey: skate the puck to the opponent's goal and shoot; first to W goals (pattern C).

MiniAtari: 10x16 rink, W = 3 goals, 300 turns (the reference's). Atari: 24x20 rink, W = 21
(the catalogue's), 10,000 turns. One skater a side (Atari has two). The goals are the middle
quarter of the top row (the opponent's, which you attack) and of the bottom row (yours); the
skaters stay off those two end rows. A free puck slides one cell a turn along its velocity,
bouncing off the boards (physics.py's wall rule); a skater within one cell of it (rows and
columns) picks it up and carries it on the cell in front (yours above you, the opponent's below
it). You take the puck off the opponent by coming within one cell of it; it takes it off you
that way with probability `rate`. SHOOT sends the puck you carry off towards the goal (straight
when you are in line with the goal, else diagonally towards it). Whenever the puck changes hands
(a shot, a pick-up, a take), nobody can take it for the next `HANDS_OFF` turns. The puck on a
goal's cells is a goal (carried in or shot), and play restarts with a face-off. The opponent
skates after the puck with probability `rate` (0.6 / 0.7) a turn and, carrying it, towards your
goal, shooting from `RANGE` rows out (deterministic given the key).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.suites.arcade.arena import (DUEL_GLYPHS, DUEL_MOVES, RIVAL, YOU, beside, carried, fly, move_action,
                                          toward, track, walk)
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state

THEIR_GOAL, MY_GOAL, PUCK = "=", "_", "•"
ACTIONS = ("NOOP", "UP", "DOWN", "LEFT", "RIGHT", "SHOOT")
SHOOT, HANDS_OFF, RANGE = 5, 2, 3
FREE, MINE, THEIRS = 0, 1, 2  # who holds the puck (state.phase)
EV_GOAL, EV_GOAL_LOST = 1, 2


def mouth(w: int) -> tuple[int, int]:
    """First and last column of a goal: the middle quarter of the row."""
    width = w // 4
    return (w - width) // 2, (w - width) // 2 + width - 1


def _rules(s: Setting) -> str:
    lo, hi = mouth(s.size[1])
    return (f"Ice hockey, one skater a side. You {YOU} attack the opponent's goal {THEIR_GOAL} (columns "
            f"{lo}-{hi} of the top row) and defend yours {MY_GOAL} (the same columns of the bottom row); "
            f"{RIVAL} is the opponent. Skaters move one cell a turn and stay off the two end rows. A free "
            f"puck {PUCK} slides one cell a turn and bounces off the boards; come within one cell of it "
            "to pick it up (you carry it on the cell above you; the opponent below it). Come within "
            "one cell of the puck the opponent carries to take it; it can take yours the same way. "
            "SHOOT sends your puck off towards the goal (straight when you are in line with it). "
            f"Whenever the puck changes hands (a shot, a pick-up, a take) nobody can take it for the "
            f"next {HANDS_OFF} turns. The puck on a goal's cells is a goal; "
            "play restarts with a face-off in the middle.")


def _faceoff(draws, s: Setting, state):
    h, w = s.size
    puck = jnp.stack([jnp.int32(h // 2), draws.randint(w // 2 - 1, w // 2 + 1)]).astype(jnp.int32)
    return state.replace(player=jnp.array([h // 2 + 2, w // 2], jnp.int32),
                         opponent=jnp.array([h // 2 - 2, w // 2], jnp.int32),
                         ball=puck, ball_vel=jnp.zeros(2, jnp.int32), phase=jnp.int32(FREE), cooldown=jnp.int32(0))


def _reset(draws, s: Setting, params):
    return _faceoff(draws, s, new_state(s))


def _aim(puck: jax.Array, w: int, d_row: int) -> jax.Array:
    lo, hi = mouth(w)
    d_col = jnp.where(puck[1] < lo, 1, jnp.where(puck[1] > hi, -1, 0))
    return jnp.stack([jnp.int32(d_row), d_col]).astype(jnp.int32)


def _skate(draws, state, action, s: Setting, params):
    """Both skaters move: you by your action, the opponent after the puck or, carrying it,
    towards your goal."""
    h, w = s.size
    lo, hi = jnp.array([1, 0]), jnp.array([h - 2, w - 1])
    you = walk(state.player, action_delta(action, DUEL_MOVES + ((0, 0),)), lo, hi, state.opponent)
    goal = jnp.array([h - 2, sum(mouth(w)) // 2], jnp.int32)
    target = jnp.where(state.phase == THEIRS, goal, state.ball)
    return you, track(state.opponent, target, draws.uniform(), params.rate, lo, hi, you)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you, opp = _skate(draws, state, action, s, params)
    shot = (action == SHOOT) & (state.phase == MINE)
    their_shot = (state.phase == THEIRS) & (opp[0] >= h - 1 - RANGE)
    flown, flown_vel = fly(state.ball, state.ball_vel, (0, 0), (h - 1, w - 1))
    held = jnp.where(state.phase == MINE, carried(you, jnp.array([-1, 0])), carried(opp, jnp.array([1, 0])))
    puck = jnp.where(state.phase == FREE, flown, held)
    vel = jnp.where(shot, _aim(puck, w, -1), jnp.where(their_shot, _aim(puck, w, 1), flown_vel))
    holder = jnp.where(shot | their_shot, FREE, state.phase)
    cooldown = jnp.where(shot | their_shot, HANDS_OFF, jnp.maximum(state.cooldown - 1, 0))
    open_ = cooldown == 0
    mine = open_ & (holder != MINE) & beside(puck, you)
    theirs = open_ & ~mine & beside(puck, opp) & ((holder == FREE) | (draws.uniform() < params.rate))
    holder = jnp.where(mine, MINE, jnp.where(theirs, THEIRS, holder))
    cooldown = jnp.where(mine | theirs, HANDS_OFF, cooldown)
    lo, hi = mouth(w)
    in_mouth = (puck[1] >= lo) & (puck[1] <= hi)
    scored, conceded = in_mouth & (puck[0] == 0), in_mouth & (puck[0] == h - 1)
    nxt = state.replace(player=you, opponent=opp, ball=puck, ball_vel=jnp.where(holder == FREE, vel, 0),
                        phase=holder.astype(jnp.int32), cooldown=cooldown.astype(jnp.int32))
    restart = _faceoff(draws, s, nxt)
    nxt = jax.tree.map(lambda a, b: jnp.where(scored | conceded, a, b), restart, nxt)
    event = jnp.where(scored, EV_GOAL, jnp.where(conceded, EV_GOAL_LOST, 0))
    return nxt, Outcome(gained=scored.astype(jnp.int32), conceded=conceded.astype(jnp.int32), event=event)


def _paint(state, s: Setting):
    h, w = s.size
    lo, hi = mouth(w)
    cols = jnp.arange(w)
    codes = jnp.zeros((h, w), jnp.int32)
    codes = codes.at[0].set(jnp.where((cols >= lo) & (cols <= hi), 1, 0))
    codes = codes.at[h - 1].set(jnp.where((cols >= lo) & (cols <= hi), 2, 0))
    codes = codes.at[state.ball[0], state.ball[1]].set(5)
    codes = codes.at[state.opponent[0], state.opponent[1]].set(4)
    return codes.at[state.player[0], state.player[1]].set(3)


def _scripted(key, state, params):
    """Go for the puck; carrying it, skate to the goal's middle column, stepping aside when the
    opponent is right ahead, and SHOOT from `RANGE` rows out."""
    h, w = state.field.shape
    centre = sum(mouth(w)) // 2
    you, opp = state.player, state.opponent
    blocked = (jnp.abs(opp[1] - you[1]) <= 1) & (opp[0] < you[0]) & (you[0] - opp[0] <= 2)
    side = jnp.where(opp[1] > you[1], -1, jnp.where(opp[1] < you[1], 1, jnp.where(you[1] < centre, 1, -1)))
    goal_ward = jnp.where(blocked, jnp.stack([0, side]), toward(you, jnp.array([1, centre])))
    carrying = state.phase == MINE
    shoot = carrying & (you[0] <= RANGE) & (you[1] == centre)
    step = jnp.where(carrying, goal_ward, toward(you, state.ball))
    return jnp.where(shoot, SHOOT, move_action(step)).astype(jnp.int32)


ICEHOCKEY = Game(
    name="icehockey", pattern="C", unit="goal", actions=ACTIONS,
    descriptions=("glide (stay where you are)", "skate up one row", "skate down one row",
                  "skate left one column", "skate right one column",
                  "shoot the puck towards the opponent's goal (when you carry it)"),
    cells=EMPTY + THEIR_GOAL + MY_GOAL + YOU + RIVAL + PUCK,
    glyphs={**DUEL_GLYPHS, THEIR_GOAL: "the opponent's goal (get the puck onto it to score)",
            MY_GOAL: "your goal (the puck on it is a goal for the opponent)", PUCK: "the puck"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 16), max_steps=300, target=3, rate=0.6),
    atari=Setting(size=(24, 20), max_steps=10000, target=21, rate=0.7),
    draws=(1, 3), events=("You scored a goal.", "The opponent scored a goal."),
)
