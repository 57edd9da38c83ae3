"""The MiniGrid grid-world engine: one state, one step, one renderer for all 71 tasks.

A cell is one int32 packing `type | colour << 4 | door_state << 7 | contents << 9` (contents =
the packed item a box holds, 0 = empty). Coordinates are (row, col); directions follow Farama
MiniGrid: 0 east, 1 south, 2 west, 3 north. Each mechanic has one implementation here
(`forward_passable`, pickup, drop, `toggle_cell`, `move_obstacles`, lava and goal checks) and a
task only chooses a generator (levels.py) and a few success flags (`TaskConfig`). What fixes
the compiled program is static (grid size, step budget, generator graph, obstacle count, view,
and which success rules the program contains); whether each contained rule applies and the
generator's level numbers are traced `MiniGridParams`, so tasks that share the static part share
one program and a vmapped batch can mix them.

Reward: success pays `1 - 0.9 * t / T` (t = turns taken including this one, T = max_steps),
failure (lava, wrong object, wrong choice, obstacle hit, DONE away from the target) ends the
episode with 0; nothing else pays, so every return lies in [0, 1] by construction.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from glyphjax.core.grid import DIR_DELTAS, DOWN, LEFT, RIGHT, UP
from glyphjax.core.sampling import hash_bits
from glyphjax.core.types import EnvState, init_state_fields

# --- object types, colours, door states --------------------------------------------------------
EMPTY, WALL, DOOR, KEY, BALL, BOX, GOAL, LAVA, OBSTACLE = range(9)
COLORS = ("red", "green", "blue", "purple", "yellow", "grey")
RED, GREEN, BLUE, PURPLE, YELLOW, GREY = range(6)
OPEN, CLOSED, LOCKED = 0, 1, 2
TYPE_NAMES = {KEY: "key", BALL: "ball", BOX: "box"}

# --- actions (catalogue order) -----------------------------------------------------------------
ACTIONS = ("TURN_LEFT", "TURN_RIGHT", "MOVE_FORWARD", "PICKUP", "DROP", "TOGGLE", "DONE")
TURN_LEFT, TURN_RIGHT, MOVE_FORWARD, PICKUP, DROP, TOGGLE, DONE = range(7)
ACTION_DESCRIPTIONS = (
    "turn 90 degrees to your left (counter-clockwise)",
    "turn 90 degrees to your right (clockwise)",
    "move one cell in the direction you face (blocked by walls, closed doors and objects)",
    "pick up the key, ball or box in the cell in front of you (hands must be empty)",
    "put what you carry onto the empty cell in front of you",
    "open/close the door in front of you (a locked door needs a carried key of its colour), "
    "or open the box in front of you (it is replaced by what it contains)",
    "declare that you are done (only go-to tasks use it; otherwise nothing happens)",
)
# facing 0 east, 1 south, 2 west, 3 north (Farama), as directions of `core.grid`
FACING = (RIGHT, DOWN, LEFT, UP)
DIR_VEC = DIR_DELTAS[np.array(FACING)]  # int32[4, 2] (d_row, d_col) per facing
DIR_NAMES = ("east (right)", "south (down)", "west (left)", "north (up)")


def pack(typ, color=0, state=0, contents=0):
    """Packed cell value (works on Python ints and JAX arrays)."""
    return typ | (color << 4) | (state << 7) | (contents << 9)


def cell_type(c):
    return c & 15


def cell_color(c):
    return (c >> 4) & 7


def cell_state(c):
    return (c >> 7) & 3


def cell_contents(c):
    return c >> 9


def item_of(c):
    """Type and colour of a cell, without door state or contents (what a mission names)."""
    return c & 127


def item_index(c):
    """Index into ITEM_NAMES for a key/ball/box cell value (0 for anything else)."""
    t = cell_type(c)
    return jnp.where((t >= KEY) & (t <= BOX), 1 + (t - KEY) * 6 + cell_color(c), 0)


ITEM_NAMES = ("nothing",) + tuple(f"{c} {TYPE_NAMES[t]}" for t in (KEY, BALL, BOX) for c in COLORS)

# --- events ------------------------------------------------------------------------------------
EVENTS = (
    "",
    "Mission complete!",
    "You stepped into lava. Episode over.",
    "You ran into a moving obstacle. Episode over.",
    "That was the wrong object. Episode over.",
    "Mission failed. Episode over.",
    "You picked it up.",
    "You put it down.",
    "The door opens.",
    "The door closes.",
    "The door is locked: carry the key of its colour and TOGGLE.",
    "You unlocked the door with the key.",
    "You opened the box.",
)
(EV_NONE, EV_SUCCESS, EV_LAVA, EV_OBSTACLE, EV_WRONG, EV_FAIL, EV_PICK, EV_DROP, EV_OPEN,
 EV_CLOSE, EV_LOCKED, EV_UNLOCK, EV_BOX) = range(len(EVENTS))


# --- state -------------------------------------------------------------------------------------
@struct.dataclass
class MiniGridState(EnvState):
    grid: jax.Array  # int32[H, W] packed cells
    pos: jax.Array  # int32[2] (row, col)
    dir: jax.Array  # int32 0..3
    carry: jax.Array  # int32 packed cell being carried (0 = nothing)
    mission: jax.Array  # int32 index into the card's mission names
    target: jax.Array  # int32[2] target cell (go-to target, put-near target, memory success, red door)
    aux: jax.Array  # int32[2] second cell (memory failure cell, blue door)
    target_item: jax.Array  # int32 packed type|colour the mission names (pickup/fetch/put-near)
    obstacles: jax.Array  # int32[K, 2] moving obstacle cells (K = 0 unless dynamic obstacles)


@struct.dataclass
class Level:
    """What a generator returns (every field of the state a task may set)."""

    grid: jax.Array
    pos: jax.Array
    dir: jax.Array
    mission: jax.Array = 0
    target: jax.Array = None
    aux: jax.Array = None
    target_item: jax.Array = 0
    obstacles: jax.Array = None


RULES = ("goal", "pickup_target", "wrong_pickup_fails", "unlock", "goto", "putnear", "redblue", "memory")


# success / failure rules a task can switch on (host-side declaration; `params_of` makes them traced)
@dataclasses.dataclass(frozen=True)
class TaskConfig:
    height: int
    width: int
    max_steps: int
    generator: Callable[..., Level]  # gen(rnd, **level) -> Level (one function per graph: levels.py)
    missions: tuple[str, ...]
    rules: str
    goal: bool = True  # stepping on the goal square succeeds
    pickup_target: bool = False  # picking up target_item succeeds
    wrong_pickup_fails: bool = False  # picking up anything else fails (Fetch, PutNear)
    unlock: bool = False  # opening a locked door succeeds (Unlock)
    goto: int = 0  # 1: DONE within one cell (8-neighbourhood) of target; 2: DONE orthogonally next to it
    putnear: bool = False  # DROP while carrying ends; success if dropped next to target
    redblue: bool = False  # open the door at target (red) before the one at aux (blue)
    memory: bool = False  # reaching target succeeds, reaching aux fails
    n_obstacles: int = 0
    partial: bool = False  # 7x7 egocentric view instead of the full grid
    level: tuple[tuple[str, int], ...] = ()  # traced generator inputs (name, value), e.g. random_start
    also_compile: tuple[str, ...] = ()  # RULES compiled in though off here (variants that use them share the program)

    def compiled_rules(self) -> frozenset[str]:
        """The success / failure rules the program contains: the task's own plus `also_compile`
        (a rule left out costs nothing at run or compile time; one compiled in but off is a no-op)."""
        unknown = set(self.also_compile) - set(RULES)
        if unknown:
            raise ValueError(f"TaskConfig.also_compile: unknown rules {sorted(unknown)}; valid: {', '.join(RULES)}")
        return frozenset(r for r in RULES if getattr(self, r)) | frozenset(self.also_compile)

    def static_key(self) -> tuple:
        """What fixes the compiled program: shapes, step budget, generator graph, view, rules."""
        return (self.height, self.width, self.max_steps, self.generator, self.n_obstacles, self.partial,
                tuple(name for name, _ in self.level), tuple(sorted(self.compiled_rules())))


@struct.dataclass
class MiniGridParams:
    """Traced per-variant data of a MiniGrid task: which success / failure rules apply (the
    `TaskConfig` flags of the same names) and the generator's level inputs."""

    goal: jax.Array  # bool
    pickup_target: jax.Array  # bool
    wrong_pickup_fails: jax.Array  # bool
    unlock: jax.Array  # bool
    goto: jax.Array  # int32: 0 off, 1 DONE within the 8-neighbourhood, 2 DONE orthogonally next to it
    putnear: jax.Array  # bool
    redblue: jax.Array  # bool
    memory: jax.Array  # bool
    level: dict  # name -> int32 scalar, passed to the generator as keyword arguments


