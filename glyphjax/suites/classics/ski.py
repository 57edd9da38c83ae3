"""Ski: slalom down a 100-row slope, passing gates and dodging trees and rocks.

Reference rules (catalogue §5 row 25): 15-wide, 20-tall scrolling view; LEFT/RIGHT/NOOP; 100 rows;
T 100. Scrolling convention: you stay in view row 3 (3 rows of slope above you, 16 below) and
the slope scrolls up one row per turn as you ski down; the HUD says which slope row you are on.
Each turn you move one row down and, with LEFT/RIGHT, one column sideways (the screen edges stop
you). A gate every 5 rows (rows 5, 10, ..., 100: 20 gates) is a 3-cell opening between two flag
posts. Trees, rocks and flag posts are obstacles. Row 100 is the finish. Generation carves a
clear path through every gate opening (gate centres at most 3 columns apart), so every course
can be finished with all gates.
Reward: +1/20 per gate passed through; hitting an obstacle ends the episode and pays -1 minus
everything earned so far (return exactly -1; `_arcade.death_penalty`). Range [-1, 1].
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import codepoints
from glyphjax.core.registry import register
from glyphjax.core.sampling import Draws
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._arcade import death_penalty, view_window
from glyphjax.suites.classics.common import EMPTY_SPACE, GLYPHS_ARCADE, PLAYER

W, VIEW_H = 15, 20
ROWS = 100
GATE_EVERY, N_GATES, GATE_W = 5, 20, 3
SKIER_VIEW_ROW = 3
PAD_TOP = SKIER_VIEW_ROW
WORLD_H = PAD_TOP + ROWS + VIEW_H  # padded course rows
TREE, ROCK, FLAG, GATE_GAP = "↟", "⬟", "⚑", "┈"
GLYPHS = {**GLYPHS_ARCADE, TREE: "tree", ROCK: "rock", FLAG: "gate flag post",
          GATE_GAP: "gate opening (pass through it)"}
ACTIONS = ("LEFT", "RIGHT", "NOOP")
EV_GATE, EV_CRASH, EV_FINISH, EV_MISS = 1, 2, 3, 4
EVENTS = ("", "You passed through a gate.", "You hit an obstacle. Game over.",
          "You crossed the finish line.", "You missed a gate.")
# cell codes of the course: 0 snow, 1 tree, 2 rock, 3 flag, 4 gate opening; 5 = skier (render)
_TABLE = codepoints(EMPTY_SPACE + TREE + ROCK + FLAG + GATE_GAP + PLAYER)


@struct.dataclass
class SkiState(EnvState):
    course: jax.Array  # int8[WORLD_H, W]; course row y is array row y + PAD_TOP
    row: jax.Array  # int32 slope row of the skier (0..100)
    col: jax.Array  # int32
    gates: jax.Array  # int32 gates passed
    earned: jax.Array  # float32


def generate_course(key: jax.Array) -> jax.Array:
    rnd = Draws.hashed(key, N_GATES + 2 * WORLD_H * W)  # no Threefry (compile time)
    deltas = rnd.randint(-3, 4, (N_GATES,))
    centres = jnp.clip(W // 2 + jnp.cumsum(deltas), 2, W - 3)  # opening = centre-1..centre+1
    centres_all = jnp.concatenate([jnp.array([W // 2]), centres])
    y = jnp.arange(WORLD_H) - PAD_TOP  # slope row of each array row
    seg = jnp.clip(y // GATE_EVERY, 0, N_GATES - 1)
    frac = (y - seg * GATE_EVERY).astype(jnp.float32) / GATE_EVERY
    a = centres_all[seg].astype(jnp.float32)
    b = centres_all[jnp.minimum(seg + 1, N_GATES)].astype(jnp.float32)
    path = jnp.round(a + (b - a) * frac).astype(jnp.int32)
    cols = jnp.arange(W)[None, :]
    near_path = jnp.abs(cols - path[:, None]) <= 1
    u = rnd.uniform((WORLD_H, W))
    kind = jnp.where(rnd.bernoulli(0.5, (WORLD_H, W)), 1, 2)
    on_slope = (y >= 2) & (y < ROWS)
    course = jnp.where(on_slope[:, None] & ~near_path & (u < 0.12), kind, 0)
    is_gate = (y >= GATE_EVERY) & (y <= ROWS) & (y % GATE_EVERY == 0)
    gcent = centres_all[jnp.clip(y // GATE_EVERY, 0, N_GATES)]
    dist = jnp.abs(cols - gcent[:, None])
    gate_row = jnp.where(dist <= 1, 4, jnp.where(dist == 2, 3, 0))
    course = jnp.where(is_gate[:, None], gate_row, course)
    return course.astype(jnp.int8)


class Ski(Env):
    def __init__(self, task_id: str = "classics/ski", max_steps: int = 100):
        self.card = TaskCard(
            id=task_id,
            rules=(f"Downhill slalom on a {ROWS}-row slope, {W} columns wide. The grid is a "
                   f"{W}x{VIEW_H} window that scrolls with you: you are always in row "
                   f"{SKIER_VIEW_ROW} of the window and the slope moves up one row per turn as you "
                   "ski down. Each turn you go one row down and LEFT/RIGHT also move you one "
                   f"column sideways. Every {GATE_EVERY} rows there is a gate: pass through its "
                   f"{GATE_W}-cell opening between two flag posts. Trees, rocks and flag posts are "
                   f"obstacles: hitting one ends the run. Row {ROWS} is the finish."),
            actions=ACTIONS,
            action_descriptions=("ski down and one column left", "ski down and one column right",
                                 "ski straight down"),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Slope row: {row} / " + str(ROWS) + "    Gates passed: {gates} / " + str(N_GATES),
            hud_fields=("row", "gates"),
            max_steps=max_steps,
            reward=(f"+1/{N_GATES} for each gate passed through. Hitting an obstacle ends the run "
                    "and pays -1 minus everything earned so far (the return is then exactly -1). "
                    "Return range [-1, 1]."),
            events=EVENTS,
            success=(EV_FINISH,),
        )

    def _reset(self, key, params):
        return SkiState(**init_state_fields(), course=generate_course(key), row=jnp.int32(0),
                        col=jnp.int32(W // 2), gates=jnp.int32(0), earned=jnp.float32(0))

    def _step(self, key, state: SkiState, action, params):
        dc = jnp.where(action == 0, -1, jnp.where(action == 1, 1, 0))
        col = jnp.clip(state.col + dc, 0, W - 1)
        row = state.row + 1
        cell = state.course[row + PAD_TOP, col]
        crash = (cell == 1) | (cell == 2) | (cell == 3)
        gate = cell == 4
        is_gate_row = (row % GATE_EVERY == 0)
        finish = ~crash & (row >= ROWS)
        gain = jnp.where(gate, 1.0 / N_GATES, 0.0)
        reward = jnp.where(crash, death_penalty(state.earned), gain)
        event = jnp.select([crash, finish, gate, is_gate_row], [EV_CRASH, EV_FINISH, EV_GATE, EV_MISS], 0)
        nxt = state.replace(row=row, col=col, gates=state.gates + gate.astype(jnp.int32),
                            earned=state.earned + jnp.where(crash, 0.0, gain))
        return nxt, reward, crash | finish, event

    def _render(self, state: SkiState, params):
        window = view_window(state.course.astype(jnp.int32), state.row + PAD_TOP - SKIER_VIEW_ROW, VIEW_H, axis=0)
        window = window.at[SKIER_VIEW_ROW, state.col].set(5)
        return _TABLE[window], (state.row, state.gates)

    @staticmethod
    def scripted_policy(key, state: SkiState, params):
        """Steer toward the next gate opening; avoid an obstacle straight ahead."""
        nxt_gate_row = (state.row // GATE_EVERY + 1) * GATE_EVERY
        gate_cells = state.course[jnp.minimum(nxt_gate_row, ROWS) + PAD_TOP] == 4
        centre = jnp.argmax(gate_cells) + 1
        below = state.course[state.row + 1 + PAD_TOP]
        cols = state.col + jnp.array([-1, 1, 0])
        ok = (below[jnp.clip(cols, 0, W - 1)] == 0) | (below[jnp.clip(cols, 0, W - 1)] == 4)
        ok = ok & (cols >= 0) & (cols < W)
        score = jnp.where(ok, -jnp.abs(cols - centre).astype(jnp.float32), -100.0)
        return jnp.argmax(score).astype(jnp.int32)


register("classics/ski", lambda: Ski())
