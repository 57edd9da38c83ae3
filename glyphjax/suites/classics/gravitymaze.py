"""Gravity Maze: a ball under gravity; walk and jump across a hilly level to the goal.

Reference rules (catalogue §5 row 10): 12x8 side view, the ball falls one cell per turn when
nothing is under it; LEFT/RIGHT move one cell; JUMP (only when standing on something) moves 2
cells up instead of falling that turn; falling out of the bottom row is death. The level is a
walled box (ceiling, side walls) over a ground profile of height 1-3 with pits of width 1-2
that open to the bottom; the goal sits on the ground at one of the rightmost columns.

Solvability by construction: ground steps between neighbouring columns are at most 1 (a jump
climbs 2), pits are at most 2 wide (a jump then two moves clear them) and the column after a pit
is never higher than the one before it. Tests certify 1,000 seeds with a host-side breadth-first
search over ball positions (the state is the position only; jumps are instantaneous). Reward (pattern C): +1 at the goal, -1 on falling off; one
terminal reward, return in [-1, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._arcade import GLYPHS_GROUND, GROUND
from glyphjax.suites.classics.common import EMPTY_SPACE, GLYPHS_ARCADE, GLYPHS_COMMON, PLAYER, WALL

W, H = 12, 8
GOAL = "★"  # same glyph and meaning as the puzzle games (_puzzles.GOAL)
GLYPHS = {**GLYPHS_ARCADE, WALL: GLYPHS_COMMON[WALL], **GLYPHS_GROUND, GOAL: "goal"}
LEFT, RIGHT, JUMP = 0, 1, 2
EV_GOAL, EV_FELL = 1, 2
EVENTS = ("", "You reached the goal. You win!", "You fell off the bottom of the level. Game over.")
_TABLE = codepoints(EMPTY_SPACE + WALL + GROUND + GOAL + PLAYER)  # codes 0..4


@struct.dataclass
class GravityMazeState(EnvState):
    ground: jax.Array  # bool[H, W]: solid ground cells (the border walls are implicit)
    ball: jax.Array  # int32[2] (row, col)
    goal: jax.Array  # int32[2]


def _walls() -> jax.Array:
    rows = jnp.arange(H)[:, None]
    cols = jnp.arange(W)[None, :]
    return (rows == 0) | (cols == 0) | (cols == W - 1)


def ball_move(solid: jax.Array, r: jax.Array, c: jax.Array, action: jax.Array):
    """One turn of ball physics -> (row, col, fell_off). `solid` includes the walls; rows >= H
    are open (falling out of the bottom). Negative action: gravity only."""
    def free(rr, cc):
        inside = (rr < H)
        return ~inside | ~solid[jnp.clip(rr, 0, H - 1), jnp.clip(cc, 0, W - 1)]

    dc = jnp.where(action == LEFT, -1, jnp.where(action == RIGHT, 1, 0))
    c1 = jnp.where(free(r, c + dc), c + dc, c)
    grounded = ~free(r + 1, c)
    jumping = (action == JUMP) & grounded
    up1 = free(r - 1, c)
    up2 = up1 & free(r - 2, c)
    r_jump = jnp.where(up2, r - 2, jnp.where(up1, r - 1, r))
    fall = ~jumping & free(r + 1, c1)
    r1 = jnp.where(jumping, r_jump, jnp.where(fall, r + 1, r))
    return r1, c1, r1 >= H


def generate_level(key: jax.Array):
    """-> (ground bool[H, W], ball int32[2], goal int32[2]); solvable by construction (see the
    module docstring)."""
    k1, k2, k3, k4 = jax.random.split(key, 4)
    cols = jnp.arange(W)
    goal_col = jax.random.randint(k3, (), W - 4, W - 1)
    b = jax.random.bernoulli(k4, 0.3, (W,)) & (cols >= 3) & (cols <= W - 3) & (cols != goal_col)
    prev1 = jnp.roll(b, 1).at[0].set(False)
    prev2 = jnp.roll(b, 2).at[:2].set(False)
    pit = b & ~(prev1 & prev2)  # never 3 pits in a row
    after_pit = jnp.roll(pit, 1).at[0].set(False)
    steps = jax.random.randint(k1, (W,), -1, 2)
    steps = jnp.where(pit | after_pit, jnp.minimum(steps, 0), steps)  # land no higher than take-off
    h0 = jax.random.randint(k2, (), 1, 4)
    heights = jnp.clip(h0 + jnp.cumsum(steps) - steps[0], 1, 3)
    rows = jnp.arange(H)[:, None]
    inner = (cols > 0) & (cols < W - 1) & ~pit
    ground = (rows >= (H - heights)[None, :]) & inner[None, :]
    ball = jnp.array([H - 1 - heights[1], 1], jnp.int32)
    goal = jnp.stack([H - 1 - heights[goal_col], goal_col]).astype(jnp.int32)
    return ground, ball, goal


class GravityMaze(Env):
    def __init__(self, task_id: str = "classics/gravitymaze", max_steps: int = 200):
        self.card = TaskCard(
            id=task_id,
            rules=(f"Gravity maze, a {W}x{H} side view (row 0 at the top). You are a ball: every "
                   "turn you fall one cell if nothing solid is under you. LEFT/RIGHT move one "
                   "cell sideways (then gravity applies); JUMP, only when standing on something, "
                   "moves you 2 cells up instead of falling that turn. Pits in the ground open to "
                   "the bottom: falling out of the bottom row ends the game. Reach the goal."),
            actions=("LEFT", "RIGHT", "JUMP"),
            action_descriptions=("move one cell left", "move one cell right",
                                 "jump two cells up (only when standing on ground)"),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}",
            hud_fields=(),
            max_steps=max_steps,
            reward="+1 for reaching the goal, -1 for falling off the bottom; 0 otherwise. Return range [-1, 1].",
            events=EVENTS,
            success=(EV_GOAL,),
        )

    def _reset(self, key, params):
        ground, ball, goal = generate_level(key)
        return GravityMazeState(**init_state_fields(), ground=ground, ball=ball, goal=goal)

    def _step(self, key, state: GravityMazeState, action, params):
        r, c, fell = ball_move(state.ground | _walls(), state.ball[0], state.ball[1], action)
        won = ~fell & (r == state.goal[0]) & (c == state.goal[1])
        reward = jnp.where(won, 1.0, jnp.where(fell, -1.0, 0.0))
        event = jnp.select([won, fell], [EV_GOAL, EV_FELL], 0)
        nxt = state.replace(ball=jnp.stack([jnp.minimum(r, H - 1), c]).astype(jnp.int32))
        return nxt, reward, won | fell, event

    def _render(self, state: GravityMazeState, params):
        codes = jnp.where(_walls(), 1, jnp.where(state.ground, 2, 0))
        codes = codes.at[state.goal[0], state.goal[1]].set(3)
        codes = codes.at[state.ball[0], state.ball[1]].set(4)
        return _TABLE[codes], ()

    @staticmethod
    def scripted_policy(key, state: GravityMazeState, params):
        """Walk right; jump when the next column is higher or is a pit; random jumps otherwise."""
        solid = state.ground | _walls()
        r, c = state.ball[0], state.ball[1]
        blocked = solid[r, jnp.minimum(c + 1, W - 1)]
        pit = ~solid[H - 1, jnp.minimum(c + 1, W - 1)]
        grounded = solid[jnp.minimum(r + 1, H - 1), c]
        jump = grounded & (blocked | pit)
        return jnp.where(jump, JUMP, RIGHT).astype(jnp.int32)


register("classics/gravitymaze", lambda: GravityMaze())