def params_of(cfg: TaskConfig) -> MiniGridParams:
    """The traced params of a declared task."""
    flags = {r: jnp.asarray(bool(getattr(cfg, r))) for r in RULES if r != "goto"}
    return MiniGridParams(**flags, goto=jnp.asarray(cfg.goto, jnp.int32),
                          level={name: jnp.asarray(v, jnp.int32) for name, v in cfg.level})


def fresh_state(cfg: TaskConfig, lv: Level) -> MiniGridState:
    """Initial state from a generated level."""
    z2 = jnp.zeros((2,), jnp.int32)
    return MiniGridState(
        **init_state_fields(),
        grid=lv.grid.astype(jnp.int32), pos=jnp.asarray(lv.pos, jnp.int32),
        dir=jnp.asarray(lv.dir, jnp.int32), carry=jnp.zeros((), jnp.int32),
        mission=jnp.asarray(lv.mission, jnp.int32),
        target=z2 if lv.target is None else jnp.asarray(lv.target, jnp.int32),
        aux=z2 if lv.aux is None else jnp.asarray(lv.aux, jnp.int32),
        target_item=jnp.asarray(lv.target_item, jnp.int32),
        obstacles=(jnp.zeros((cfg.n_obstacles, 2), jnp.int32) if lv.obstacles is None
                   else jnp.asarray(lv.obstacles, jnp.int32)),
    )


