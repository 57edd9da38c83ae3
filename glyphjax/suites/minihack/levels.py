"""Level generation: one generator for every MiniHack task, driven by a traced `Level`.

A `Level` is a layout drawn on the host (terrain, items, masks of where the start, the stairs,
traps, monsters, stepping stones, lava and a random item may go, fixed monsters, the starting
inventory and status) padded into the program's canvas with solid rock; `generate` places the
random parts under `jit`. A maze (`core.maze`) replaces the layout's interior where `maze` is on.
Layouts sit at the top-left corner of the canvas.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from glyphjax.core.grid import DIR_DELTAS, bfs_distances
from glyphjax.core.maze import dfs_spanning_tree, tree_to_maze
from glyphjax.core.sampling import Draws
from glyphjax.core.types import init_state_fields
from glyphjax.suites.minihack import constants as C
from glyphjax.suites.minihack.state import MiniHackState
from glyphjax.suites.minihack.vision import remember, scene, wall_glyphs

N_MONSTERS = 5  # monster slots of every program
MAX_TRAPS = 8
MAX_BOULDERS = 3
PULL_STEPS = 96  # static length of the Boxoban reverse walk (steps past pull_steps only while solved)
PULL_CHANCE = 0.7  # chance a walk step picks a direction that drags a boulder
MAZE_TRIES = 8  # mazes drawn at most until one has its stairs within the step budget


@struct.dataclass
class Level:
    """Traced description of a task's levels (arrays of the canvas shape [H, W])."""

    terrain: jax.Array  # int32[H, W] fixed terrain (WALL for any wall)
    items: jax.Array  # int32[H, W] fixed floor items
    start_mask: jax.Array  # bool[H, W] where you may start
    stairs_mask: jax.Array  # bool[H, W] where the down stairs may be
    trap_mask: jax.Array  # bool[H, W] where traps may be
    n_traps: jax.Array  # int32[2] inclusive range of the trap count
    monster_mask: jax.Array  # bool[H, W] where random monsters may start
    n_monsters: jax.Array  # int32[2] inclusive range of the random-monster count
    monster_kinds: jax.Array  # int32[M] kind of the i-th random monster
    fixed_pos: jax.Array  # int32[M, 2] cells of fixed monsters
    fixed_kind: jax.Array  # int32[M] kinds of fixed monsters (0 = slot not fixed)
    stone_mask: jax.Array  # bool[H, W] river cells that may become stepping stones (floor)
    n_stones: jax.Array  # int32 how many distinct stones
    lava_mask: jax.Array  # bool[H, W] floor cells that turn to lava with probability lava_prob
    lava_prob: jax.Array  # float32
    rand_item: jax.Array  # int32 item type placed on a random cell of rand_item_mask (0 = none)
    rand_item_mask: jax.Array  # bool[H, W]
    teleport_mask: jax.Array  # bool[H, W] where a scroll of teleportation may take you
    maze: jax.Array  # bool: carve a maze of maze_cells lattice cells at the top-left
    maze_cells: jax.Array  # int32[2] lattice rows, cols (maze of 2r+1 x 2c+1 cells)
    maze_max_path: jax.Array  # int32 redraw a maze whose stairs are farther than this (0 = never)
    dark: jax.Array  # bool: unlit level
    mapped: jax.Array  # bool: the map is known from the start
    hp: jax.Array  # int32 starting HP
    hunger_on: jax.Array  # bool: nutrition counts down (starving at 0 kills)
    hunger: jax.Array  # int32 starting nutrition
    inv: jax.Array  # int32[N_ITEMS] starting inventory
    boulder_mask: jax.Array  # bool[H, W] where Boxoban fountains (targets) may be
    n_boulders: jax.Array  # int32 boulders (= fountains) of a Boxoban level (0 = not Boxoban)
    pull_steps: jax.Array  # int32 steps of the reverse walk that scatters them (<= PULL_STEPS)
    n_floors: jax.Array  # int32 dungeon levels: the stairs of every level but the last lead to a fresh one


