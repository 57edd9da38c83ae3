"""Lunar Lander: fire thrusters to land gently on the pad.

Reference rules (catalogue §5 row 14): 20x15 side view, gravity 0.5 cell/turn², thrusters up,
left and right, 100 fuel, a 3-wide landing pad; landing needs |vx| <= 1 and |vy| <= 1.5.
Fixed-point physics in half cells (int32): each turn gravity adds 0.5 to vy; THRUST_UP adds -1.0
(net -0.5), THRUST_LEFT/RIGHT add -/+0.5 to vx; each thrust costs 1 fuel (no thrust without
fuel). Speeds are clamped to |vx| <= 2 and |vy| <= 5 cells/turn. Then the position moves by the
velocity; the lander's cell is the floor of its position. Touching the ground (the lander's new
cell is at or below the ground surface of its column) ends the episode: a landing if the column
is part of the pad and both speed limits hold, else a crash; leaving the screen (sides or top) is
a crash. Reward (pattern C): +1 landing, -1 crash / off-screen; return in [-1, 1].
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._arcade import GLYPHS_GROUND, GROUND
from glyphjax.suites.classics.common import EMPTY_SPACE, GLYPHS_ARCADE, PLAYER

W, H = 20, 15
PAD_W = 3
FUEL = 100
VX_MAX2, VY_MAX2 = 4, 10  # half cells per turn
LAND_VX2, LAND_VY2 = 2, 3  # |vx| <= 1, |vy| <= 1.5
PAD = "▬"
GLYPHS = {**GLYPHS_ARCADE, **GLYPHS_GROUND, PAD: "landing pad"}
ACTIONS = ("THRUST_UP", "THRUST_LEFT", "THRUST_RIGHT", "NOOP")
EV_LANDED, EV_CRASH, EV_OFF = 1, 2, 3
EVENTS = ("", "You landed safely on the pad. You win!", "You crashed into the ground. Game over.",
          "You flew off the screen. Game over.")
V_OFF = VY_MAX2  # HUD enum offset: field value = velocity in half cells + V_OFF
V_NAMES = tuple(f"{(i - V_OFF) / 2:+.1f}" for i in range(2 * V_OFF + 1))
_TABLE = codepoints(EMPTY_SPACE + GROUND + PAD + PLAYER)  # codes 0..3


@struct.dataclass
class LunarLanderState(EnvState):
    pos2: jax.Array  # int32[2] (row, col) in half cells
    vel2: jax.Array  # int32[2] (vy, vx) in half cells per turn
    fuel: jax.Array  # int32
    surface: jax.Array  # int32[W]: top ground row of each column
    pad_left: jax.Array  # int32: first pad column


class LunarLander(Env):
    def __init__(self, task_id: str = "classics/lunarlander", max_steps: int = 300):
        self.card = TaskCard(
            id=task_id,
            rules=(f"Lunar lander, a {W}x{H} side view (row 0 at the top, rows grow downwards). "
                   "Each turn gravity adds 0.5 to your downward speed vy; THRUST_UP adds -1.0 to "
                   "vy, THRUST_LEFT / THRUST_RIGHT add -0.5 / +0.5 to the sideways speed vx "
                   f"(each thrust uses 1 of {FUEL} fuel). Speeds are capped at |vx| <= 2 and "
                   "|vy| <= 5. Then you move by (vx, vy) cells. Touch down on the landing pad "
                   "with |vx| <= 1 and |vy| <= 1.5 to win; touching the ground anywhere else or "
                   "faster, or leaving the screen, is a crash. Positive vy means falling."),
            actions=ACTIONS,
            action_descriptions=("fire the main engine: vy -1.0 (slows a fall)",
                                 "fire the right-side engine: vx -0.5 (push left)",
                                 "fire the left-side engine: vx +0.5 (push right)",
                                 "no thrust"),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Fuel: {fuel}    vx: {vx}    vy: {vy}",
            hud_fields=("fuel", "vx", "vy"),
            hud_enums={"vx": V_NAMES, "vy": V_NAMES},
            max_steps=max_steps,
            reward="+1 for landing safely on the pad, -1 for crashing or leaving the screen; 0 otherwise. Return range [-1, 1].",
            events=EVENTS,
            success=(EV_LANDED,),
        )

    def _reset(self, key, params):
        k1, k2, k3, k4 = jax.random.split(key, 4)
        steps = jax.random.randint(k1, (W,), -1, 2)
        heights = jnp.clip(2 + jnp.cumsum(steps), 1, 5)
        pad_left = jax.random.randint(k2, (), 1, W - PAD_W - 1)
        cols = jnp.arange(W)
        on_pad = (cols >= pad_left) & (cols < pad_left + PAD_W)
        heights = jnp.where(on_pad, heights[pad_left], heights)
        surface = (H - heights).astype(jnp.int32)
        col = jax.random.randint(k3, (), 2, W - 2)
        vx2 = jax.random.randint(k4, (), -1, 2)
        return LunarLanderState(**init_state_fields(), pos2=jnp.stack([jnp.int32(2), 2 * col + 1]).astype(jnp.int32),
                                vel2=jnp.stack([jnp.int32(0), vx2]).astype(jnp.int32), fuel=jnp.int32(FUEL),
                                surface=surface, pad_left=pad_left.astype(jnp.int32))

    def _step(self, key, state: LunarLanderState, action, params):
        has_fuel = state.fuel > 0
        thrust = (action >= 0) & (action <= 2) & has_fuel
        dvy = jnp.where(thrust & (action == 0), -2, 0) + 1
        dvx = jnp.where(thrust & (action == 1), -1, jnp.where(thrust & (action == 2), 1, 0))
        vy = jnp.clip(state.vel2[0] + dvy, -VY_MAX2, VY_MAX2)
        vx = jnp.clip(state.vel2[1] + dvx, -VX_MAX2, VX_MAX2)
        pos = state.pos2 + jnp.stack([vy, vx])
        r, c = pos[0] // 2, pos[1] // 2
        off = (c < 0) | (c >= W) | (r < 0)
        cc = jnp.clip(c, 0, W - 1)
        top = state.surface[cc]
        touch = ~off & (r >= top)
        on_pad = (cc >= state.pad_left) & (cc < state.pad_left + PAD_W)
        soft = (jnp.abs(vx) <= LAND_VX2) & (jnp.abs(vy) <= LAND_VY2)
        landed = touch & on_pad & soft
        crashed = touch & ~landed
        # rest on the surface when touching down; keep the drawn cell on screen
        pos = jnp.where(touch, jnp.stack([2 * (top - 1) + 1, pos[1]]), pos)
        pos = jnp.stack([jnp.clip(pos[0], 0, 2 * H - 1), jnp.clip(pos[1], 0, 2 * W - 1)])
        reward = jnp.where(landed, 1.0, jnp.where(crashed | off, -1.0, 0.0))
        event = jnp.select([landed, crashed, off], [EV_LANDED, EV_CRASH, EV_OFF], 0)
        nxt = state.replace(pos2=pos.astype(jnp.int32), vel2=jnp.stack([vy, vx]).astype(jnp.int32),
                            fuel=state.fuel - thrust.astype(jnp.int32))
        return nxt, reward, touch | off, event

    def _render(self, state: LunarLanderState, params):
        rows = jnp.arange(H)[:, None]
        cols = jnp.arange(W)[None, :]
        ground = rows >= state.surface[None, :]
        pad = (rows == state.surface[None, :]) & (cols >= state.pad_left) & (cols < state.pad_left + PAD_W)
        codes = jnp.where(pad, 2, jnp.where(ground, 1, 0))
        codes = codes.at[state.pos2[0] // 2, state.pos2[1] // 2].set(3)
        return _TABLE[codes], (state.fuel, state.vel2[1] + V_OFF, state.vel2[0] + V_OFF)

    @staticmethod
    def scripted_policy(key, state: LunarLanderState, params):
        """Hover down over the pad: brake the fall when low or fast, otherwise steer sideways."""
        r, c = state.pos2[0] // 2, state.pos2[1] // 2
        target = state.pad_left + 1
        dx = target - c
        height = state.surface[jnp.clip(c, 0, W - 1)] - r
        vy, vx = state.vel2[0], state.vel2[1]
        want_vx = jnp.clip(dx, -1, 1)
        brake = (vy >= 2) | ((vy >= 1) & (height <= 3)) | ((dx != 0) & (height <= 3) & (vy >= 0))
        steer = jnp.where(vx < want_vx, 2, jnp.where(vx > want_vx, 1, 3))
        return jnp.where(brake, 0, steer).astype(jnp.int32)


register("classics/lunarlander", lambda: LunarLander())