# --- mechanics (one implementation each) -------------------------------------------------------
def forward_passable(c):
    """Can the agent walk onto a cell: floor, goal, lava (deadly) or an open door."""
    t = cell_type(c)
    return (t == EMPTY) | (t == GOAL) | (t == LAVA) | ((t == DOOR) & (cell_state(c) == OPEN))


def is_pickable(c):
    t = cell_type(c)
    return (t == KEY) | (t == BALL) | (t == BOX)


def toggle_cell(c, carry):
    """TOGGLE on a cell -> (new cell, event). Doors open/close, a locked door opens with the key
    of its colour (and stays open), a box is replaced by its contents; anything else unchanged."""
    t, s = cell_type(c), cell_state(c)
    is_door = t == DOOR
    has_key = (cell_type(carry) == KEY) & (cell_color(carry) == cell_color(c))
    base = c & ~(3 << 7)
    door_new = jnp.where(s == LOCKED, jnp.where(has_key, base | (OPEN << 7), c),
                         jnp.where(s == OPEN, base | (CLOSED << 7), base | (OPEN << 7)))
    door_ev = jnp.where(s == LOCKED, jnp.where(has_key, EV_UNLOCK, EV_LOCKED),
                        jnp.where(s == OPEN, EV_CLOSE, EV_OPEN))
    is_box = t == BOX
    new = jnp.where(is_door, door_new, jnp.where(is_box, cell_contents(c), c))
    ev = jnp.where(is_door, door_ev, jnp.where(is_box, EV_BOX, EV_NONE))
    return new, ev


NEIGHBOURS = np.array([[dr, dc] for dr in (-1, 0, 1) for dc in (-1, 0, 1)], np.int32)


def obstacle_draws(key, k: int) -> jax.Array:
    """int32[k, 9] random numbers in [0, 2**31) for k obstacles, from `hash_bits` of the step key
    (an integer hash, no Threefry kernel: ~0.5 CPU-s less compile of the vmapped step at
    B = 4096, and a 2-3x faster obstacle move)."""
    return (hash_bits(key, 9 * k) >> 1).astype(jnp.int32).reshape(k, 9)


