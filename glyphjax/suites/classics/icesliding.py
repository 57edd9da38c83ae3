"""Ice Sliding: every move slides you until the next cell is a wall or a rock; stop on the goal.

Reference (catalogue §4, §5 row 12): grid 8/10/12 *including* the wall border, rocks 6/10/15,
T = 100/150/200. As in the reference the goal does not stop you: you must come to rest on it.

Generation (pure JAX, static shapes, all randomness from one hashed `Draws`): 6 candidate layouts
are drawn at once: rocks on distinct random interior cells, the slide table `dest[cell, dir]`
(cumulative min/max of blocker positions, no loop), and the goal drawn uniformly among cells where
a slide from a resting cell ends. A BFS backwards from the goal (gather relaxation, bounded
while_loop) gives the fewest moves from every cell to come to rest on it; the start is drawn
uniformly among free cells at least max(2, ceil(max_distance / 2)) moves away, so every start is
solvable and never solved in one move. The first candidate with such a cell is used (a candidate
fails ~28% of the time, when its goal sits in a pocket); if none has one (0-3 in 5,000 seeds) a
fixed fallback is used: no rocks, start top-left, goal bottom-right (2 moves).

Reward: -1/T for each move that changes your cell, +1 (instead of the move cost) on the move that
stops you on the goal, which ends the episode. A move against an adjacent wall/rock and NO_ACTION
cost nothing (house rule; the reference charged every turn). Return in [-1, 1] by construction:
at most T moves (>= -1); a win after k moves pays 1 - (k-1)/T <= 1.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import DIR_DELTAS, DIR_NAMES, border_mask, codepoints
from glyphjax.core.registry import register
from glyphjax.core.sampling import Draws, uniform_true
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._puzzles import GLYPHS_PUZZLE, GOAL, PLAYER
from glyphjax.suites.classics.common import GLYPHS_COMMON, WALL

ICE = "░"
ROCK = "◆"
GLYPHS = {WALL: GLYPHS_COMMON[WALL], ICE: "ice (you slide over it)", ROCK: "rock (stops sliding)",
          **GLYPHS_PUZZLE}
_TABLE = codepoints(ICE + WALL + ROCK + GOAL + PLAYER)  # codes 0 ice, 1 wall, 2 rock, 3 goal, 4 you
EV_GOAL = 1
EVENTS = ("", "You stopped on the goal!")
_TRIES = 6
_FAR = 10_000


def slide_table(blocked: jax.Array) -> jax.Array:
    """int32[s*s, 4]: flat cell where a slide from each cell in each direction comes to rest: the
    cell before the first blocked cell that way, found with a cumulative min/max of the blocked
    cells' row or column numbers (no loop). Assumes a blocked outer ring."""
    s = blocked.shape[0]
    rows = jnp.broadcast_to(jnp.arange(s)[:, None], (s, s))
    cols = rows.T

    def first_after(pos, axis):  # per cell: nearest blocked position strictly after it on `axis`
        nxt = jax.lax.cummin(jnp.where(blocked, pos, s), axis=axis, reverse=True)
        return jnp.concatenate([jax.lax.slice_in_dim(nxt, 1, s, axis=axis),
                                jnp.full_like(jax.lax.slice_in_dim(nxt, 0, 1, axis=axis), s)], axis)

    def last_before(pos, axis):  # nearest blocked position strictly before it
        prv = jax.lax.cummax(jnp.where(blocked, pos, -1), axis=axis)
        return jnp.concatenate([jnp.full_like(jax.lax.slice_in_dim(prv, 0, 1, axis=axis), -1),
                                jax.lax.slice_in_dim(prv, 0, s - 1, axis=axis)], axis)

    up = (last_before(rows, 0) + 1) * s + cols
    down = (first_after(rows, 0) - 1) * s + cols
    left = rows * s + last_before(cols, 1) + 1
    right = rows * s + first_after(cols, 1) - 1
    return jnp.clip(jnp.stack([up, down, left, right], -1).reshape(s * s, 4), 0, s * s - 1)


def moves_to(dest: jax.Array, goal: jax.Array) -> jax.Array:
    """int32[s*s]: fewest moves from each cell to come to rest on flat cell `goal`."""
    n = dest.shape[0]
    dist = jnp.full((n,), _FAR, jnp.int32).at[goal].set(0)

    def cond(c):
        dist, prev, i = c
        return jnp.any(dist != prev) & (i < n)

    def body(c):
        dist, _, i = c
        return jnp.minimum(dist, dist[dest].min(axis=1) + 1), dist, i + 1

    dist, _, _ = jax.lax.while_loop(cond, body, (dist, jnp.full_like(dist, -1), jnp.int32(0)))
    return dist


@struct.dataclass
class IceState(EnvState):
    rocks: jax.Array  # bool[s, s]
    pos: jax.Array  # int32[2]
    goal: jax.Array  # int32[2]
    moves: jax.Array  # int32: moves that changed your cell


