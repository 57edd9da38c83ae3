"""Rush Hour: slide vehicles along their axis to free your car X through the exit on its row.

Reference (catalogue §5 row 24): 6x6 board, 4 / 8 other vehicles, T = 100 / 200,
MOVE_<V>_FWD/BACK per vehicle. Here the board is drawn inside a wall ring (8x8) with the exit
gap ⌧ on the right wall of the exit row (board row 2). Your car X is horizontal, length 2, on the
exit row; the other vehicles A, B, ... are cars (length 2) or trucks (length 3), horizontal or
vertical. Each action slides one vehicle one cell: FWD = right (horizontal) / down (vertical),
BACK = left / up. A move into a wall or another vehicle is a free no-op. You win when X's front
reaches the right edge (X on board columns 4-5, next to the exit); the episode then ends.
Actions: MOVE_X_FWD, MOVE_X_BACK, MOVE_A_FWD, MOVE_A_BACK, ... (2 * (1 + n) actions, fixed per
task; the reference named the player car PLAYER and had a NOOP action, we use NO_ACTION = -1).

Generation (pure JAX, static shapes): 8 candidates vmapped. Each places X at column 0 of the exit
row and the other vehicles one by one at random legal spots that leave the exit row empty (random
orientation, truck with probability 0.3); if a vehicle finds no spot (0 of 8,000 candidates
observed per task), the candidate uses a fixed layout of vertical cars off the exit row. With the
exit row empty, X can drive out: the layout is solvable. Then a bounded fori_loop of random legal
moves (any vehicle, except that X may never reach column 4) scrambles it. Moves are reversible, so
every scrambled state is still solvable, and X is never at column 4, so it is never already
solved. The candidate with the most vehicles between X and the exit (then X farthest left) is
kept. Certified by a host BFS in tests/suites/classics/test_rushhour.py on 1,000 seeds per task:
all solvable in >= 1 move, mean optimum 4.89 (easy) / 6.26 (hard) moves. The scripted heuristic
solves 97.5% / 83% of 200 seeds.

Reward: -1/T for each action that moves a vehicle; +1 (instead of the move cost) on the move that
brings X to the exit, which ends the episode. Blocked moves and NO_ACTION cost nothing (house
rule, as in maze/icesliding). Return in [-1, 1] by construction: at most T moves (>= -1); a win
after k moves pays 1 - (k-1)/T <= 1.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import codepoint, codepoints, glyph_grid, shift
from glyphjax.core.registry import register
from glyphjax.core.sampling import Draws
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._arcade import EXIT
from glyphjax.suites.classics.common import FLOOR, GLYPHS_COMMON, WALL

SIZE = 6
EXIT_ROW = 2  # board row of the exit (grid row 3 inside the wall ring)
WIN_COL = SIZE - 2  # X's left cell when its front touches the right edge
LETTERS = "XABCDEFGH"
GLYPHS = {WALL: GLYPHS_COMMON[WALL], FLOOR: GLYPHS_COMMON[FLOOR], EXIT: "exit",
          "X": "your car (drive it out through the exit)",
          **{c: f"vehicle {c}" for c in LETTERS[1:]}}
_CANDIDATES = 8
_TRUCK_P = 0.3
EV_EXIT = 1
EVENTS = ("", "Your car drove out through the exit!")


def occupancy(pos: jax.Array, length: jax.Array, horiz: jax.Array) -> jax.Array:
    """int32[SIZE, SIZE]: index of the vehicle on each board cell, -1 where empty."""
    n = pos.shape[0]
    k = jnp.arange(3, dtype=jnp.int32)
    rows = pos[:, 0:1] + jnp.where(horiz[:, None], 0, k[None])
    cols = pos[:, 1:2] + jnp.where(horiz[:, None], k[None], 0)
    valid = k[None] < length[:, None]
    flat = jnp.where(valid, rows * SIZE + cols, SIZE * SIZE)  # out of range -> dropped
    ids = jnp.broadcast_to(jnp.arange(n, dtype=jnp.int32)[:, None], flat.shape)
    occ = jnp.full((SIZE * SIZE,), -1, jnp.int32).at[flat.reshape(-1)].set(ids.reshape(-1), mode="drop")
    return occ.reshape(SIZE, SIZE)


def try_move(pos, length, horiz, v, fwd):
    """(new pos, moved): slide vehicle v one cell forward (right/down) or back if that cell is free."""
    occ = occupancy(pos, length, horiz)
    p = pos[v]
    step = jnp.where(fwd, 1, -1)
    along = jnp.where(horiz[v], p[1], p[0])
    target = jnp.where(fwd, along + length[v], along - 1)
    inside = (target >= 0) & (target < SIZE)
    t = jnp.clip(target, 0, SIZE - 1)
    cell = jnp.where(horiz[v], occ[p[0], t], occ[t, p[1]])
    ok = inside & (cell < 0)
    new_p = jnp.where(horiz[v], p + jnp.array([0, 1]) * step, p + jnp.array([1, 0]) * step)
    return pos.at[v].set(jnp.where(ok, new_p, p)), ok


@struct.dataclass
class RushState(EnvState):
    pos: jax.Array  # int32[n, 2]: board (row, col) of each vehicle's top/left cell; 0 = X
    length: jax.Array  # int32[n]: 2 car, 3 truck
    horiz: jax.Array  # bool[n]
    moves: jax.Array  # int32: actions that moved a vehicle


class RushHour(Env):
    def __init__(self, task_id: str, others: int, max_steps: int, scramble: int):
        if not 1 <= others <= len(LETTERS) - 1:
            raise ValueError(f"{task_id}: {others} other vehicles; use 1..{len(LETTERS) - 1}")
        self.n = 1 + others
        self.scramble = scramble
        names = LETTERS[:self.n]
        actions, descs = [], []
        for c in names:
            who = "your car X" if c == "X" else f"vehicle {c}"
            actions += [f"MOVE_{c}_FWD", f"MOVE_{c}_BACK"]
            descs += [f"slide {who} one cell right (if horizontal) or down (if vertical)",
                      f"slide {who} one cell left (if horizontal) or up (if vertical)"]
        self.card = TaskCard(
            id=task_id,
            rules=(f"Rush Hour on a {SIZE}x{SIZE} parking lot inside a wall ring. Your car X (length 2) "
                   f"lies horizontally on the row with the exit ⌧ in the right wall; {others} other "
                   "vehicles (cars of length 2, trucks of length 3, letters A, B, ...) lie horizontally "
                   "or vertically. Each action slides one vehicle one cell along its own axis: FWD = "
                   "right or down, BACK = left or up. Vehicles cannot turn, pass each other or leave "
                   "the lot; a blocked move does nothing. Clear the way and drive X to the right edge "
                   "(next to the exit) in as few moves as possible. Every puzzle is solvable."),
            actions=tuple(actions),
            action_descriptions=tuple(descs),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Moves: {moves}",
            hud_fields=("moves",),
            max_steps=max_steps,
            reward=(f"-1/{max_steps} for each action that moves a vehicle (a blocked move or no "
                    "action is free); +1 instead on the move that brings your car X to the exit, "
                    "which ends the episode. Return range [-1, 1]."),
            events=EVENTS,
            success=(EV_EXIT,),
            return_range=(-1.0, 1.0),
        )

    # ---------------------------------------------------------------- generation
    def _fallback(self):
        """Vertical cars off the exit row: columns 0..5 of rows 0-1, then of rows 3-4."""
        i = jnp.arange(self.n - 1, dtype=jnp.int32)
        others = jnp.stack([jnp.where(i < SIZE, 0, 3), i % SIZE], -1)
        pos = jnp.concatenate([jnp.array([[EXIT_ROW, 0]], jnp.int32), others])
        return pos, jnp.full((self.n,), 2, jnp.int32), jnp.zeros((self.n,), jnp.bool_).at[0].set(True)

    def _place(self, u_place):
        """X at (EXIT_ROW, 0); other vehicles at random spots off the exit row -> (pos, len, horiz, ok).
        u_place float32[n - 1, 4, SIZE, SIZE]: the uniforms of each vehicle's spot choice."""
        n = self.n
        r = jnp.arange(SIZE, dtype=jnp.int32)
        # options: (horizontal?, length) x top-left cell
        cfg_h = jnp.array([True, True, False, False])
        cfg_l = jnp.array([2, 3, 2, 3], jnp.int32)
        cfg_w = jnp.array([1 - _TRUCK_P, _TRUCK_P, 1 - _TRUCK_P, _TRUCK_P])

        def fits(free):
            """bool[4, SIZE, SIZE]: top-left cells where each option fits on free cells (static
            shifts, no gathers: compile time)."""
            h1, v1 = shift(free, 0, -1, False), shift(free, -1, 0, False)  # cell to the right / below
            h2, v2 = shift(free, 0, -2, False), shift(free, -2, 0, False)
            return jnp.stack([free & h1, free & h1 & h2, free & v1, free & v1 & v2])

        def body(i, carry):
            pos, length, horiz, free, ok_all = carry
            masks = fits(free)  # [4, SIZE, SIZE]
            u = u_place[i - 1] * cfg_w[:, None, None]
            score = jnp.where(masks, u, -1.0).reshape(-1)
            j = jnp.argmax(score)
            ok = score[j] >= 0
            c, cell = j // (SIZE * SIZE), j % (SIZE * SIZE)
            p = jnp.stack([cell // SIZE, cell % SIZE]).astype(jnp.int32)
            pos, length, horiz = pos.at[i].set(p), length.at[i].set(cfg_l[c]), horiz.at[i].set(cfg_h[c])
            rows_used = jnp.where(cfg_h[c], 1, cfg_l[c])
            cols_used = jnp.where(cfg_h[c], cfg_l[c], 1)
            cover = ((r[:, None] >= p[0]) & (r[:, None] < p[0] + rows_used)
                     & (r[None, :] >= p[1]) & (r[None, :] < p[1] + cols_used))
            free = free & ~(cover & ok)
            return pos, length, horiz, free, ok_all & ok

        free = jnp.ones((SIZE, SIZE), jnp.bool_).at[EXIT_ROW].set(False)  # exit row stays clear
        pos = jnp.zeros((n, 2), jnp.int32).at[0].set(jnp.array([EXIT_ROW, 0]))
        length = jnp.full((n,), 2, jnp.int32)
        horiz = jnp.zeros((n,), jnp.bool_).at[0].set(True)
        pos, length, horiz, _, ok = jax.lax.fori_loop(1, n, body, (pos, length, horiz, free, jnp.bool_(True)))
        return pos, length, horiz, ok

    def _candidate(self, u_place, u_moves):
        """One candidate from its uniforms (placement [n - 1, 4, SIZE, SIZE], moves [scramble, 2])."""
        pos, length, horiz, ok = self._place(u_place)
        fpos, flen, fh = self._fallback()
        pos, length, horiz = jnp.where(ok, pos, fpos), jnp.where(ok, length, flen), jnp.where(ok, horiz, fh)

        def body(i, pos):
            v = jnp.minimum(jnp.floor(u_moves[i, 0] * self.n).astype(jnp.int32), self.n - 1)
            fwd = u_moves[i, 1] < 0.5
            new, moved = try_move(pos, length, horiz, v, fwd)
            keep = moved & (new[0, 1] < WIN_COL)  # never park X at the exit
            return jnp.where(keep, new, pos)

        pos = jax.lax.fori_loop(0, self.scramble, body, pos)
        occ = occupancy(pos, length, horiz)
        row = occ[EXIT_ROW]
        cols = jnp.arange(SIZE)
        ahead = (cols >= pos[0, 1] + 2) & (row > 0)
        blockers = jnp.sum(jnp.zeros((self.n,), jnp.int32).at[jnp.where(ahead, row, 0)].max(ahead.astype(jnp.int32)))
        score = blockers * 8 + (WIN_COL - pos[0, 1])
        return pos, length, horiz, score

    def _reset(self, key, params):
        c, n = _CANDIDATES, self.n
        rnd = Draws.hashed(key, c * ((n - 1) * 4 * SIZE * SIZE + 2 * self.scramble))  # no Threefry (compile time)
        pos, length, horiz, score = jax.vmap(self._candidate)(rnd.uniform((c, n - 1, 4, SIZE, SIZE)),
                                                              rnd.uniform((c, self.scramble, 2)))
        i = jnp.argmax(score)
        return RushState(**init_state_fields(), pos=pos[i], length=length[i], horiz=horiz[i],
                         moves=jnp.int32(0))

    # ---------------------------------------------------------------- dynamics
    def _step(self, key, state: RushState, action, params):
        v = jnp.clip(action, 0, 2 * self.n - 1) // 2
        fwd = action % 2 == 0
        new, moved = try_move(state.pos, state.length, state.horiz, v, fwd)
        moved = moved & (action >= 0)
        pos = jnp.where(moved, new, state.pos)
        won = moved & (pos[0, 1] >= WIN_COL)
        reward = jnp.where(won, 1.0, jnp.where(moved, -1.0 / self.card.max_steps, 0.0))
        state = state.replace(pos=pos, moves=state.moves + moved.astype(jnp.int32))
        return state, reward, won, jnp.where(won, EV_EXIT, 0)

    def _render(self, state: RushState, params):
        board = glyph_grid(occupancy(state.pos, state.length, state.horiz) + 1,
                           codepoints(FLOOR + LETTERS[:self.n]))
        grid = jnp.full((SIZE + 2, SIZE + 2), codepoint(WALL), jnp.uint32)
        grid = grid.at[1:-1, 1:-1].set(board).at[EXIT_ROW + 1, SIZE + 1].set(codepoint(EXIT))
        return grid, (state.moves,)

    @staticmethod
    def scripted_policy(key, state: RushState, params):
        """Cheap heuristic (not optimal): drive X forward if free; else try to move the first
        vehicle in X's way off the exit row (the direction chosen at random); else a random move."""
        n = state.pos.shape[0]
        occ = occupancy(state.pos, state.length, state.horiz)
        _, x_ok = try_move(state.pos, state.length, state.horiz, 0, True)
        cols = jnp.arange(SIZE)
        row = occ[EXIT_ROW]
        ahead = (cols >= state.pos[0, 1] + 2) & (row > 0)
        blocker = row[jnp.argmax(ahead)]
        k1, k2, k3 = jax.random.split(key, 3)
        first = jax.random.bernoulli(k1)
        _, ok1 = try_move(state.pos, state.length, state.horiz, blocker, first)
        _, ok2 = try_move(state.pos, state.length, state.horiz, blocker, ~first)
        unblock = jnp.where(ok1, 2 * blocker + jnp.where(first, 0, 1), 2 * blocker + jnp.where(first, 1, 0))
        rand = jax.random.randint(k3, (), 2, 2 * n)
        return jnp.where(x_ok, 0, jnp.where(ahead.any() & (ok1 | ok2), unblock, rand)).astype(jnp.int32)


RUSH_VARIANTS = {"easy": (4, 100, 300), "hard": (8, 200, 600)}

for _name, (_others, _steps, _scr) in RUSH_VARIANTS.items():
    register(f"classics/rushhour-{_name}",
             lambda n=_name, k=_others, t=_steps, s=_scr: RushHour(f"classics/rushhour-{n}", k, t, s))
