"""WITNESS engine: draw a path from S to an exit E, inferring a hidden action mapping and hidden
rules; CONFIRM submits the path (witness.md §2).

Actions: A1-A4 move the head one cell in the hidden direction sigma[a]; moving back onto the
previous path cell retracts one step; a move off the board, into a wall, across a blocked edge,
into the path (or, with symmetry, one the shadow cannot make) is refused: state unchanged, the
action counted. RESET clears the path to S (counted, no refund). CONFIRM is accepted iff the head
is on an exit and no rule is violated; otherwise the violating cells show `!` in the next frame.
Each level allows BUDGET actions; the run ends when every level is solved or a level's budget is
spent unsolved (later levels unreached). NO_ACTION (a parse failure) does nothing and is not an
engine action (it does not count against the level budget; the harness counts model calls).

Reward: the increase of the game score (RHAE over every level of the game, `score.game_score`
with the solver-optimal reference counts, p = 2), paid on each accepted CONFIRM, so the return is
the run's game score in [0, 1]. One compiled program serves every game (levels, mapping and level
count are traced `GameParams`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import DIR_DELTAS, codepoints
from glyphjax.core.types import EXTENDED, Env, EnvState, TaskCard, init_state_fields
from glyphjax.witness import score
from glyphjax.witness.layout import (BUDGET, CELLS, COLOURS, COLS, ELIMINATOR, HEXAGON, MAX_LEVELS,
                                     PIECE, PIECES, ROWS, SQUARE, STAR, TRIANGLE, GameParams,
                                     LevelArrays, level_at)
from glyphjax.witness.primitives import (ALL, eliminator, hexagon, hints, mapping, polyomino, squares,
                                         stars, symmetry, triangles, walls)
from glyphjax.witness.regions import make_cover

ACTIONS = ("A1", "A2", "A3", "A4", "RESET", "CONFIRM")
RESET, CONFIRM = 4, 5
EV_MOVED, EV_REFUSED, EV_RETRACTED, EV_RESET, EV_REJECTED, EV_SOLVED, EV_ALL_SOLVED, EV_FAILED = range(1, 9)
EVENTS = ("", "moved", "refused", "retracted", "reset",
          "rejected: the cells marked ! break a rule", "solved: next level",
          "solved: every level of the game is solved", "failed: the level's action budget is spent")

# render codes -> glyphs
BOARD_GLYPHS = ".#SE@o?H" + COLOURS + COLOURS.lower() + "123" + PIECES + "%!+"
EMPTY, WALL, START, EXIT, HEAD, BODY, HIDDEN, HEX = range(8)
SQ0, STAR0, TRI0, PIECE0 = 8, 12, 15, 19  # TRI0 + n for triangle n in 1..3
ELIM, VIOLATION, SHADOW = 23, 24, 25
_TABLE = codepoints(BOARD_GLYPHS)
GLYPHS = {".": "empty cell", "S": "start", "E": "exit", "@": "path head", "o": "path",
          "!": "rule violation (marked after a rejected CONFIRM)"}
for _m in ALL.values():
    GLYPHS.update(_m.GLYPHS)


@struct.dataclass
class WitnessState(EnvState):
    level: jax.Array  # int32: index of the level being played
    path: jax.Array  # int16[CELLS]: flat cell ids of the path, from the start
    path_len: jax.Array  # int32
    on_path: jax.Array  # bool[R, C]
    used: jax.Array  # int32: actions spent on this level
    violation: jax.Array  # bool[R, C]: marks of the last rejected CONFIRM (cleared by the next action)
    seen: jax.Array  # bool[R, C]: cells the head has visited on this level (hint reveal)
    solved: jax.Array  # bool[MAX_LEVELS]
    actions_at_solve: jax.Array  # int32[MAX_LEVELS]: a_k, the accepted CONFIRM included
    failed: jax.Array  # bool: a level's budget ran out


def _rc(flat: jax.Array) -> jax.Array:
    flat = flat.astype(jnp.int32)
    return jnp.stack([flat // COLS, flat % COLS])


_ROW = jnp.arange(ROWS, dtype=jnp.int32)[:, None]
_COL = jnp.arange(COLS, dtype=jnp.int32)[None, :]


def cell_mask(rc: jax.Array) -> jax.Array:
    """bool[R, C]: True at one cell (a comparison, not a scatter: scatters are slow vmapped on CPU)."""
    return (_ROW == rc[0]) & (_COL == rc[1])


def _path_cell(path: jax.Array, i: jax.Array) -> jax.Array:
    """int32[2]: the i-th path cell, read by a masked sum (no vmapped gather)."""
    return _rc(jnp.sum(jnp.where(jnp.arange(CELLS) == i, path.astype(jnp.int32), 0)))


def violation_mask(lv: LevelArrays, on_path: jax.Array, head: jax.Array) -> jax.Array:
    """bool[R, C]: the cells a CONFIRM marks (empty = accepted): every check primitive, then the
    eliminators, then the head (and the shadow head) off an exit."""
    covered = on_path | symmetry.shadow(lv, on_path)
    cover = make_cover(lv, covered)
    bad = hexagon.check(cover) | squares.check(cover) | stars.check(cover) | triangles.check(cover)
    bad = bad | polyomino.check(cover) | symmetry.check(cover, head)
    bad = eliminator.resolve(cover, bad)
    return bad | (cell_mask(head) & ~lv.goal)


def move_verdict(lv: LevelArrays, path: jax.Array, path_len: jax.Array, on_path: jax.Array, d: jax.Array):
    """-> (head, target cell, retraction?, refused?) of moving the head in direction d."""
    head = _path_cell(path, path_len - 1)
    target = head + DIR_DELTAS[d]
    prev = _path_cell(path, jnp.maximum(path_len - 2, 0))
    retract = (path_len >= 2) & jnp.all(target == prev)
    tr, tc = jnp.clip(target[0], 0, ROWS - 1), jnp.clip(target[1], 0, COLS - 1)
    refused = ~retract & (walls.refuse(lv, head, d, target) | on_path[tr, tc]
                          | symmetry.refuse(lv, on_path, head, d, target))
    return head, target, retract, refused


def _fresh_path(lv: LevelArrays):
    start = lv.start[0] * COLS + lv.start[1]
    path = jnp.where(jnp.arange(CELLS) == 0, start, 0).astype(jnp.int16)
    on_path = cell_mask(lv.start)
    return path, jnp.int32(1), on_path


def _select(pred, a, b):
    return jax.tree.map(lambda x, y: jnp.where(pred, x, y), a, b)


class Witness(Env):
    """One WITNESS game (its levels, mapping and card); all games share one program."""

    def __init__(self, task_id: str, params: GameParams, rules_text: str, notes: str = ""):
        self._params = params
        n = int(params.n_levels)
        self.card = TaskCard(
            id=task_id, rules=rules_text, actions=ACTIONS,
            action_descriptions=("move the path's head one cell in direction 1 (which way is yours to find out)",
                                 "move the path's head one cell in direction 2",
                                 "move the path's head one cell in direction 3",
                                 "move the path's head one cell in direction 4",
                                 "clear the path back to the start (the action still counts)",
                                 "submit the path: accepted if it ends on an exit and breaks no hidden rule"),
            glyphs=GLYPHS, hud="Level: {level} / {levels}    Actions this level: {actions} / " + str(BUDGET),
            hud_fields=("level", "levels", "actions"), max_steps=MAX_LEVELS * BUDGET,
            reward=(f"On each accepted CONFIRM the game score rises; the return is the game score in "
                    f"[0, 1]: levels weighted by index (1..{n}), each solved level scoring "
                    f"min(1.15, (optimal actions / your actions)^2), capped by the weighted fraction of "
                    f"levels solved. Unsolved levels score 0."),
            events=EVENTS, track=EXTENDED, return_range=(0.0, 1.0), success=(EV_ALL_SOLVED,), notes=notes)

    def static_config(self) -> tuple:
        return ("witness", ROWS, COLS, MAX_LEVELS, BUDGET)

    def default_params(self) -> GameParams:
        return self._params

    def _reset(self, key, params: GameParams) -> WitnessState:
        lv = level_at(params.levels, jnp.int32(0))
        path, n, on_path = _fresh_path(lv)
        return WitnessState(**init_state_fields(), level=jnp.int32(0), path=path, path_len=n,
                            on_path=on_path, used=jnp.int32(0), violation=jnp.zeros((ROWS, COLS), jnp.bool_),
                            seen=on_path, solved=jnp.zeros((MAX_LEVELS,), jnp.bool_),
                            actions_at_solve=jnp.zeros((MAX_LEVELS,), jnp.int32), failed=jnp.zeros((), jnp.bool_))

    def _move(self, lv: LevelArrays, s: WitnessState, d: jax.Array):
        """-> (state after the move, event): a step, a retraction or a refusal."""
        head, target, retract, refused = move_verdict(lv, s.path, s.path_len, s.on_path, d)
        tr, tc = jnp.clip(target[0], 0, ROWS - 1), jnp.clip(target[1], 0, COLS - 1)
        at_target = cell_mask(jnp.stack([tr, tc]))
        stepped = s.replace(path=jnp.where(jnp.arange(CELLS) == s.path_len, tr * COLS + tc, s.path).astype(jnp.int16),
                            path_len=s.path_len + 1, on_path=s.on_path | at_target, seen=s.seen | at_target)
        back = s.replace(path_len=s.path_len - 1, on_path=s.on_path & ~cell_mask(head))
        out = _select(refused, s, _select(retract, back, stepped))
        return out, jnp.where(refused, EV_REFUSED, jnp.where(retract, EV_RETRACTED, EV_MOVED))

    def _next_level(self, params: GameParams, s: WitnessState, solved_now: jax.Array, last: jax.Array):
        """After an accepted CONFIRM of a level that is not the last: a fresh path on the next one."""
        nxt = jnp.minimum(s.level + 1, MAX_LEVELS - 1)
        path, n, on_path = _fresh_path(level_at(params.levels, nxt))
        fresh = s.replace(level=nxt, path=path, path_len=n, on_path=on_path, used=jnp.int32(0),
                          seen=on_path)
        return _select(solved_now & ~last, fresh, s)

    def _step(self, key, s: WitnessState, action, params: GameParams):
        lv = level_at(params.levels, s.level)
        acted = action >= 0
        moved, move_event = self._move(lv, s, mapping.direction(params.sigma, action))
        path, n, on_path = _fresh_path(lv)
        cleared = s.replace(path=path, path_len=n, on_path=on_path)
        head = _path_cell(s.path, s.path_len - 1)
        marks = violation_mask(lv, s.on_path, head)
        accepted = ~jnp.any(marks)
        is_confirm, is_reset = action == CONFIRM, action == RESET
        out = _select(is_confirm | ~acted, s, _select(is_reset, cleared, moved))
        used = s.used + acted.astype(jnp.int32)
        solved_now = is_confirm & accepted
        this = (jnp.arange(MAX_LEVELS) == s.level) & solved_now
        out = out.replace(used=used, violation=is_confirm & ~accepted & marks, solved=s.solved | this,
                          actions_at_solve=jnp.where(this, used, s.actions_at_solve))
        last = s.level + 1 >= params.n_levels
        failed = acted & ~solved_now & (used >= BUDGET)
        out = self._next_level(params, out, solved_now, last).replace(failed=s.failed | failed)
        refs = params.levels.ref
        gain = (score.game_score(out.solved, out.actions_at_solve, refs, params.n_levels, MAX_LEVELS)
                - score.game_score(s.solved, s.actions_at_solve, refs, params.n_levels, MAX_LEVELS))
        event = jnp.select([failed, solved_now & last, solved_now, is_confirm, is_reset, acted],
                           [EV_FAILED, EV_ALL_SOLVED, EV_SOLVED, EV_REJECTED, EV_RESET, move_event], 0)
        return out, gain.astype(jnp.float32), failed | (solved_now & last), event

    def _render(self, s: WitnessState, params: GameParams):
        lv = level_at(params.levels, s.level)
        codes = jnp.where(lv.valid & ~lv.wall, EMPTY, WALL)
        codes = jnp.where(lv.goal, EXIT, codes)
        kind = lv.kind.astype(jnp.int32)
        colour, param = lv.colour.astype(jnp.int32), lv.param.astype(jnp.int32)
        symbol = jnp.select([kind == HEXAGON, kind == SQUARE, kind == STAR, kind == TRIANGLE, kind == PIECE,
                             kind == ELIMINATOR], [HEX, SQ0 + colour, STAR0 + colour, TRI0 + param,
                                                   PIECE0 + param, ELIM], codes)
        codes = jnp.where(lv.valid, symbol, codes)
        codes = jnp.where(hints.concealed(lv, s.seen), HIDDEN, codes)
        codes = jnp.where(symmetry.shadow(lv, s.on_path), SHADOW, codes)
        codes = jnp.where(s.on_path, BODY, codes)
        codes = jnp.where(cell_mask(lv.start) & (s.path_len > 1), START, codes)
        codes = jnp.where(cell_mask(_path_cell(s.path, s.path_len - 1)), HEAD, codes)
        codes = jnp.where(s.violation, VIOLATION, codes)
        return _TABLE[codes], (s.level + 1, params.n_levels, s.used)

    @staticmethod
    def scripted_policy(key, s: WitnessState, params: GameParams):
        """Plays each level's stored optimal solution (through the inverse mapping), then CONFIRM."""
        lv = level_at(params.levels, s.level)
        d = lv.solution[jnp.clip(s.used, 0, lv.solution.shape[0] - 1)].astype(jnp.int32)
        action = jnp.argmax(params.sigma == d).astype(jnp.int32)
        return jnp.where((d < 0) | (s.used >= lv.solution.shape[0]), CONFIRM, action)
