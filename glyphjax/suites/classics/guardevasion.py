"""Guard Evasion: sneak past patrolling guards to the exit.

Reference rules (catalogue §4, §5 row 11): square board of 10/12/15 cells including the wall
border, 2/4/6 guards, 5/8/12 interior wall segments (3 cells each); T = 150/200/300. You start
in the top-left corner, the exit is in the bottom-right corner. Each guard walks back and forth
along one axis (it reverses when the next cell is a wall) and sees the 3 cells in front of it;
walls block its sight. A turn: you move (or WAIT); reaching the exit wins; then the guards move.
You are caught if you stand on a guard or in a guard's sight, checked after your move and again
after the guards' move. Generation: guards start at least 6 cells (Manhattan) from you, so the
first turn is safe; if a breadth-first search finds the exit unreachable through the walls, the
level is rebuilt without interior walls (tests certify 1,000 seeds per variant). Reward (pattern
C): +1 exit, -1 caught; one terminal reward, return in [-1, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import DIR_DELTAS, UNREACHED, bfs_distances, border_mask, codepoints
from glyphjax.core.registry import register
from glyphjax.core.sampling import Draws
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._arcade import EXIT, GLYPHS_EXIT, wall_segments
from glyphjax.suites.classics.common import FLOOR, GLYPHS_ARCADE, GLYPHS_COMMON, PLAYER, WALL

GUARD, SIGHT = "♜", "∷"
GLYPHS = {FLOOR: GLYPHS_COMMON[FLOOR], WALL: GLYPHS_COMMON[WALL], PLAYER: GLYPHS_ARCADE[PLAYER],
          GUARD: "guard (patrols back and forth)", SIGHT: "cell a guard can see", **GLYPHS_EXIT}
ACTIONS = ("UP", "DOWN", "LEFT", "RIGHT", "WAIT")
_DELTAS = jnp.concatenate([DIR_DELTAS, jnp.zeros((1, 2), jnp.int32)])
VISION = 3
EV_EXIT, EV_CAUGHT = 1, 2
EVENTS = ("", "You reached the exit. You win!", "A guard spotted you. Game over.")
_TABLE = codepoints(FLOOR + WALL + SIGHT + EXIT + GUARD + PLAYER)  # codes 0..5


@struct.dataclass
class GuardEvasionState(EnvState):
    walls: jax.Array  # bool[s, s], border included
    player: jax.Array  # int32[2]
    exit: jax.Array  # int32[2]
    guards: jax.Array  # int32[n, 2]
    heading: jax.Array  # int32[n]: 0..3 (UP, DOWN, LEFT, RIGHT)


def guard_sight(walls: jax.Array, guards: jax.Array, heading: jax.Array) -> jax.Array:
    """bool[s, s]: cells a guard stands on or sees (up to 3 cells ahead, walls block)."""
    s = walls.shape[0]
    seen = jnp.zeros((s, s), bool).at[guards[:, 0], guards[:, 1]].set(True)
    clear = jnp.ones(guards.shape[0], bool)
    for d in range(1, VISION + 1):
        cell = guards + d * DIR_DELTAS[heading]
        r = jnp.clip(cell[:, 0], 0, s - 1)
        c = jnp.clip(cell[:, 1], 0, s - 1)
        clear = clear & ~walls[r, c]
        seen = seen.at[r, c].max(clear)
    return seen


def patrol(walls: jax.Array, guards: jax.Array, heading: jax.Array):
    """Each guard steps forward; if the cell ahead is a wall it turns round and steps back
    (staying put when both ways are walls). -> (guards, heading)."""
    opposite = jnp.array([1, 0, 3, 2], jnp.int32)
    ahead = guards + DIR_DELTAS[heading]
    blocked = walls[ahead[:, 0], ahead[:, 1]]
    heading = jnp.where(blocked, opposite[heading], heading)
    ahead2 = guards + DIR_DELTAS[heading]
    blocked2 = walls[ahead2[:, 0], ahead2[:, 1]]
    return jnp.where(blocked2[:, None], guards, ahead2), heading


class GuardEvasion(Env):
    def __init__(self, task_id: str, size: int, n_guards: int, n_walls: int, max_steps: int):
        self.size, self.n_guards, self.n_walls = size, n_guards, n_walls
        self.card = TaskCard(
            id=task_id,
            rules=(f"Guard evasion on a {size}x{size} board whose outer ring is wall. You start in "
                   f"the top-left corner; reach the exit in the bottom-right corner. {n_guards} "
                   "guards patrol back and forth in a straight line, turning round at walls. A "
                   f"guard sees the {VISION} cells in front of it (walls block its sight); the "
                   "shaded cells show what the guards see now. Each turn you move one cell (or "
                   "WAIT), then every guard moves one cell. If you stand on a guard or in its sight "
                   "(after your move or after the guards' move), you are caught."),
            actions=ACTIONS,
            action_descriptions=("move one cell up", "move one cell down", "move one cell left",
                                 "move one cell right", "stay in place"),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Guards: " + str(n_guards),
            hud_fields=(),
            max_steps=max_steps,
            reward="+1 for reaching the exit, -1 for being caught; 0 otherwise. Return range [-1, 1].",
            events=EVENTS,
            success=(EV_EXIT,),
        )

    def _reset(self, key, params):
        s, n = self.size, self.n_guards
        rnd = Draws.hashed(key, 3 * self.n_walls + s * s + n)  # no Threefry (compile time)
        start = jnp.array([1, 1], jnp.int32)
        exit_ = jnp.array([s - 2, s - 2], jnp.int32)
        rows = jnp.arange(s)[:, None]
        cols = jnp.arange(s)[None, :]
        border = border_mask(s)
        seg = wall_segments(rnd, s, self.n_walls)  # interior wall segments of 3 cells
        near_corner = ((rows <= 2) & (cols <= 2)) | ((rows >= s - 3) & (cols >= s - 3))
        walls = border | (seg & ~near_corner)
        src = jnp.zeros((s, s), bool).at[1, 1].set(True)
        reachable = bfs_distances(~walls, src)[exit_[0], exit_[1]] < UNREACHED
        walls = jnp.where(reachable, walls, border)
        far = (jnp.abs(rows - 1) + jnp.abs(cols - 1)) >= 6
        free = ~walls & far & ~((rows == exit_[0]) & (cols == exit_[1]))
        idx, _ = rnd.cells(free, n)
        gr, gc = idx // s, idx % s
        heading = rnd.randint(0, 4, (n,))
        return GuardEvasionState(**init_state_fields(), walls=walls, player=start, exit=exit_,
                                 guards=jnp.stack([gr, gc], axis=1), heading=heading)

    def _step(self, key, state: GuardEvasionState, action, params):
        move = _DELTAS[jnp.where(action >= 0, jnp.clip(action, 0, 4), 4)]
        target = state.player + move
        player = jnp.where(state.walls[target[0], target[1]], state.player, target)
        at_exit = (player[0] == state.exit[0]) & (player[1] == state.exit[1])
        seen1 = guard_sight(state.walls, state.guards, state.heading)[player[0], player[1]]
        guards, heading = patrol(state.walls, state.guards, state.heading)
        seen2 = guard_sight(state.walls, guards, heading)[player[0], player[1]]
        caught = ~at_exit & (seen1 | seen2)
        reward = jnp.where(at_exit, 1.0, jnp.where(caught, -1.0, 0.0))
        event = jnp.select([at_exit, caught], [EV_EXIT, EV_CAUGHT], 0)
        nxt = state.replace(player=player, guards=guards, heading=heading)
        return nxt, reward, at_exit | caught, event

    def _render(self, state: GuardEvasionState, params):
        codes = jnp.where(state.walls, 1, 0)
        sight = guard_sight(state.walls, state.guards, state.heading)
        codes = jnp.where(sight & ~state.walls, 2, codes)
        codes = codes.at[state.exit[0], state.exit[1]].set(3)
        codes = codes.at[state.guards[:, 0], state.guards[:, 1]].set(4)
        codes = codes.at[state.player[0], state.player[1]].set(5)
        return _TABLE[codes], ()

    @staticmethod
    def scripted_policy(key, state: GuardEvasionState, params):
        """Shortest path to the exit avoiding cells seen now or after the guards' next move;
        WAIT when every move toward the exit is unsafe."""
        s = state.walls.shape[0]
        g2, h2 = patrol(state.walls, state.guards, state.heading)
        danger = guard_sight(state.walls, state.guards, state.heading) | guard_sight(state.walls, g2, h2)
        src = jnp.zeros((s, s), bool).at[state.exit[0], state.exit[1]].set(True)
        dist = bfs_distances(~state.walls, src, max_steps=2 * s * s // 3)
        nxt = state.player[None, :] + _DELTAS
        d = dist[nxt[:, 0], nxt[:, 1]]
        safe = ~danger[nxt[:, 0], nxt[:, 1]] & ~state.walls[nxt[:, 0], nxt[:, 1]]
        score = jnp.where(safe, -d, -UNREACHED * 2) + jnp.array([0, 0, 0, 0, -1]) * 0.5
        return jnp.argmax(score).astype(jnp.int32)


GUARD_VARIANTS = {"easy": (10, 2, 5, 150), "medium": (12, 4, 8, 200), "hard": (15, 6, 12, 300)}

for _name, (_s, _g, _w, _t) in GUARD_VARIANTS.items():
    register(f"classics/guardevasion-{_name}",
             lambda n=_name, s=_s, g=_g, w=_w, t=_t: GuardEvasion(f"classics/guardevasion-{n}", s, g, w, t))
