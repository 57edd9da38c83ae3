"""Mirror Laser: toggle mirrors between / and \\ so the laser beam reaches the target.

Reference (catalogue §5 row 19): 7x7, ROTATE_i (i = row * 7 + col) toggles the mirror on cell i,
T = 200. The emitter sits on the left edge and fires right; the beam reflects off mirrors
('/' turns right<->up and left<->down, '\\' turns right<->down and left<->up), passes through
empty cells and stops at the board edge or the emitter. The grid draws the beam's current path.

Generation (solvable by construction, never solved at the start; all randomness from one hashed
`Draws` call): 6 candidate layouts are drawn at once, each with 10 mirrors of random orientation
on random cells (none in column 0) and the emitter in the row of one of them; the beam is traced
and the target is put on a random empty beam cell reached after the most reflections. The
mirrors are then scrambled: the one the beam meets first is always flipped, the others with
probability 1/2; a candidate is valid if its target needs >= 1 reflection and the scrambled board
does not already hit it (the original orientations are a solution; ~84% of candidates are valid).
Among the 6 candidates the one with the most reflections before the target (capped at 2) is used;
if none is valid a fixed layout is used (emitter row 3, one mirror at (3, 3) showing '\\' that
must become '/', target at (0, 3)).

Reward: +1 when the beam hits the target, which ends the episode; nothing else. Return in [0, 1].
ROTATE on a cell without a mirror and NO_ACTION are no-ops.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import DIR_DELTAS, codepoints
from glyphjax.core.registry import register
from glyphjax.core.sampling import Draws, uniform_true
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics.common import FLOOR, cell_actions

EMITTER = "☼"
TARGET = "⌖"
SLASH, BACKSLASH = "/", "\\"
BEAM_H, BEAM_V, BEAM_X = "─", "│", "┼"
GLYPHS = {FLOOR: "empty floor", EMITTER: "laser emitter (fires right)", TARGET: "laser target",
          SLASH: "mirror /", BACKSLASH: "mirror \\", BEAM_H: "laser beam (horizontal)",
          BEAM_V: "laser beam (vertical)", BEAM_X: "laser beams crossing"}
# codes: 0 floor, 1 emitter, 2 target, 3 '/', 4 '\', 5 beam h, 6 beam v, 7 beams crossing
_TABLE = codepoints(FLOOR + EMITTER + TARGET + SLASH + BACKSLASH + BEAM_H + BEAM_V + BEAM_X)
EV_HIT = 1
EVENTS = ("", "The laser hits the target. Solved!")
# new direction after a mirror, indexed [mirror - 1, direction] (UP, DOWN, LEFT, RIGHT)
_REFLECT = jnp.array([[3, 2, 1, 0],   # '/'
                      [2, 3, 0, 1]], jnp.int32)  # '\'
_CANDIDATES = 6


def trace(mirrors: jax.Array, emitter_row: jax.Array, target: jax.Array):
    """Follow the beam. Returns (hit, horizontal bool[n,n], vertical bool[n,n],
    reflections-at-first-visit int32[n,n] (-1 = not on the beam)).

    One beam cell per pass of a `while_loop` that ends when the beam does (under vmap: the longest
    beam of the batch), at most 4*n*n + 1 passes (each cell entered at most once per direction).
    The cell is a one-hot mask over the n*n cells, so reading the mirror and marking the path are
    elementwise (no gathers or scatters)."""
    n = mirrors.shape[0]
    flat = mirrors.reshape(-1)
    cells = jnp.arange(n * n)

    def body(c):
        i, r, col, d, alive, hit, refl, horiz, vert, first = c
        nr, nc = r + DIR_DELTAS[d, 0], col + DIR_DELTAS[d, 1]
        inside = (nr >= 0) & (nr < n) & (nc >= 0) & (nc < n)
        go = alive & inside & ~((nc == 0) & (nr == emitter_row))  # the emitter stops the beam
        here = go & (cells == nr * n + nc)
        m = jnp.sum(jnp.where(here, flat, 0))
        on_target = go & (nr == target[0]) & (nc == target[1])
        horiz = horiz | (here & (m == 0) & (d >= 2))
        vert = vert | (here & (m == 0) & (d < 2))
        first = jnp.where(here & (first < 0), refl, first)
        turn = go & (m > 0)
        d = jnp.where(turn, _REFLECT[jnp.clip(m - 1, 0, 1), d], d)
        refl = refl + turn.astype(jnp.int32)
        return (i + 1, nr, nc, d, go & ~on_target, hit | on_target, refl, horiz, vert, first)

    z = jnp.zeros((n * n,), jnp.bool_)
    init = (jnp.int32(0), emitter_row, jnp.int32(0), jnp.int32(3), jnp.bool_(True), jnp.bool_(False),
            jnp.int32(0), z, z, jnp.full((n * n,), -1, jnp.int32))
    out = jax.lax.while_loop(lambda c: c[4] & (c[0] < 4 * n * n + 1), body, init)
    hit, horiz, vert, first = out[5], out[7], out[8], out[9]
    return hit, horiz.reshape(n, n), vert.reshape(n, n), first.reshape(n, n)


@struct.dataclass
class LaserState(EnvState):
    mirrors: jax.Array  # int32[n, n]: 0 none, 1 '/', 2 '\'
    emitter_row: jax.Array  # int32 (the emitter is at column 0)
    target: jax.Array  # int32[2]


class MirrorLaser(Env):
    def __init__(self, task_id: str, size: int, mirrors: int, max_steps: int):
        self.size, self.num_mirrors = size, mirrors
        actions, descriptions = cell_actions(
            "ROTATE", size, "toggle the mirror at row {row}, column {col} (no effect if there is none)")
        self.card = TaskCard(
            id=task_id,
            rules=(f"A {size}x{size} board with a laser emitter on the left edge that fires to the right, "
                   f"{mirrors} two-sided mirrors and a target. The beam goes straight through empty cells "
                   "and turns at mirrors: '/' sends a beam moving right upward (and up->right, "
                   "left->down, down->left); '\\' sends a beam moving right downward (and down->right, "
                   "left->up, up->left). It stops at the board edge. ROTATE_i toggles the mirror on cell "
                   f"i (i = row * {size} + column, numbered from 0 as labelled around the grid) between / "
                   "and \\. The grid shows the beam's current path. Make the beam hit the target. "
                   "Every puzzle is solvable."),
            actions=actions,
            action_descriptions=descriptions,
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}",
            hud_fields=(),
            max_steps=max_steps,
            reward="+1 when the beam hits the target, which ends the episode; 0 otherwise. Return range [0, 1].",
            events=EVENTS,
            success=(EV_HIT,),
            return_range=(0.0, 1.0),
            grid_labels=True,
        )

    def _candidate(self, u):
        """One layout from uniforms u[n*n + 2*mirrors + 1] -> (scrambled mirrors, emitter row,
        target, quality: reflections before the target capped at 2, -1 if unusable)."""
        n, k = self.size, self.num_mirrors
        col0 = jnp.arange(n * n) % n == 0
        _, cells = jax.lax.top_k(jnp.where(col0, -1.0, u[:n * n]), k)  # no mirror in column 0
        row = (cells[0] // n).astype(jnp.int32)  # the emitter's row holds a mirror
        orient = 1 + (u[n * n:n * n + k] < 0.5).astype(jnp.int32)
        mirrors = jnp.zeros((n * n,), jnp.int32).at[cells].set(orient).reshape(n, n)
        _, _, _, first = trace(mirrors, row, jnp.array([-1, -1], jnp.int32))
        # scramble: the mirror the beam meets first is always flipped, the others at random
        flip = (u[n * n + k:n * n + 2 * k] < 0.5) | (first.reshape(-1)[cells] == 0)
        scrambled = jnp.zeros((n * n,), jnp.int32).at[cells].set(jnp.where(flip, 3 - orient, orient))
        empty_on_beam = (first >= 0) & (mirrors == 0)
        best = jnp.max(jnp.where(empty_on_beam, first, -1))
        cand = (empty_on_beam & (first == best)).reshape(-1)
        t = uniform_true(cand, u[-1])
        target = jnp.stack([t // n, t % n]).astype(jnp.int32)
        scrambled = scrambled.reshape(n, n)
        hit_scrambled, _, _, _ = trace(scrambled, row, target)
        quality = jnp.where(hit_scrambled, -1, jnp.minimum(best, 2))  # >= 1 reflection needed
        return scrambled, row, target, quality

    def _reset(self, key, params):
        n = self.size
        m = n * n + 2 * self.num_mirrors + 1
        u = Draws.hashed(key, _CANDIDATES * m).uniform((_CANDIDATES, m))
        mirrors, rows, targets, quality = jax.vmap(self._candidate)(u)
        i = jnp.argmax(quality)
        fallback = jnp.zeros((n, n), jnp.int32).at[3, 3].set(2)
        good = quality[i] >= 1
        return LaserState(**init_state_fields(),
                          mirrors=jnp.where(good, mirrors[i], fallback),
                          emitter_row=jnp.where(good, rows[i], 3).astype(jnp.int32),
                          target=jnp.where(good, targets[i], jnp.array([0, 3], jnp.int32)))

    def _step(self, key, state: LaserState, action, params):
        n = self.size
        a = jnp.clip(action, 0, n * n - 1)
        r, c = a // n, a % n
        m = state.mirrors[r, c]
        toggle = (action >= 0) & (m > 0)
        mirrors = state.mirrors.at[r, c].set(jnp.where(toggle, 3 - m, m))
        hit, _, _, _ = trace(mirrors, state.emitter_row, state.target)
        return state.replace(mirrors=mirrors), jnp.where(hit, 1.0, 0.0), hit, jnp.where(hit, EV_HIT, 0)

    def _render(self, state: LaserState, params):
        _, horiz, vert, _ = trace(state.mirrors, state.emitter_row, state.target)
        codes = jnp.where(horiz & vert, 7, jnp.where(horiz, 5, jnp.where(vert, 6, 0)))
        codes = jnp.where(state.mirrors > 0, 2 + state.mirrors, codes)
        codes = codes.at[state.target[0], state.target[1]].set(2)
        codes = codes.at[state.emitter_row, 0].set(1)
        return _TABLE[codes], ()


register("classics/mirrorlaser", lambda: MirrorLaser("classics/mirrorlaser", 7, 10, 200))