class IceSliding(Env):
    def __init__(self, task_id: str, size: int, rocks: int, max_steps: int):
        self.size, self.rocks = size, rocks
        self.card = TaskCard(
            id=task_id,
            rules=(f"Ice puzzle on a {size}x{size} board whose outer ring is wall, with {rocks} rocks. "
                   "The floor is ice: UP/DOWN/LEFT/RIGHT make you slide in that direction until the "
                   "next cell is a wall or a rock; you cannot stop on the way. Sliding over the goal "
                   "does not stop you: you must come to rest exactly on it. Reach it in as few moves "
                   "as possible. Every puzzle is solvable."),
            actions=DIR_NAMES,
            action_descriptions=tuple(f"slide {d.lower()} until hitting a wall or rock" for d in DIR_NAMES),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Moves: {moves}",
            hud_fields=("moves",),
            max_steps=max_steps,
            reward=(f"-1/{max_steps} for each move that changes your cell (a blocked move is free); "
                    "+1 on the move that stops you on the goal, which ends the episode. "
                    "Return range [-1, 1]."),
            events=EVENTS,
            success=(EV_GOAL,),
            return_range=(-1.0, 1.0),
        )

    def _border(self):
        return border_mask(self.size)

    def _candidate(self, u):
        """One random layout from uniforms u[s*s + 2] -> (rocks, start flat, goal flat, ok)."""
        s = self.size
        border = self._border()
        score = jnp.where(border.reshape(-1), -1.0, u[:s * s])
        _, idx = jax.lax.top_k(score, self.rocks)
        rocks = jnp.zeros((s * s,), jnp.bool_).at[idx].set(True).reshape(s, s)
        blocked = border | rocks
        dest = slide_table(blocked)
        free = ~blocked.reshape(-1)
        # the goal: a cell where a slide from a resting cell (itself the end of a slide) ends
        moved = free[:, None] & (dest != jnp.arange(s * s)[:, None])
        rest = jnp.zeros((s * s,), jnp.bool_).at[dest].max(moved)
        goal = uniform_true(jnp.zeros((s * s,), jnp.bool_).at[dest].max(moved & rest[:, None]), u[s * s])
        dist = moves_to(dest, goal)
        far = jnp.max(jnp.where(free & (dist < _FAR), dist, 0))
        cand = free & (dist < _FAR) & (dist >= jnp.maximum(2, (far + 1) // 2))
        return rocks, uniform_true(cand, u[s * s + 1]), goal, cand.any()

    def _reset(self, key, params):
        s = self.size
        u = Draws.hashed(key, _TRIES * (s * s + 2)).uniform((_TRIES, s * s + 2))
        rocks, start, goal, ok = jax.vmap(self._candidate)(u)
        i = jnp.argmax(ok)
        any_ok = ok.any()
        rocks = jnp.where(any_ok, rocks[i], False)
        start = jnp.where(any_ok, start[i], s + 1)
        goal = jnp.where(any_ok, goal[i], (s - 2) * s + s - 2)
        return IceState(**init_state_fields(), rocks=rocks,
                        pos=jnp.stack(jnp.divmod(start, s)).astype(jnp.int32),
                        goal=jnp.stack(jnp.divmod(goal, s)).astype(jnp.int32), moves=jnp.int32(0))

    def _step(self, key, state: IceState, action, params):
        s = self.size
        blocked = self._border() | state.rocks
        delta = DIR_DELTAS[jnp.clip(action, 0, 3)]

        def body(_, p):
            nxt = jnp.clip(p + delta, 0, s - 1)
            return jnp.where(blocked[nxt[0], nxt[1]], p, nxt)

        end = jax.lax.fori_loop(0, s - 2, body, state.pos)
        pos = jnp.where(action >= 0, end, state.pos)
        moved = jnp.any(pos != state.pos)
        won = moved & jnp.all(pos == state.goal)
        reward = jnp.where(won, 1.0, jnp.where(moved, -1.0 / self.card.max_steps, 0.0))
        return state.replace(pos=pos, moves=state.moves + moved.astype(jnp.int32)), reward, won, jnp.where(won, EV_GOAL, 0)

    def _render(self, state: IceState, params):
        codes = jnp.where(self._border(), 1, jnp.where(state.rocks, 2, 0))
        codes = codes.at[state.goal[0], state.goal[1]].set(3)
        codes = codes.at[state.pos[0], state.pos[1]].set(4)
        return _TABLE[codes], (state.moves,)

    @staticmethod
    def scripted_policy(key, state: IceState, params):
        """Optimal: the direction whose resting cell is fewest moves from the goal."""
        s = state.rocks.shape[0]
        r = jnp.arange(s)
        edge = (r == 0) | (r == s - 1)
        dest = slide_table(edge[:, None] | edge[None, :] | state.rocks)
        dist = moves_to(dest, state.goal[0] * s + state.goal[1])
        here = state.pos[0] * s + state.pos[1]
        options = jnp.where(dest[here] != here, dist[dest[here]], _FAR + 1)
        return jnp.argmin(options).astype(jnp.int32)


ICE_VARIANTS = {"easy": (8, 6, 100), "medium": (10, 10, 150), "hard": (12, 15, 200)}

for _name, (_size, _rocks, _steps) in ICE_VARIANTS.items():
    register(f"classics/icesliding-{_name}",
             lambda n=_name, s=_size, k=_rocks, t=_steps: IceSliding(f"classics/icesliding-{n}", s, k, t))
