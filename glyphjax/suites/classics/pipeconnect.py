"""Pipe Connect: rotate pipe tiles so water can flow from the source to the drain.

Reference (catalogue §4, §5 row 22): grid 5/7/9, ROTATE_i (i = row * n + col) turns the pipe on
cell i by 90 degrees clockwise, T = 100/200/300, +1 when source and drain are connected.

Here the source sits in the top-left cell and the drain in the bottom-right cell; both are fixed
and open on all four sides. Every other cell holds a straight, elbow or T pipe. Two neighbouring
cells are joined when both are open towards each other; the puzzle is solved when the drain is
joined to the source through a chain of joins.

Generation (solvable by construction): a randomized depth-first spanning tree of the n x n cells
(`_puzzles.dfs_spanning_tree`) gives a unique path from source to drain; each cell on it gets
the straight or elbow pipe that follows the path, every other cell a random straight/elbow/T
pipe. Every tile is then rotated at random; 8 such scrambles are drawn and the first one that is
not already connected is used (rotating the path tiles back solves it).

Reward: +1 when the source and the drain become connected, which ends the episode; nothing
else. Return in [0, 1]. ROTATE on the source or drain and NO_ACTION are no-ops.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import CLOCKWISE, DIR_OFFSETS, codepoint, codepoints, shift
from glyphjax.core.registry import register
from glyphjax.core.sampling import Draws
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._puzzles import dfs_spanning_tree
from glyphjax.suites.classics.common import cell_actions

# openings as bits in clockwise order: UP 1, RIGHT 2, DOWN 4, LEFT 8
_BIT_DELTA = tuple(DIR_OFFSETS[d] for d in CLOCKWISE)
SOURCE = "⊛"
DRAIN = "⊘"
_PIPE_CHARS = {5: "┃", 10: "━", 3: "┗", 6: "┏", 12: "┓", 9: "┛", 7: "┣", 14: "┳", 13: "┫", 11: "┻"}
_SIDES = {1: "up", 2: "right", 4: "down", 8: "left"}
GLYPHS = {SOURCE: "water source (fixed, open on all four sides)",
          DRAIN: "drain (fixed, open on all four sides): join it to the source"}
for _m, _ch in _PIPE_CHARS.items():
    _open = [_SIDES[b] for b in (1, 2, 4, 8) if _m & b]
    GLYPHS[_ch] = "pipe open " + ", ".join(_open[:-1]) + " and " + _open[-1]
# code point per opening mask (15 = source/drain drawn separately)
_MASK_TABLE = codepoints("".join(_PIPE_CHARS.get(m, SOURCE) for m in range(16)))
EV_CONNECTED = 1
EVENTS = ("", "Water flows from the source to the drain. Solved!")
_SCRAMBLES = 8
_TILE_MASKS = jnp.array([5, 3, 7], jnp.int32)  # straight, elbow, T (rotation 0)


def rotate_cw(mask: jax.Array, k: jax.Array | int = 1) -> jax.Array:
    """Openings after k clockwise quarter turns (UP->RIGHT->DOWN->LEFT->UP)."""
    k = jnp.asarray(k) % 4
    return ((mask << k) | (mask >> (4 - k))) & 15


def connected_region(masks: jax.Array) -> jax.Array:
    """bool[n, n]: cells joined to the source (top-left) through mutually open sides."""
    links = []
    for b, (dr, dc) in enumerate(_BIT_DELTA):
        opp = (b + 2) % 4
        here = (masks >> b) & 1 == 1
        there = shift((masks >> opp) & 1 == 1, -dr, -dc)  # neighbour's opposite opening, aligned here
        links.append((here & there, dr, dc))
    seed = jnp.zeros(masks.shape, jnp.bool_).at[0, 0].set(True)

    def cond(c):
        reached, prev, i = c
        return (reached.sum() != prev) & (i < masks.size)

    def body(c):
        reached, _, i = c
        new = reached
        for link, dr, dc in links:
            new = new | shift(reached & link, dr, dc)
        return new, reached.sum(), i + 1

    reached, _, _ = jax.lax.while_loop(cond, body, (seed, jnp.int32(-1), jnp.int32(0)))
    return reached


def _tree_distance(right: jax.Array, down: jax.Array, start: jax.Array) -> jax.Array:
    """Distances along the spanning tree from the bool mask `start` (Bellman-Ford relaxation)."""
    n = right.shape[0]
    big = 10_000
    dist = jnp.where(start, 0, big).astype(jnp.int32)

    def body(_, d):
        from_left = jnp.where(shift(right, 0, 1), shift(d, 0, 1, big), big)
        from_right = jnp.where(right, shift(d, 0, -1, big), big)
        from_up = jnp.where(shift(down, 1, 0), shift(d, 1, 0, big), big)
        from_down = jnp.where(down, shift(d, -1, 0, big), big)
        best = jnp.minimum(jnp.minimum(from_left, from_right), jnp.minimum(from_up, from_down))
        return jnp.minimum(d, best + 1)

    return jax.lax.fori_loop(0, n * n, body, dist)


@struct.dataclass
class PipeState(EnvState):
    masks: jax.Array  # int32[n, n]: opening bits per cell (15 at source and drain)


class PipeConnect(Env):
    def __init__(self, task_id: str, size: int, max_steps: int):
        self.size = size
        actions, descriptions = cell_actions("ROTATE", size, "rotate the pipe at row {row}, column {col} clockwise")
        self.card = TaskCard(
            id=task_id,
            rules=(f"A {size}x{size} board of pipe tiles. The water source is the top-left cell and the "
                   "drain the bottom-right cell; both are fixed and open on all four sides. Every other "
                   "cell holds a straight, elbow or T pipe. ROTATE_i turns the pipe on cell i (i = row * "
                   f"{size} + column, numbered from 0 as labelled around the grid) 90 degrees clockwise. "
                   "Two neighbouring cells are joined when both are open towards each other. Join the "
                   "drain to the source through a chain of joined pipes. Every puzzle is solvable."),
            actions=actions,
            action_descriptions=descriptions,
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Cells joined to the source: {joined}",
            hud_fields=("joined",),
            max_steps=max_steps,
            reward="+1 when the drain is joined to the source, which ends the episode; 0 otherwise. "
                   "Return range [0, 1].",
            events=EVENTS,
            success=(EV_CONNECTED,),
            return_range=(0.0, 1.0),
            grid_labels=True,
        )

    def _fixed(self):
        n = self.size
        return jnp.zeros((n, n), jnp.bool_).at[0, 0].set(True).at[n - 1, n - 1].set(True)

    def _reset(self, key, params):
        n = self.size
        rnd = Draws.hashed(key, (2 * n * n - 1) * 4 + (2 + _SCRAMBLES) * n * n)  # no Threefry (compile time)
        right, down = dfs_spanning_tree(None, n, n, u=rnd.uniform((2 * n * n - 1, 4)))
        corner = jnp.zeros((n, n), jnp.bool_).at[0, 0].set(True)
        # distances from the source and from the drain in one loop
        d_src, d_dst = jax.vmap(lambda start: _tree_distance(right, down, start))(
            jnp.stack([corner, corner[::-1, ::-1]]))
        on_path = d_src + d_dst == d_src[n - 1, n - 1]
        # openings a path cell needs: tree edges to path neighbours
        need = ((shift(down, 1, 0) & shift(on_path, 1, 0)).astype(jnp.int32) * 1
                + (right & shift(on_path, 0, -1)).astype(jnp.int32) * 2
                + (down & shift(on_path, -1, 0)).astype(jnp.int32) * 4
                + (shift(right, 0, 1) & shift(on_path, 0, 1)).astype(jnp.int32) * 8)
        kind = rnd.randint(0, 3, (n, n))
        decoy = rotate_cw(_TILE_MASKS[kind], rnd.randint(0, 4, (n, n)))
        solved = jnp.where(on_path, need, decoy)
        solved = jnp.where(self._fixed(), 15, solved)

        turns = rnd.randint(0, 4, (_SCRAMBLES, n, n))

        def scramble(j):
            return jnp.where(self._fixed(), 15, rotate_cw(solved, turns[j]))

        # try the scrambles in order and keep the first that is not connected: a loop over one
        # connectivity test (compiles far smaller than testing all of them side by side)
        def body(c):
            j, _ = c
            return j + 1, connected_region(scramble(j + 1))[n - 1, n - 1]

        j, conn = jax.lax.while_loop(lambda c: c[1] & (c[0] < _SCRAMBLES - 1), body,
                                     (jnp.int32(-1), jnp.bool_(True)))
        return PipeState(**init_state_fields(), masks=scramble(jnp.where(conn, 0, j)))

    def _step(self, key, state: PipeState, action, params):
        n = self.size
        a = jnp.clip(action, 0, n * n - 1)
        r, c = a // n, a % n
        turn = (action >= 0) & ~self._fixed()[r, c]
        masks = state.masks.at[r, c].set(jnp.where(turn, rotate_cw(state.masks[r, c]), state.masks[r, c]))
        done = connected_region(masks)[n - 1, n - 1]
        return state.replace(masks=masks), jnp.where(done, 1.0, 0.0), done, jnp.where(done, EV_CONNECTED, 0)

    def _render(self, state: PipeState, params):
        n = self.size
        grid = _MASK_TABLE[state.masks]
        grid = grid.at[0, 0].set(codepoint(SOURCE)).at[n - 1, n - 1].set(codepoint(DRAIN))
        return grid, (connected_region(state.masks).sum(),)


PIPE_VARIANTS = {"easy": (5, 100), "medium": (7, 200), "hard": (9, 300)}

for _name, (_size, _steps) in PIPE_VARIANTS.items():
    register(f"classics/pipeconnect-{_name}",
             lambda n=_name, s=_size, t=_steps: PipeConnect(f"classics/pipeconnect-{n}", s, t))