@dataclasses.dataclass
class Layout:
    """A level drawn on the host with numpy (the task's own size); `level(canvas)` pads it."""

    h: int
    w: int

    def __post_init__(self):
        z = lambda dtype=bool: np.zeros((self.h, self.w), dtype)  # noqa: E731
        self.terrain = z(np.int32)
        self.items = z(np.int32)
        self.start_mask, self.stairs_mask, self.trap_mask, self.monster_mask = z(), z(), z(), z()
        self.stone_mask, self.lava_mask, self.rand_item_mask, self.teleport_mask = z(), z(), z(), z()
        self.n_traps = (0, 0)
        self.n_monsters = (0, 0)
        self.monster_kinds: list[int] = []
        self.fixed: list[tuple[int, int, int]] = []  # (row, col, kind)
        self.n_stones = 0
        self.lava_prob = 0.0
        self.rand_item = 0
        self.maze_cells = (0, 0)
        self.maze_max_path = 0
        self.dark = self.mapped = self.hunger_on = False
        self.hp = C.PLAYER_HP
        self.hunger = C.HUNGER_MAX
        self.inv: dict[int, int] = {}
        self.boulder_mask = z()
        self.n_boulders = 0
        self.pull_steps = 0
        self.n_floors = 1

    def room(self, r0: int, c0: int, h: int, w: int) -> "Layout":
        """Walls around an h x w floor whose top-left floor cell is (r0, c0)."""
        self.terrain[r0 - 1:r0 + h + 1, c0 - 1:c0 + w + 1] = C.WALL
        self.terrain[r0:r0 + h, c0:c0 + w] = C.FLOOR
        return self

    def at(self, r: int, c: int) -> np.ndarray:
        m = np.zeros((self.h, self.w), bool)
        m[r, c] = True
        return m

    def floor(self) -> np.ndarray:
        return self.terrain == C.FLOOR

    def level(self, canvas: tuple[int, int]) -> Level:
        ch, cw = canvas
        if self.h > ch or self.w > cw:
            raise ValueError(f"a {self.h}x{self.w} layout does not fit the {ch}x{cw} canvas")

        def pad(a):
            return np.pad(a, ((0, ch - self.h), (0, cw - self.w)))
        if not 1 <= self.n_floors <= C.MAX_FLOORS:
            raise ValueError(f"n_floors={self.n_floors}: a task has 1 to {C.MAX_FLOORS} dungeon levels")
        if len(self.fixed) + len(self.monster_kinds) > N_MONSTERS:
            raise ValueError(f"more than {N_MONSTERS} monsters")
        kinds = np.zeros(N_MONSTERS, np.int32)
        kinds[:len(self.monster_kinds)] = self.monster_kinds
        fixed_pos = np.zeros((N_MONSTERS, 2), np.int32)
        fixed_kind = np.zeros(N_MONSTERS, np.int32)
        for i, (r, c, k) in enumerate(self.fixed):  # fixed monsters take the last slots
            fixed_pos[N_MONSTERS - 1 - i] = (r, c)
            fixed_kind[N_MONSTERS - 1 - i] = k
        inv = np.zeros(C.N_ITEMS, np.int32)
        for item, n in self.inv.items():
            inv[item] = n
        a = jnp.asarray
        return Level(
            terrain=a(pad(self.terrain)), items=a(pad(self.items)), start_mask=a(pad(self.start_mask)),
            stairs_mask=a(pad(self.stairs_mask)), trap_mask=a(pad(self.trap_mask)),
            n_traps=a(np.array(self.n_traps, np.int32)), monster_mask=a(pad(self.monster_mask)),
            n_monsters=a(np.array(self.n_monsters, np.int32)), monster_kinds=a(kinds),
            fixed_pos=a(fixed_pos), fixed_kind=a(fixed_kind), stone_mask=a(pad(self.stone_mask)),
            n_stones=a(np.int32(self.n_stones)), lava_mask=a(pad(self.lava_mask)),
            lava_prob=a(np.float32(self.lava_prob)), rand_item=a(np.int32(self.rand_item)),
            rand_item_mask=a(pad(self.rand_item_mask)), teleport_mask=a(pad(self.teleport_mask)),
            maze=a(np.bool_(self.maze_cells != (0, 0))), maze_cells=a(np.array(self.maze_cells, np.int32)),
            maze_max_path=a(np.int32(self.maze_max_path)),
            dark=a(np.bool_(self.dark)), mapped=a(np.bool_(self.mapped)), hp=a(np.int32(self.hp)),
            hunger_on=a(np.bool_(self.hunger_on)), hunger=a(np.int32(self.hunger)), inv=a(inv),
            boulder_mask=a(pad(self.boulder_mask)), n_boulders=a(np.int32(self.n_boulders)),
            pull_steps=a(np.int32(self.pull_steps)), n_floors=a(np.int32(self.n_floors)))


