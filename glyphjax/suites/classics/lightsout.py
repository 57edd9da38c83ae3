"""Lights Out: pressing a cell toggles it and its 4 neighbours; turn every light off.

Reference (catalogue §4, §5 row 13): 5x5 / 7x7, T = 100 / 200, actions PRESS_i with
i = row * width + col (grid labels on). Generation: from the all-off board, every cell is pressed
with probability 1/2 (so the start is in the image of the press matrix: solvable by
construction); if that leaves all lights off, the centre cell is pressed.

Reward: -1/T for every press, +1 (instead of the press cost) on the press that turns the last
light off, which ends the episode. NO_ACTION costs nothing. Return in [-1, 1] by construction:
at most T presses (>= -1); a win after k presses pays 1 - (k-1)/T <= 1.

The scripted policy is an exact solver: the press pattern x with A x = b over GF(2) is
`P b` plus the null space of A (dimension 2 on 5x5, 0 on 7x7); it presses a cell of the
minimum-weight solution, so the remaining solution shrinks by one every press.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from glyphjax.core.grid import DIR_OFFSETS, codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics.common import cell_actions

LIGHT_ON = "◉"
LIGHT_OFF = "○"
GLYPHS = {LIGHT_ON: "light on", LIGHT_OFF: "light off"}
_TABLE = codepoints(LIGHT_OFF + LIGHT_ON)
EV_SOLVED = 1
EVENTS = ("", "All lights are off. Solved!")


def press_matrix(n: int) -> np.ndarray:
    """uint8[n*n, n*n]: column i is the toggle pattern of pressing cell i."""
    a = np.zeros((n * n, n * n), np.uint8)
    for r in range(n):
        for c in range(n):
            i = r * n + c
            for dr, dc in ((0, 0),) + DIR_OFFSETS:
                rr, cc = r + dr, c + dc
                if 0 <= rr < n and 0 <= cc < n:
                    a[rr * n + cc, i] = 1
    return a


def gf2_solver(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P, N): P uint8[m, m] with a @ (P @ b) = b (mod 2) for every b in the image of a, and the
    rows of N span the null space of a. Host-side Gauss-Jordan elimination over GF(2)."""
    m = a.shape[0]
    aug = np.concatenate([a.copy(), np.eye(m, dtype=np.uint8)], axis=1)  # row ops tracked
    pivots = []
    row = 0
    for col in range(m):
        hits = np.nonzero(aug[row:, col])[0]
        if hits.size == 0:
            continue
        p = row + hits[0]
        aug[[row, p]] = aug[[p, row]]
        others = np.nonzero(aug[:, col])[0]
        others = others[others != row]
        aug[others] ^= aug[row]
        pivots.append(col)
        row += 1
        if row == m:
            break
    e = aug[:, m:]  # e @ a = reduced form R
    pmat = np.zeros((m, m), np.uint8)
    for i, col in enumerate(pivots):
        pmat[col] = e[i]  # x_pivot = (E b)_i, free variables 0
    free = [c for c in range(m) if c not in pivots]
    null = np.zeros((len(free), m), np.uint8)
    r_red = aug[:, :m]
    for k, f in enumerate(free):
        null[k, f] = 1
        for i, col in enumerate(pivots):
            null[k, col] = r_red[i, f]
    return pmat, null


@struct.dataclass
class LightsOutState(EnvState):
    lights: jax.Array  # bool[n, n]
    presses: jax.Array  # int32


class LightsOut(Env):
    def __init__(self, task_id: str, size: int, max_steps: int):
        self.size = size
        n2 = size * size
        actions, descriptions = cell_actions("PRESS", size, "press the cell at row {row}, column {col}")
        a = press_matrix(size)
        pmat, null = gf2_solver(a)
        self._press = jnp.asarray(a.T, jnp.bool_)  # row i: cells toggled by PRESS_i
        self._pinv = jnp.asarray(pmat, jnp.int32)
        combos = np.array([[(k >> j) & 1 for j in range(len(null))] for k in range(1 << len(null))], np.int32)
        self._null_combos = jnp.asarray((combos @ null.astype(np.int32)) % 2 if len(null) else np.zeros((1, n2), np.int32))
        self.card = TaskCard(
            id=task_id,
            rules=(f"Lights Out on a {size}x{size} board. PRESS_i toggles cell i (i = row * {size} + "
                   "column, rows and columns numbered from 0 as labelled around the grid) and its up to 4 "
                   "orthogonal neighbours (on becomes off, off becomes on). Turn every light off. "
                   "The starting board is always solvable."),
            actions=actions,
            action_descriptions=descriptions,
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Lights on: {on}    Presses: {presses}",
            hud_fields=("on", "presses"),
            max_steps=max_steps,
            reward=(f"-1/{max_steps} for each press; +1 on the press that turns the last light off "
                    "(instead of its cost), which ends the episode. Return range [-1, 1]."),
            events=EVENTS,
            success=(EV_SOLVED,),
            return_range=(-1.0, 1.0),
            grid_labels=True,
        )

    def _reset(self, key, params):
        n = self.size
        pressed = jax.random.bernoulli(key, 0.5, (n * n,))
        lights = (pressed.astype(jnp.int32) @ self._press.astype(jnp.int32)) % 2 == 1
        centre = (n // 2) * n + n // 2
        lights = jnp.where(lights.any(), lights, self._press[centre])
        return LightsOutState(**init_state_fields(), lights=lights.reshape(n, n), presses=jnp.int32(0))

    def _step(self, key, state: LightsOutState, action, params):
        n = self.size
        pressed = action >= 0
        toggle = self._press[jnp.clip(action, 0, n * n - 1)].reshape(n, n) & pressed
        lights = state.lights ^ toggle
        solved = pressed & ~lights.any()
        reward = jnp.where(solved, 1.0, jnp.where(pressed, -1.0 / self.card.max_steps, 0.0))
        nxt = state.replace(lights=lights, presses=state.presses + pressed.astype(jnp.int32))
        return nxt, reward, solved, jnp.where(solved, EV_SOLVED, 0)

    def _render(self, state: LightsOutState, params):
        return _TABLE[state.lights.astype(jnp.int32)], (state.lights.sum(), state.presses)

    def solution(self, lights: jax.Array) -> jax.Array:
        """bool[n*n]: a minimum-weight press pattern that turns `lights` off."""
        b = lights.reshape(-1).astype(jnp.int32)
        x = (self._pinv @ b) % 2
        cands = (x[None, :] + self._null_combos) % 2
        return cands[jnp.argmin(cands.sum(axis=1))].astype(jnp.bool_)

    def scripted_policy(self, key, state: LightsOutState, params):
        """Press the first cell of a minimum-weight solution (optimal play)."""
        return jnp.argmax(self.solution(state.lights)).astype(jnp.int32)


LIGHTSOUT_VARIANTS = {"easy": (5, 100), "hard": (7, 200)}

for _name, (_size, _steps) in LIGHTSOUT_VARIANTS.items():
    register(f"classics/lightsout-{_name}",
             lambda n=_name, s=_size, t=_steps: LightsOut(f"classics/lightsout-{n}", s, t))
