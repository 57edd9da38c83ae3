"""Artillery: aim a cannon over hilly ground and destroy three targets.

Reference rules (catalogue §5 row 2): 30x15 side view, hilly terrain, angle 10-80 degrees in
5-degree steps, power 1-10, FIRE a parabolic shell; craters; 30 shots; T 500.
Physics is integer fixed point (1/1000 cell): launch speed = 0.6 * power cells per time unit,
gravity 0.96 cells per time unit², 4 sub-steps per time unit, at most 160 sub-steps (the
integer recurrence in closed form, all sub-steps evaluated at once). The shell starts at the cannon and flies until it touches ground or a target
(impact), or leaves the screen sideways (miss); above the top of the screen it keeps flying.
An impact blasts a crater 3 columns wide: those columns lose all ground above one row below the
impact (the bottom row never goes); targets within one cell of the impact are destroyed.
Targets and the cannon always rest on the ground surface. The path of the last shell is drawn.
Reward (pattern A): +1/3 per target destroyed (3 targets = 1.0, a win that ends the episode);
running out of shells ends it with no penalty. Return in [0, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from glyphjax.core.grid import codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.core.sampling import random_cells
from glyphjax.suites.classics._arcade import GLYPHS_GROUND, GROUND
from glyphjax.suites.classics.common import EMPTY_SPACE, GLYPHS_ARCADE

W, H = 30, 15
CANNON_COL = 2
N_TARGETS = 3
SHOTS = 30
ANGLES = tuple(range(10, 81, 5))
SCALE = 1000
SUBSTEPS, MAX_SUB = 4, 160
G_SUB = 60  # gravity per sub-step² in 1/1000 cell: 0.96 cells per time unit²
_POWER = np.arange(1, 11)
_RAD = np.deg2rad(np.array(ANGLES, np.float64))
VX_SUB = np.round(0.6 * _POWER[None, :] * np.cos(_RAD)[:, None] * SCALE / SUBSTEPS).astype(np.int32)
VY_SUB = np.round(0.6 * _POWER[None, :] * np.sin(_RAD)[:, None] * SCALE / SUBSTEPS).astype(np.int32)

CANNON, TARGET, TRAIL = "◭", "⊗", "∘"
GLYPHS = {EMPTY_SPACE: GLYPHS_ARCADE[EMPTY_SPACE], **GLYPHS_GROUND, CANNON: "your cannon",
          TARGET: "target", TRAIL: "path of your last shell"}
ACTIONS = ("AIM_UP", "AIM_DOWN", "POWER_UP", "POWER_DOWN", "FIRE")
EV_HIT, EV_SHORT, EV_LONG, EV_OFF, EV_WIN, EV_OUT = 1, 2, 3, 4, 5, 6
EVENTS = ("", "Hit! A target was destroyed.", "Miss: the shell landed short of the nearest target.",
          "Miss: the shell landed past the nearest target.", "Miss: the shell flew off the screen.",
          "All targets destroyed. You win!", "Out of shells. Game over.")
IMPACT_NAMES = ("none", "off screen", *(str(c) for c in range(W)))
_TABLE = codepoints(EMPTY_SPACE + GROUND + CANNON + TARGET + TRAIL)  # codes 0..4


@struct.dataclass
class ArtilleryState(EnvState):
    height: jax.Array  # int32[W]: ground cells in each column (>= 1)
    target_col: jax.Array  # int32[3]
    target_alive: jax.Array  # bool[3]
    angle: jax.Array  # int32 index into ANGLES
    power: jax.Array  # int32 1..10
    shots: jax.Array  # int32 shells left
    trail: jax.Array  # int32[MAX_SUB]: flat cells the last shell flew through (-1 = none)
    impact: jax.Array  # int32: HUD code of the last impact (IMPACT_NAMES)


def surface_row(height: jax.Array, col: jax.Array) -> jax.Array:
    """Row of the cell just above the ground of a column (where things rest)."""
    return H - 1 - height[col]


def fly_shell(height, target_col, target_alive, angle, power):
    """The shell's flight -> (hit bool, impact row, impact col, off_screen bool, trail int32[MAX_SUB]
    flat cell index of each sub-step drawn as the path, -1 where not drawn).

    Sub-step i (1..MAX_SUB) of the integer recurrence x += vx; y += vy; vy -= G_SUB has the
    closed form x_i = x0 + i vx, y_i = y0 + i vy0 - G_SUB i (i - 1) / 2 (exact in integers), so
    all sub-steps are evaluated at once and the first one that touches ground or a target (or
    leaves the screen sideways) ends the flight."""
    x0 = CANNON_COL * SCALE + SCALE // 2
    y0 = (height[CANNON_COL] + 1) * SCALE + SCALE // 2  # height above the bottom edge (up = +)
    vx = jnp.asarray(VX_SUB)[angle, power - 1]
    vy0 = jnp.asarray(VY_SUB)[angle, power - 1]
    i = jnp.arange(1, MAX_SUB + 1, dtype=jnp.int32)
    x = x0 + i * vx
    y = y0 + i * vy0 - G_SUB * (i * (i - 1) // 2)
    col = jnp.floor_divide(x, SCALE)
    up = jnp.floor_divide(y, SCALE)  # cells above the bottom edge
    row = H - 1 - up
    out_side = (col < 0) | (col >= W)
    cc = jnp.clip(col, 0, W - 1)
    rr = jnp.clip(row, 0, H - 1)
    in_ground = (up < height[cc]) & ~out_side
    t_rows = surface_row(height, target_col)
    on_target = jnp.any(target_alive[None, :] & (target_col[None, :] == cc[:, None]) &
                        (t_rows[None, :] == row[:, None]), axis=1) & ~out_side
    ends = out_side | in_ground | on_target
    first = jnp.argmax(ends)
    ended = jnp.any(ends)
    hit = ended & ~out_side[first]
    end_at = jnp.where(ended, first, MAX_SUB)
    shown = (jnp.arange(MAX_SUB) < end_at) & (row >= 0) & ~out_side
    trail = jnp.where(shown, rr * W + cc, -1).astype(jnp.int32)
    return hit, rr[first], cc[first], ~hit, trail


class Artillery(Env):
    def __init__(self, task_id: str = "classics/artillery", max_steps: int = 500):
        self.card = TaskCard(
            id=task_id,
            rules=(f"Artillery on a {W}x{H} side view (row 0 at the top). Your cannon stands in "
                   f"column {CANNON_COL} and shoots to the right. AIM_UP/AIM_DOWN change the angle "
                   "by 5 degrees (10 to 80), POWER_UP/POWER_DOWN change the power by 1 (1 to 10); "
                   "FIRE launches a shell on a parabola (launch speed 0.6 x power cells per time "
                   "unit, gravity 0.96). The shell explodes where it first touches ground or a "
                   "target, blasting a crater 3 columns wide and destroying targets within one "
                   f"cell. Destroy all {N_TARGETS} targets with at most {SHOTS} shells. The path "
                   "of your last shell is drawn on the grid."),
            actions=ACTIONS,
            action_descriptions=("raise the barrel by 5 degrees", "lower the barrel by 5 degrees",
                                 "increase the power by 1", "decrease the power by 1",
                                 "fire a shell with the current angle and power"),
            glyphs=GLYPHS,
            hud=("Step: {step} / {max_steps}    Angle: {angle} deg    Power: {power}    "
                 "Shells left: {shots}    Targets left: {targets}    Last impact column: {impact}"),
            hud_fields=("angle", "power", "shots", "targets", "impact"),
            hud_enums={"impact": IMPACT_NAMES},
            max_steps=max_steps,
            reward=(f"+1/{N_TARGETS} for each target destroyed (all {N_TARGETS} = 1.0, a win that "
                    "ends the game). Running out of shells ends the game with no penalty. "
                    "Return range [0, 1]."),
            events=EVENTS,
            success=(EV_WIN,),
            return_range=(0.0, 1.0),
        )

    def _reset(self, key, params):
        k1, k2 = jax.random.split(key)
        steps = jax.random.randint(k1, (W,), -1, 2)
        height = jnp.clip(4 + jnp.cumsum(steps), 2, 8).astype(jnp.int32)
        cols = jnp.arange(W)
        tc, _ = random_cells(jax.random.uniform(k2, (W,)), (cols >= 12) & (cols <= W - 2), N_TARGETS)
        return ArtilleryState(**init_state_fields(), height=height, target_col=tc,
                              target_alive=jnp.ones(N_TARGETS, bool), angle=jnp.int32(7),
                              power=jnp.int32(5), shots=jnp.int32(SHOTS),
                              trail=jnp.full(MAX_SUB, -1, jnp.int32), impact=jnp.int32(0))

    def _step(self, key, state: ArtilleryState, action, params):
        angle = jnp.clip(state.angle + jnp.where(action == 0, 1, 0) - jnp.where(action == 1, 1, 0),
                         0, len(ANGLES) - 1)
        power = jnp.clip(state.power + jnp.where(action == 2, 1, 0) - jnp.where(action == 3, 1, 0), 1, 10)
        fire = (action == 4) & (state.shots > 0)
        hit, ir, ic, off, trail = fly_shell(state.height, state.target_col, state.target_alive,
                                            state.angle, state.power)
        t_rows = surface_row(state.height, state.target_col)
        destroyed = fire & hit & state.target_alive & (jnp.abs(state.target_col - ic) <= 1) & \
            (jnp.abs(t_rows - ir) <= 1)
        cols = jnp.arange(W)
        crater = fire & hit & (jnp.abs(cols - ic) <= 1)
        height = jnp.where(crater, jnp.clip(jnp.minimum(state.height, H - 2 - ir), 1, H), state.height)
        alive = state.target_alive & ~destroyed
        n_killed = jnp.sum(destroyed.astype(jnp.int32))
        shots = state.shots - fire.astype(jnp.int32)
        won = ~jnp.any(alive)
        out = fire & ~won & (shots == 0)
        reward = n_killed.astype(jnp.float32) / N_TARGETS
        # which side of the nearest living target the shell landed on
        dist = jnp.where(state.target_alive, jnp.abs(state.target_col - ic), 1000)
        nearest = state.target_col[jnp.argmin(dist)]
        event = jnp.select([won & fire, out, ~fire, n_killed > 0, off, ic < nearest],
                           [EV_WIN, EV_OUT, 0, EV_HIT, EV_OFF, EV_SHORT], EV_LONG)
        impact = jnp.where(fire, jnp.where(hit, 2 + ic, 1), state.impact)
        nxt = state.replace(angle=angle, power=power, shots=shots, height=height.astype(jnp.int32),
                            target_alive=alive, trail=jnp.where(fire, trail, state.trail),
                            impact=impact.astype(jnp.int32))
        return nxt, reward, (fire & won) | out, event

    def _render(self, state: ArtilleryState, params):
        rows = jnp.arange(H)[:, None]
        ground = rows >= (H - state.height)[None, :]
        trail = jnp.zeros(H * W, bool).at[jnp.maximum(state.trail, 0)].max(state.trail >= 0).reshape(H, W)
        codes = jnp.where(ground, 1, jnp.where(trail, 4, 0))
        t_rows = surface_row(state.height, state.target_col)
        t_codes = jnp.where(state.target_alive, 3, codes[t_rows, state.target_col])
        codes = codes.at[t_rows, state.target_col].set(t_codes)
        codes = codes.at[surface_row(state.height, CANNON_COL), CANNON_COL].set(2)
        return _TABLE[codes], (jnp.asarray(ANGLES)[state.angle], state.power, state.shots,
                               jnp.sum(state.target_alive.astype(jnp.int32)), state.impact)

    @staticmethod
    def scripted_policy(key, state: ArtilleryState, params):
        """Keep 45 degrees; walk the power up/down by where the last shell landed relative to
        the nearest living target; fire when the power was just set."""
        want_angle = 7
        ic = state.impact - 2
        dist = jnp.where(state.target_alive, state.target_col, 1000)
        tgt = jnp.min(dist)
        fired_before = state.impact >= 1
        short = fired_before & ((state.impact == 1) | (ic < tgt - 1))
        long_ = fired_before & (state.impact >= 2) & (ic > tgt + 1)
        adjust = (state.event == EV_SHORT) | (state.event == EV_LONG)
        act = jnp.where(state.angle < want_angle, 0, jnp.where(state.angle > want_angle, 1, 4))
        act = jnp.where((state.angle == want_angle) & adjust & short & (state.power < 10), 2, act)
        act = jnp.where((state.angle == want_angle) & adjust & long_ & (state.power > 1), 3, act)
        return act.astype(jnp.int32)


register("classics/artillery", lambda: Artillery())