# --- the generator (traced) -----------------------------------------------------------------------
def n_draws(canvas: tuple[int, int], maze: bool, boxoban: bool) -> int:
    """Uniforms `generate` takes on a canvas (static)."""
    h, w = canvas
    lattice = ((h - 1) // 2) * ((w - 1) // 2)
    return (8 + 6 * h * w + ((2 * lattice - 1) * 4 if maze else 0)
            + (2 * PULL_STEPS if boxoban else 0))


def carve_maze(rnd: Draws, key: jax.Array, lv: Level, canvas: tuple[int, int]) -> jax.Array:
    """Terrain with a depth-first maze of `lv.maze_cells` lattice cells at the top-left. Where
    `lv.maze_max_path` > 0, a maze whose stairs cell is farther than that many (8-connected) moves
    from the start cell is redrawn (fresh uniforms from `key`, up to MAZE_TRIES mazes in all): the
    stairs are always within the step budget. The first maze takes its uniforms from `rnd`."""
    h, w = canvas
    lh, lw = (h - 1) // 2, (w - 1) // 2
    rows, cols = np.arange(lh)[:, None], np.arange(lw)[None, :]
    active = (rows < lv.maze_cells[0]) & (cols < lv.maze_cells[1])
    rr, cc = np.arange(h)[:, None], np.arange(w)[None, :]
    inside = (rr <= 2 * lv.maze_cells[0]) & (cc <= 2 * lv.maze_cells[1])
    shape = (2 * lh * lw - 1, 4)

    def carve(u):
        right, down = dfs_spanning_tree(None, lh, lw, u=u, active=active)
        open_ = jnp.zeros((h, w), jnp.bool_).at[:2 * lh + 1, :2 * lw + 1].set(tree_to_maze(right, down))
        return jnp.where(lv.maze & inside, jnp.where(open_, C.FLOOR, C.WALL), lv.terrain)

    def too_long(terrain):
        dist = bfs_distances(terrain == C.FLOOR, lv.start_mask, lv.maze_max_path, eight=True)
        return ~jnp.any(lv.stairs_mask & (dist <= lv.maze_max_path))

    def cond(carry):
        tries, terrain = carry
        return lv.maze & (lv.maze_max_path > 0) & (tries < MAZE_TRIES) & too_long(terrain)

    def body(carry):
        tries, _ = carry
        return tries + 1, carve(Draws.hashed(jax.random.fold_in(key, tries), shape[0] * 4).uniform(shape))

    _, terrain = jax.lax.while_loop(cond, body, (jnp.int32(1), carve(rnd.uniform(shape))))
    return terrain


def _cell(flat: jax.Array, w: int) -> jax.Array:
    return jnp.stack([flat // w, flat % w]).astype(jnp.int32)


def place_monsters(rnd: Draws, lv: Level, free: jax.Array, w: int):
    """Monster cells and kinds: random ones (count drawn from n_monsters) on distinct free cells
    of monster_mask, then fixed ones."""
    n = rnd.randint(lv.n_monsters[0], lv.n_monsters[1] + 1)
    cells, found = rnd.cells(lv.monster_mask & free, N_MONSTERS)
    slot = jnp.arange(N_MONSTERS)
    rand_kind = jnp.where((slot < n) & found, lv.monster_kinds, 0)
    kind = jnp.where(lv.fixed_kind > 0, lv.fixed_kind, rand_kind)
    pos = jnp.where((lv.fixed_kind > 0)[:, None], lv.fixed_pos, _cell(cells, w).T)
    hp = jnp.asarray(C.MONSTER_HP)[kind]
    return pos.astype(jnp.int32), kind.astype(jnp.int32), hp.astype(jnp.int32)


def boxoban_walk(rnd: Draws, lv: Level, terrain: jax.Array, free: jax.Array, start: jax.Array):
    """Boxoban by reverse play: fountains on random free cells of boulder_mask, a boulder on each,
    then `pull_steps` orthogonal steps of the player (more, up to PULL_STEPS, while every boulder
    is still on a fountain): with chance PULL_CHANCE one that drags a
    boulder behind it (when one can), else a random one (dragging whatever boulder is behind). Undoing the walk (each step reversed, last first) pushes every boulder
    back, so every level is solvable. -> (terrain, boulders bool[H, W], player cell, the walk's
    directions int32[PULL_STEPS] as `core.grid` directions, -1 where the player did not move)."""
    h, w = terrain.shape
    cells, found = rnd.cells(lv.boulder_mask & free, MAX_BOULDERS)
    on = found & (jnp.arange(MAX_BOULDERS) < lv.n_boulders)
    boxes = jnp.zeros((h * w,), jnp.bool_).at[cells].max(on).reshape(h, w)
    terrain = jnp.where(boxes, C.FOUNTAIN, terrain)
    open_ = (terrain == C.FLOOR) | (terrain == C.FOUNTAIN)
    u = rnd.uniform((PULL_STEPS, 2))
    deltas = jnp.asarray(DIR_DELTAS)

    def step(i, carry):
        pos, boxes, dirs = carry
        rand_d = jnp.minimum((u[i, 0] * 4).astype(jnp.int32), 3)
        behind_all = jnp.clip(pos - deltas, 0, jnp.array([h - 1, w - 1]))
        ahead_all = jnp.clip(pos + deltas, 0, jnp.array([h - 1, w - 1]))
        can_pull = (boxes[behind_all[:, 0], behind_all[:, 1]] & open_[ahead_all[:, 0], ahead_all[:, 1]]
                    & ~boxes[ahead_all[:, 0], ahead_all[:, 1]])
        on_target = boxes & (terrain == C.FOUNTAIN)
        pull_score = u[i, 0] + jnp.arange(4) + 8.0 * on_target[behind_all[:, 0], behind_all[:, 1]]
        pull_d = jnp.argmax(jnp.where(can_pull, pull_score, -1.0)).astype(jnp.int32)
        # otherwise head for a boulder still on its fountain (the larger axis first)
        goal = jnp.stack(jnp.unravel_index(jnp.argmax(on_target.reshape(-1)), (h, w))).astype(jnp.int32)
        gap = goal - pos
        seek_d = jnp.where(jnp.abs(gap[0]) >= jnp.abs(gap[1]), jnp.where(gap[0] < 0, 0, 1),
                           jnp.where(gap[1] < 0, 2, 3))
        seek_ok = open_[ahead_all[seek_d, 0], ahead_all[seek_d, 1]] & ~boxes[ahead_all[seek_d, 0], ahead_all[seek_d, 1]]
        seek_d = jnp.where(jnp.any(on_target) & seek_ok & (u[i, 1] < PULL_CHANCE), seek_d, rand_d)
        d = jnp.where(jnp.any(can_pull) & (u[i, 1] < PULL_CHANCE), pull_d, seek_d)
        nxt, behind = pos + deltas[d], pos - deltas[d]
        ok_n = jnp.all((nxt >= 0) & (nxt < jnp.array([h, w])))
        nxt = jnp.clip(nxt, 0, jnp.array([h - 1, w - 1]))
        behind = jnp.clip(behind, 0, jnp.array([h - 1, w - 1]))
        solved = jnp.all(boxes == (terrain == C.FOUNTAIN))
        moves = ok_n & open_[nxt[0], nxt[1]] & ~boxes[nxt[0], nxt[1]] & ((i < lv.pull_steps) | solved)
        pulls = moves & boxes[behind[0], behind[1]]
        dragged = boxes.at[behind[0], behind[1]].set(False).at[pos[0], pos[1]].set(True)
        boxes = jnp.where(pulls, dragged, boxes)
        return jnp.where(moves, nxt, pos), boxes, dirs.at[i].set(jnp.where(moves, d, -1))

    pos, boxes, dirs = jax.lax.fori_loop(0, PULL_STEPS, step,
                                         (start, boxes, jnp.full((PULL_STEPS,), -1, jnp.int32)))
    return terrain, boxes, pos, dirs


def generate(key: jax.Array, lv: Level, canvas: tuple[int, int], maze: bool,
             boxoban: bool = False) -> MiniHackState:
    """A fresh episode state from a key and a task's `Level` (static canvas; the maze and Boxoban
    generators compiled in where the program's tasks need them)."""
    return generate_with_walk(key, lv, canvas, maze, boxoban)[0]


def generate_with_walk(key: jax.Array, lv: Level, canvas: tuple[int, int], maze: bool, boxoban: bool):
    """`generate` and the Boxoban walk's directions (all -1 without Boxoban): the certificate."""
    h, w = canvas
    rnd = Draws.hashed(key, n_draws(canvas, maze, boxoban))
    terrain = carve_maze(rnd, key, lv, canvas) if maze else lv.terrain
    stones, _ = rnd.cells(lv.stone_mask, min(h * w, 16))
    stone_sel = jnp.zeros((h * w,), jnp.bool_).at[stones].set(jnp.arange(stones.shape[0]) < lv.n_stones)
    terrain = jnp.where(stone_sel.reshape(h, w) & lv.stone_mask, C.FLOOR, terrain)
    lava = lv.lava_mask & (terrain == C.FLOOR) & (rnd.uniform((h, w)) < lv.lava_prob)
    terrain = jnp.where(lava, C.LAVA, terrain)
    start, _ = rnd.cell(lv.start_mask & (terrain == C.FLOOR))
    taken = jnp.zeros((h * w,), jnp.bool_).at[start].set(True).reshape(h, w)
    stairs, has_stairs = rnd.cell(lv.stairs_mask & ~taken & (terrain == C.FLOOR))
    taken = taken.reshape(-1).at[stairs].set(has_stairs).reshape(h, w)
    n_traps = rnd.randint(lv.n_traps[0], lv.n_traps[1] + 1)
    traps, found = rnd.cells(lv.trap_mask & ~taken & (terrain == C.FLOOR), MAX_TRAPS)
    trap_on = found & (jnp.arange(MAX_TRAPS) < n_traps)
    trap_grid = jnp.zeros((h * w,), jnp.bool_).at[traps].max(trap_on).reshape(h, w)
    terrain = jnp.where(trap_grid, C.TRAP, terrain).reshape(-1)
    terrain = terrain.at[stairs].set(jnp.where(has_stairs, C.STAIRS, terrain[stairs])).reshape(h, w)
    taken = taken | trap_grid
    mon_pos, mon_kind, mon_hp = place_monsters(rnd, lv, ~taken & (terrain == C.FLOOR), w)
    item_cell, found = rnd.cell(lv.rand_item_mask & ~taken & (lv.items == 0))
    items = lv.items.reshape(-1).at[item_cell].set(jnp.where(found & (lv.rand_item > 0), lv.rand_item,
                                                             lv.items.reshape(-1)[item_cell])).reshape(h, w)
    pos = _cell(start, w)
    dirs = jnp.full((PULL_STEPS,), -1, jnp.int32)
    if boxoban:
        sok = lv.n_boulders > 0
        b_terrain, boxes, b_pos, b_dirs = boxoban_walk(rnd, lv, terrain, ~taken & (terrain == C.FLOOR), pos)
        terrain = jnp.where(sok, b_terrain, terrain)
        items = jnp.where(sok & boxes, C.BOULDER, items)
        pos, dirs = jnp.where(sok, b_pos, pos), jnp.where(sok, b_dirs, dirs)
    s = MiniHackState(
        **init_state_fields(), terrain=wall_glyphs(terrain), items=items.astype(jnp.int32),
        pos=pos, hp=lv.hp, max_hp=jnp.int32(C.PLAYER_HP), inv=lv.inv,
        wand=jnp.int32(0), wielding=jnp.bool_(False), ring_on=jnp.bool_(False),
        lev_turns=jnp.int32(0), hunger=lv.hunger, prayed=jnp.bool_(False),
        lit=jnp.broadcast_to(~lv.dark, (h, w)), memory=jnp.zeros((h, w), jnp.int32),
        mon_pos=mon_pos, mon_kind=mon_kind, mon_hp=mon_hp, floor=jnp.int32(0))
    s = s.replace(memory=jnp.where(lv.mapped, scene(s), 0))
    return remember(s), dirs