def move_obstacles(key, grid, obstacles, agent_pos):
    """Farama DynamicObstacles: each obstacle in turn moves to a uniformly random empty cell of
    its 3x3 neighbourhood (never onto the agent, the goal or another object); stays if none.
    Obstacle i takes the admissible neighbour with the largest of its 9 draws. Obstacles stay
    inside the outer wall, so their neighbours are fixed offsets of the flattened grid."""
    k = obstacles.shape[0]
    h, w = grid.shape
    draws = obstacle_draws(key, k)
    offsets = jnp.asarray(NEIGHBOURS[:, 0] * w + NEIGHBOURS[:, 1])
    agent = agent_pos[0] * w + agent_pos[1]

    def one(i, carry):
        flat, cells = carry
        p = cells[i]
        cand = p + offsets
        ok = (flat[cand] == EMPTY) & (cand != agent)
        moved = jnp.any(ok)
        new = jnp.where(moved, cand[jnp.argmax(jnp.where(ok, draws[i], -1))], p)
        item = flat[p]
        flat = flat.at[p].set(jnp.where(moved, EMPTY, item)).at[new].set(item)
        return flat, cells.at[i].set(new)

    flat, cells = jax.lax.fori_loop(0, k, one, (grid.reshape(-1), obstacles[:, 0] * w + obstacles[:, 1]))
    return flat.reshape(h, w), jnp.stack([cells // w, cells % w], -1).astype(jnp.int32)


def task_outcome(rules: frozenset[str], s: MiniGridState, p: MiniGridParams, action, grid, pos, fwd,
                 front, new_front, picks, drops):
    """(success, fail, wrong pickup) of a turn: each rule in `rules` (static: compiled in) counts
    where its traced flag in p is on; lava always fails. `grid`, `pos`: after the move; `front`,
    `new_front`: the cell ahead before / after the action."""
    toggles = action == TOGGLE
    here = cell_type(grid[pos[0], pos[1]])
    success, fail, wrong = jnp.bool_(False), here == LAVA, jnp.bool_(False)
    if "goal" in rules:
        success = success | (p.goal & (here == GOAL))
    if rules & {"pickup_target", "wrong_pickup_fails"}:
        match = item_of(front) == s.target_item
        if "pickup_target" in rules:
            success = success | (p.pickup_target & picks & match)
        if "wrong_pickup_fails" in rules:
            wrong = p.wrong_pickup_fails & picks & ~match
    if "unlock" in rules:
        success = success | (p.unlock & toggles & (cell_type(front) == DOOR) & (cell_state(front) == LOCKED)
                             & (cell_state(new_front) == OPEN))
    if "goto" in rules:
        dr = jnp.abs(s.pos - s.target)
        near = jnp.where(p.goto == 1, dr.max() <= 1, dr.sum() == 1)
        success = success | ((p.goto > 0) & (action == DONE) & near)
        fail = fail | ((p.goto > 0) & (((action == DONE) & ~near) | toggles))
    if "putnear" in rules:
        near = jnp.abs(fwd - s.target).max() <= 1
        success = success | (p.putnear & drops & near)
        fail = fail | (p.putnear & (action == DROP) & (s.carry != 0) & ~(drops & near))
    if "redblue" in rules:  # opening the blue door (always) ends the episode: red-after-blue cannot occur
        red_before = cell_state(s.grid[s.target[0], s.target[1]]) == OPEN
        blue_opened = ((cell_state(grid[s.aux[0], s.aux[1]]) == OPEN)
                       & (cell_state(s.grid[s.aux[0], s.aux[1]]) != OPEN))
        success = success | (p.redblue & blue_opened & red_before)
        fail = fail | (p.redblue & blue_opened & ~red_before)
    if "memory" in rules:
        success = success | (p.memory & jnp.all(pos == s.target))
        fail = fail | (p.memory & jnp.all(pos == s.aux))
    return success, fail | wrong, wrong


def engine_step(cfg: TaskConfig, key, s: MiniGridState, action, p: MiniGridParams):
    """One turn of the shared rules -> (state, reward, terminated, event). Static shape and
    obstacle count from cfg; which success / failure rules apply from the traced params p."""
    grid = s.grid
    h, w = grid.shape
    if "memory" in cfg.compiled_rules():  # Farama Memory: PICKUP acts as TOGGLE, nothing is ever carried
        action = jnp.where(p.memory & (action == PICKUP), TOGGLE, action)
    fwd = jnp.clip(s.pos + DIR_VEC[s.dir], 0, jnp.array([h - 1, w - 1]))
    hit_obstacle = jnp.bool_(False)
    obstacles = s.obstacles
    if cfg.n_obstacles:
        hit_obstacle = (action == MOVE_FORWARD) & (cell_type(grid[fwd[0], fwd[1]]) == OBSTACLE)
        grid, obstacles = move_obstacles(key, grid, obstacles, s.pos)
    front = grid[fwd[0], fwd[1]]

    d = jnp.where(action == TURN_LEFT, (s.dir + 3) % 4, jnp.where(action == TURN_RIGHT, (s.dir + 1) % 4, s.dir))
    moves = (action == MOVE_FORWARD) & forward_passable(front)
    pos = jnp.where(moves, fwd, s.pos)

    picks = (action == PICKUP) & (s.carry == 0) & is_pickable(front)
    drops = (action == DROP) & (s.carry != 0) & (front == EMPTY)
    toggled, tog_ev = toggle_cell(front, s.carry)
    toggles = action == TOGGLE
    new_front = jnp.where(picks, EMPTY, jnp.where(drops, s.carry, jnp.where(toggles, toggled, front)))
    grid = grid.at[fwd[0], fwd[1]].set(new_front)
    carry = jnp.where(picks, front, jnp.where(drops, 0, s.carry))

    success, fail, wrong = task_outcome(cfg.compiled_rules(), s, p, action, grid, pos, fwd, front, new_front,
                                        picks, drops)
    fail = fail | hit_obstacle
    lava = cell_type(grid[pos[0], pos[1]]) == LAVA
    success = success & ~fail

    reward = jnp.where(success, 1.0 - 0.9 * (s.t + 1).astype(jnp.float32) / cfg.max_steps, 0.0)
    event = jnp.select(
        [success, lava, hit_obstacle, wrong, fail, picks, drops, toggles],
        [EV_SUCCESS, EV_LAVA, EV_OBSTACLE, EV_WRONG, EV_FAIL, EV_PICK, EV_DROP, tog_ev], EV_NONE)
    nxt = s.replace(grid=grid, pos=pos, dir=d, carry=carry, obstacles=obstacles)
    return nxt, reward.astype(jnp.float32), success | fail, event.astype(jnp.int32)
