"""Frogger: cross the road and the river to the goal row.

Our layout on the catalogue's 13x10 board (§5 row 9): row 0 is the goal, rows 1-4 are river
lanes with logs, row 5 a safe median, rows 6-8 road lanes with cars, row 9 the start. Every lane
scrolls sideways with wrap-around (a lane moves one column every 1 or 2 turns, direction per
lane). A turn: you move (or WAIT), then the lanes move; a log carries you with it. Touching a
car, standing in water, or being carried off the screen by a log kills you. This is a redesign,
not the GlyphBench reference's rules: the reference has 3 river lanes and 4 road lanes, and its
logs carry the frog around the edge (wrap) instead of off the screen. Moving off the board
is a no-op. Reward (pattern C): +1 on reaching row 0, -1 on death; a single terminal reward, so
the return is in [-1, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import DIR_DELTAS, DIR_NAMES, codepoints
from glyphjax.core.registry import register
from glyphjax.core.sampling import Draws
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics.common import FLOOR, GLYPHS_ARCADE, GLYPHS_COMMON, PLAYER

W, H = 13, 10
RIVER = (1, 2, 3, 4)
ROAD = (6, 7, 8)
CAR, LOG, WATER, GOAL = "◙", "═", "≈", "⌂"
GLYPHS = {FLOOR: GLYPHS_COMMON[FLOOR], PLAYER: GLYPHS_ARCADE[PLAYER], CAR: "car",
          LOG: "floating log", WATER: "water", GOAL: "goal row"}
EV_HOME, EV_CAR, EV_WATER, EV_EDGE = 1, 2, 3, 4
EVENTS = ("", "You reached the goal row. You win!", "A car hit you. Game over.",
          "You fell into the water. Game over.", "Your log carried you off the screen. Game over.")
ACTIONS = DIR_NAMES + ("WAIT",)
# d_row, d_col per action (WAIT = 0, 0)
_DELTAS = jnp.concatenate([DIR_DELTAS, jnp.zeros((1, 2), jnp.int32)])
_IS_RIVER = jnp.zeros(H, bool).at[jnp.array(RIVER)].set(True)
_IS_ROAD = jnp.zeros(H, bool).at[jnp.array(ROAD)].set(True)
_TABLE = codepoints(FLOOR + CAR + LOG + WATER + GOAL + PLAYER)  # codes 0..5


@struct.dataclass
class FroggerState(EnvState):
    frog: jax.Array  # int32[2] (row, col)
    lanes: jax.Array  # bool[H, W]: car/log cells at lane offset 0
    offset: jax.Array  # int32[H]: current shift of each lane
    direction: jax.Array  # int32[H]: +1 right, -1 left, 0 static
    period: jax.Array  # int32[H]: the lane moves on turns where t % period == 0


def lane_cells(state: FroggerState) -> jax.Array:
    """bool[H, W]: cells occupied by a car (road) or a log (river) now."""
    cols = jnp.arange(W)[None, :]
    src = (cols - state.offset[:, None]) % W
    return jnp.take_along_axis(state.lanes, src, axis=1)


class Frogger(Env):
    def __init__(self, task_id: str = "classics/frogger", max_steps: int = 100):
        self.card = TaskCard(
            id=task_id,
            rules=(f"Frogger on a {W}x{H} board. You start on the bottom row and must reach the "
                   "goal row at the top. Rows 6-8 are roads with cars, row 5 is a safe strip, rows "
                   "1-4 are a river with floating logs. Every lane slides sideways (wrapping "
                   "around the screen edges), some every turn and some every other turn. Each turn "
                   "you move one cell (or WAIT), then the lanes move; a log carries you along. "
                   "Touching a car, stepping into water or being carried off the screen ends the "
                   "game."),
            actions=ACTIONS,
            action_descriptions=("hop one row up", "hop one row down", "hop one column left",
                                 "hop one column right", "stay in place"),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Row: {row}",
            hud_fields=("row",),
            max_steps=max_steps,
            reward="+1 for reaching the goal row, -1 for dying (car, water or off-screen); 0 otherwise. Return range [-1, 1].",
            events=EVENTS,
            success=(EV_HOME,),
        )

    def _reset(self, key, params):
        rnd = Draws.hashed(key, 4 * H)  # no Threefry (compile time)
        cols = jnp.arange(W)[None, :]
        phase = rnd.randint(0, 5, (H, 1))
        car_len = rnd.randint(1, 3, (H, 1))
        seg_len = jnp.where(_IS_RIVER[:, None], 3, car_len)
        lanes = ((cols + phase) % 5) < seg_len
        lanes = lanes & (_IS_RIVER | _IS_ROAD)[:, None]
        direction = jnp.where(rnd.bernoulli(0.5, (H,)), 1, -1)
        direction = jnp.where(_IS_RIVER | _IS_ROAD, direction, 0).astype(jnp.int32)
        period = rnd.randint(1, 3, (H,))
        return FroggerState(**init_state_fields(), frog=jnp.array([H - 1, W // 2], jnp.int32),
                            lanes=lanes, offset=jnp.zeros(H, jnp.int32), direction=direction,
                            period=period)

    def _step(self, key, state: FroggerState, action, params):
        move = jnp.where(action >= 0, _DELTAS[jnp.clip(action, 0, 4)], 0)
        target = state.frog + move
        inside = (target[0] >= 0) & (target[0] < H) & (target[1] >= 0) & (target[1] < W)
        frog = jnp.where(inside, target, state.frog)
        r, c = frog[0], frog[1]
        occ = lane_cells(state)
        car_now = _IS_ROAD[r] & occ[r, c]
        water_now = _IS_RIVER[r] & ~occ[r, c]
        # lanes move
        moves = (state.t % state.period) == 0
        offset = state.offset + jnp.where(moves, state.direction, 0)
        moved = state.replace(offset=offset)
        ride = jnp.where(_IS_RIVER[r] & moves[r], state.direction[r], 0)
        c2 = c + ride
        off_screen = (c2 < 0) | (c2 >= W)
        c2 = jnp.clip(c2, 0, W - 1)
        car_after = _IS_ROAD[r] & lane_cells(moved)[r, c2]
        hit_car = car_now | car_after
        drowned = water_now & ~hit_car
        edge = off_screen & ~hit_car & ~drowned
        dead = hit_car | drowned | edge
        home = (r == 0) & ~dead
        reward = jnp.where(home, 1.0, jnp.where(dead, -1.0, 0.0))
        event = jnp.select([hit_car, drowned, edge, home], [EV_CAR, EV_WATER, EV_EDGE, EV_HOME], 0)
        nxt = moved.replace(frog=jnp.stack([r, c2]).astype(jnp.int32))
        return nxt, reward, dead | home, event

    def _render(self, state: FroggerState, params):
        occ = lane_cells(state)
        codes = jnp.zeros((H, W), jnp.int32)
        codes = jnp.where(_IS_ROAD[:, None] & occ, 1, codes)
        codes = jnp.where(_IS_RIVER[:, None], jnp.where(occ, 2, 3), codes)
        codes = codes.at[0].set(4)
        codes = codes.at[state.frog[0], state.frog[1]].set(5)
        return _TABLE[codes], (state.frog[0],)

    @staticmethod
    def scripted_policy(key, state: FroggerState, params):
        """Hop up when the cell above is safe after the lanes move, else wait (or dodge down)."""
        occ_next = lane_cells(state.replace(offset=state.offset + jnp.where(
            (state.t % state.period) == 0, state.direction, 0)))
        occ = lane_cells(state)
        r, c = state.frog[0], state.frog[1]
        up = jnp.maximum(r - 1, 0)
        up_safe = jnp.where(_IS_ROAD[up], ~occ[up, c] & ~occ_next[up, c],
                            jnp.where(_IS_RIVER[up], occ[up, c], True))
        here_safe = jnp.where(_IS_ROAD[r], ~occ_next[r, c], True)
        return jnp.where(up_safe, 0, jnp.where(here_safe, 4, 1)).astype(jnp.int32)


register("classics/frogger", lambda: Frogger())
