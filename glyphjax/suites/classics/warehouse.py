"""Warehouse: carry three packages, one at a time, to their matching destinations.

Reference rules (catalogue §5 row 31): 10x10 board with a wall border and interior walls; three
packages (a, b, c) and three destinations (A, B, C). PICKUP takes the package on your cell (hands
empty); DROP on the matching destination delivers it, elsewhere puts it down on your cell (if no
other package lies there). Impossible actions are no-ops. Reachability by construction: the
player's region is found by breadth-first search and all packages and destinations are placed in
it (if the region is too small, the level is rebuilt without interior walls); tests certify
1,000 seeds independently. Reward (pattern A): +1/3 per correct delivery; the third ends the
episode. Return in [0, 1].
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import DIR_DELTAS, UNREACHED, bfs_distances, border_mask, codepoints
from glyphjax.core.registry import register
from glyphjax.core.sampling import Draws
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._arcade import wall_segments
from glyphjax.suites.classics.common import FLOOR, GLYPHS_ARCADE, GLYPHS_COMMON, PLAYER, WALL

S = 10
N = 3
N_WALL_SEGMENTS = 6
PACKAGES, DESTS, DONE = "ⓐⓑⓒ", "ⒶⒷⒸ", "✔"
NAMES = "abc"
GLYPHS = {FLOOR: GLYPHS_COMMON[FLOOR], WALL: GLYPHS_COMMON[WALL], PLAYER: GLYPHS_ARCADE[PLAYER],
          DONE: "destination with its package delivered",
          **{PACKAGES[i]: f"package {NAMES[i]}" for i in range(N)},
          **{DESTS[i]: f"destination for package {NAMES[i]}" for i in range(N)}}
ACTIONS = ("UP", "DOWN", "LEFT", "RIGHT", "PICKUP", "DROP")
EV_PICK, EV_PUT, EV_DELIVER, EV_WIN = 1, 2, 3, 4
EVENTS = ("", "You picked up a package.", "You put the package down.",
          "You delivered a package to its destination.", "All packages delivered. You win!")
CARRY_NAMES = ("nothing", *(f"package {n}" for n in NAMES))
ON_FLOOR, CARRIED, DELIVERED = 0, 1, 2
_TABLE = codepoints(FLOOR + WALL + DONE + DESTS + PACKAGES + PLAYER)  # 0,1,2, 3..5, 6..8, 9


@struct.dataclass
class WarehouseState(EnvState):
    walls: jax.Array  # bool[S, S]
    player: jax.Array  # int32[2]
    pkg: jax.Array  # int32[N, 2]
    pkg_status: jax.Array  # int32[N]: 0 on the floor, 1 carried, 2 delivered
    dest: jax.Array  # int32[N, 2]
    carrying: jax.Array  # int32: package index carried, -1 none


def generate(key: jax.Array):
    """-> (walls, player, packages, destinations); everything in the player's region."""
    rnd = Draws.hashed(key, 3 * N_WALL_SEGMENTS + 2 * S * S)  # no Threefry (compile time)
    border = border_mask(S)
    walls = border | wall_segments(rnd, S, N_WALL_SEGMENTS)
    p, _ = rnd.cells(~walls, 1)
    player = jnp.stack([p[0] // S, p[0] % S]).astype(jnp.int32)
    src = jnp.zeros((S, S), bool).at[player[0], player[1]].set(True)
    region = bfs_distances(~walls, src) < UNREACHED
    big = jnp.sum(region) >= 2 * N + 8
    walls = jnp.where(big, walls, border)
    region = jnp.where(big, region, ~border)
    idx, _ = rnd.cells(region & ~src, 2 * N)
    cells = jnp.stack([idx // S, idx % S], axis=1).astype(jnp.int32)
    return walls, player, cells[:N], cells[N:]


class Warehouse(Env):
    def __init__(self, task_id: str = "classics/warehouse", max_steps: int = 200):
        self.card = TaskCard(
            id=task_id,
            rules=(f"Warehouse on a {S}x{S} board with walls. Carry each package (a, b, c) to the "
                   "destination with the same letter (A, B, C), one package at a time. PICKUP "
                   "takes the package on your cell if your hands are empty. DROP on the matching "
                   "destination delivers it; anywhere else it puts the package down on your cell "
                   "(if no other package lies there). Deliver all three to win."),
            actions=ACTIONS,
            action_descriptions=("move one cell up", "move one cell down", "move one cell left",
                                 "move one cell right", "pick up the package on your cell",
                                 "drop / deliver the package you carry"),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Carrying: {carrying}    Delivered: {delivered} / " + str(N),
            hud_fields=("carrying", "delivered"),
            hud_enums={"carrying": CARRY_NAMES},
            max_steps=max_steps,
            reward=f"+1/{N} for each package delivered to its matching destination (all {N} = 1.0, ends the game). Return range [0, 1].",
            events=EVENTS,
            success=(EV_WIN,),
            return_range=(0.0, 1.0),
        )

    def _reset(self, key, params):
        walls, player, pkg, dest = generate(key)
        return WarehouseState(**init_state_fields(), walls=walls, player=player, pkg=pkg,
                              pkg_status=jnp.zeros(N, jnp.int32), dest=dest, carrying=jnp.int32(-1))

    def _step(self, key, state: WarehouseState, action, params):
        move = (action >= 0) & (action < 4)
        target = state.player + jnp.where(move, DIR_DELTAS[jnp.clip(action, 0, 3)], 0)
        player = jnp.where(state.walls[target[0], target[1]], state.player, target)
        here = (state.pkg[:, 0] == player[0]) & (state.pkg[:, 1] == player[1]) & (state.pkg_status == ON_FLOOR)
        empty = state.carrying < 0
        pick = (action == 4) & empty & jnp.any(here)
        pick_i = jnp.argmax(here)
        ci = jnp.maximum(state.carrying, 0)
        drop = (action == 5) & ~empty
        deliver = drop & (player[0] == state.dest[ci, 0]) & (player[1] == state.dest[ci, 1])
        put = drop & ~deliver & ~jnp.any(here)
        idx = jnp.arange(N)
        status = jnp.where(pick & (idx == pick_i), CARRIED, state.pkg_status)
        status = jnp.where(deliver & (idx == ci), DELIVERED, status)
        status = jnp.where(put & (idx == ci), ON_FLOOR, status)
        pkg = jnp.where(((put | deliver) & (idx == ci))[:, None], player[None, :], state.pkg)
        carrying = jnp.where(pick, pick_i, jnp.where(deliver | put, -1, state.carrying))
        won = jnp.all(status == DELIVERED)
        reward = jnp.where(deliver, 1.0 / N, 0.0)
        event = jnp.select([won, deliver, put, pick], [EV_WIN, EV_DELIVER, EV_PUT, EV_PICK], 0)
        nxt = state.replace(player=player, pkg=pkg, pkg_status=status, carrying=carrying.astype(jnp.int32))
        return nxt, reward, won, event

    def _render(self, state: WarehouseState, params):
        codes = jnp.where(state.walls, 1, 0)
        done = state.pkg_status == DELIVERED
        codes = codes.at[state.dest[:, 0], state.dest[:, 1]].set(jnp.where(done, 2, 3 + jnp.arange(N)))
        on_floor = state.pkg_status == ON_FLOOR
        cur = codes[state.pkg[:, 0], state.pkg[:, 1]]
        codes = codes.at[state.pkg[:, 0], state.pkg[:, 1]].set(jnp.where(on_floor, 6 + jnp.arange(N), cur))
        codes = codes.at[state.player[0], state.player[1]].set(9)
        return _TABLE[codes], (state.carrying + 1, jnp.sum(done).astype(jnp.int32))

    @staticmethod
    def scripted_policy(key, state: WarehouseState, params):
        """Shortest paths: to the first undelivered package, pick it up, to its destination, drop."""
        carrying = state.carrying >= 0
        first = jnp.argmax(state.pkg_status == ON_FLOOR)
        goal = jnp.where(carrying, state.dest[jnp.maximum(state.carrying, 0)], state.pkg[first])
        at_goal = (state.player[0] == goal[0]) & (state.player[1] == goal[1])
        src = jnp.zeros((S, S), bool).at[goal[0], goal[1]].set(True)
        dist = bfs_distances(~state.walls, src, max_steps=S * S // 2)
        nxt = state.player[None, :] + DIR_DELTAS
        d = dist[nxt[:, 0], nxt[:, 1]]
        step = jnp.argmin(d)
        return jnp.where(at_goal, jnp.where(carrying, 5, 4), step).astype(jnp.int32)


register("classics/warehouse", lambda: Warehouse())
