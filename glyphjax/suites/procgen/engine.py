"""The Procgen engine: level sets, one state, side-view physics, walking, patrols and the
agent-centred view, shared by every Procgen game (each game module is a declaration on it).

Levels (OpenAI Procgen's design): a level is a deterministic function of its level seed (a
uint32 hashed with the game's name into the generator's random numbers); the episode key only
picks which level of the level set is played. A level set is the traced `ProcgenParams`
(`level_start`, `level_count`): training sets lie in [0, TEST_LEVEL_START) and the test set is
[TEST_LEVEL_START, 2**31), so train and test levels never meet (`level_params` builds both).
The navigation games move nothing at random, so an episode is a function of its level and
actions alone (what makes the planner's certificates proofs).

Level banks: a level set of at most BANK_SIZE levels carries its generated start states in the
params (`LevelBank`, built once per level set by the task shell), and reset copies the drawn
level's row instead of running the generator; the row equals what the generator returns, so
episodes are the same either way. Auto-reset (which builds a fresh reset for every env on every
step) then costs a copy, not a level generation, per env and step.

Physics (side-view games): row grows downwards; LEFT/RIGHT move one column per turn, on the
ground and in the air; a jump, started only when standing on something, follows the 7-turn arc
`JUMP_ARC_DY` (3 up, 1 level, 3 down); otherwise a body falls one row per turn. Horizontal motion
is applied before vertical; a ceiling ends the rise (the arc skips to its descent) and landing
ends it. Outside the level's columns and above its top row is solid; below the bottom is open.
"""

from __future__ import annotations

import dataclasses
import zlib
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from glyphjax.core.entities import Pool
from glyphjax.core.grid import DIR_DELTAS, DOWN, LEFT, RIGHT, UP
from glyphjax.core.platform import ARC_LEN, DESCENT, JUMP_ARC_DY, body_step, solid_at  # noqa: F401 (re-exported)
from glyphjax.core.sampling import Draws, hash32, hash_bits
from glyphjax.core.types import EnvState, init_state_fields

TEST_LEVEL_START = 1 << 30  # first level seed of the test set (training sets lie below it)
LEVEL_END = 1 << 31  # level seeds are < 2**31 (they show in the int32 HUD)
DEFAULT_NUM_LEVELS = 200  # Procgen's generalisation protocol: 200 training levels
BANK_SIZE = 256  # level sets of at most this many levels keep their generated levels in params
DISTRIBUTION_MODES = ("easy", "hard")

# Glyphs every Procgen game draws with the same meaning.
PLAYER, EMPTY, OUTSIDE = "@", " ", "░"
GLYPHS_COMMON = {PLAYER: "you", EMPTY: "empty space", OUTSIDE: "outside the level (its bounds)"}

# Walking actions (grid games): NOOP, LEFT, RIGHT, UP, DOWN as core.grid directions (-1 = stay).
WALK_ACTIONS = ("NOOP", "LEFT", "RIGHT", "UP", "DOWN")
WALK_DESCRIPTIONS = ("do nothing", "move one cell left", "move one cell right", "move one cell up",
                     "move one cell down")
_WALK_DIR = jnp.array([-1, LEFT, RIGHT, UP, DOWN], jnp.int32)
AIRBORNE_NAMES = ("grounded", "airborne")
PHYSICS_RULES = ("A side view (row 0 at the top). LEFT/RIGHT move one column a turn, also in the "
                 "air; a jump rises 3 rows over 3 turns, stays 1 turn, then falls (one row a turn, "
                 "as whenever nothing is under you); a ceiling stops the rise. ")


@struct.dataclass
class ProcgenParams:
    """Traced parameters: which levels reset draws from and the distribution mode."""

    level_start: jax.Array  # uint32: first level seed of the level set
    level_count: jax.Array  # uint32: number of consecutive level seeds in the set (>= 1)
    hard: jax.Array  # bool: distribution_mode == "hard"
    bank: "LevelBank | None" = None  # generated levels reset may copy instead of generating


@struct.dataclass
class LevelBank:
    """The generated start states of the level seeds [first, first + count), padded to a static
    BANK_SIZE rows, so a reset on those levels is a copy instead of a run of the generator."""

    first: jax.Array  # uint32: level seed of row 0
    count: jax.Array  # uint32: rows that hold a level (0: an empty bank)
    words: jax.Array  # int32[BANK_SIZE, n]: each row a start state packed by `pack_rows`
    layout: tuple = struct.field(pytree_node=False)  # (treedef, ((shape, dtype), ...)) of a state

    def state(self, row: jax.Array) -> "ProcgenState":
        """The start state of bank row `row`: one gather of its packed words (a gather per state
        field, ~40 in a shooter, each compiles to a kernel of its own in the auto-reset step)."""
        return unpack_row(self.words[row], self.layout)


def pack_rows(tree) -> tuple[jax.Array, tuple]:
    """(int32[N, n] words, layout): a pytree of arrays with a leading axis N, each row's leaves
    flattened into n int32 words (bool and narrow integers widened, 32-bit floats and unsigned
    integers bit-cast), losslessly; `unpack_row(words[i], layout)` is row i of the tree."""
    leaves, treedef = jax.tree.flatten(tree)
    cols, shapes = [], []
    for x in leaves:
        x = jnp.asarray(x)
        if x.dtype.itemsize > 4 or x.dtype == jnp.float16 or x.dtype == jnp.bfloat16:
            raise TypeError(f"pack_rows: {x.dtype} does not fit an int32 word")
        flat = x.reshape(x.shape[0], -1)
        if x.dtype in (jnp.float32, jnp.uint32):
            flat = jax.lax.bitcast_convert_type(flat, jnp.int32)
        cols.append(flat.astype(jnp.int32))
        shapes.append((x.shape[1:], x.dtype))
    return jnp.concatenate(cols, axis=1), (treedef, tuple(shapes))


def unpack_row(words: jax.Array, layout: tuple):
    """The pytree of one row of `pack_rows`' words (int32[n])."""
    treedef, shapes = layout
    leaves, at = [], 0
    for shape, dtype in shapes:
        size = int(np.prod(shape, dtype=np.int64))
        part = words[at:at + size].reshape(shape)
        at += size
        if dtype in (jnp.float32, jnp.uint32):
            leaves.append(jax.lax.bitcast_convert_type(part, dtype))
        else:
            leaves.append(part.astype(dtype))
    return jax.tree.unflatten(treedef, leaves)


def level_params(num_levels: int = DEFAULT_NUM_LEVELS, start_level: int = 0, split: str = "train",
                 distribution_mode: str = "easy") -> ProcgenParams:
    """The level set of a split. train: seeds [start_level, start_level + num_levels) below
    TEST_LEVEL_START (num_levels = 0: every training seed from start_level). test: the same
    offsets counted from TEST_LEVEL_START (num_levels = 0: the whole test range)."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    if distribution_mode not in DISTRIBUTION_MODES:
        raise ValueError(f"distribution_mode must be one of {DISTRIBUTION_MODES}, got {distribution_mode!r}")
    if num_levels < 0 or start_level < 0:
        raise ValueError(f"num_levels and start_level must be >= 0, got {num_levels}, {start_level}")
    base, end = (0, TEST_LEVEL_START) if split == "train" else (TEST_LEVEL_START, LEVEL_END)
    start = base + start_level
    count = (end - start) if num_levels == 0 else num_levels
    if start >= end or start + count > end:
        raise ValueError(f"{split} levels are seeds [{base}, {end}): start_level={start_level} with "
                         f"num_levels={num_levels} leaves that range; lower them")
    return ProcgenParams(level_start=jnp.uint32(start), level_count=jnp.uint32(count),
                         hard=jnp.bool_(distribution_mode == "hard"))


def draw_level(key: jax.Array, params: ProcgenParams) -> jax.Array:
    """The level seed (uint32) an episode plays: uniform over the level set, from the episode key."""
    word = hash_bits(key, 1)[0]
    return params.level_start + word % jnp.maximum(params.level_count, jnp.uint32(1))


def game_salt(name: str) -> int:
    """A fixed 32-bit number per game, so equal level seeds of two games are unrelated levels."""
    return zlib.crc32(f"procgen/{name}".encode()) & 0xFFFFFFFF


def level_draws(level: jax.Array, salt: int, n: int) -> Draws:
    """The generator's n uniforms: a pure function of (game, level seed)."""
    level = jnp.asarray(level, jnp.uint32)
    words = jnp.stack([hash32(level ^ jnp.uint32(salt)), hash32(level + jnp.uint32(salt ^ 0x9E3779B9))])
    return Draws.hashed(words, n)


# --- state ------------------------------------------------------------------------------------
@struct.dataclass
class ProcgenState(EnvState):
    world: jax.Array  # int8[H, W]: the game's cell codes (0 = empty)
    pos: jax.Array  # int32[2]: your (row, col)
    phase: jax.Array  # int32: next turn of the jump arc (1..7), 0 = not jumping
    air_jump: jax.Array  # bool: a jump in the air is still available (double-jump games)
    airborne: jax.Array  # bool: nothing under you or mid-jump after the last turn (side views)
    level: jax.Array  # uint32: level seed
    items: jax.Array  # int32: items collected so far (coins, stars, gems, bombs...)
    total: jax.Array  # int32: items the level holds
    keys: jax.Array  # int32: bit k set = key k held
    earned: jax.Array  # float32: reward paid so far
    ents: jax.Array  # int32[N, 3]: entity (row, col, direction)
    alive: jax.Array  # bool[N]: entity present
    pool: Pool | None = None  # a game's core.entities pool (enemies, shots), when it has one
    timer: jax.Array | None = None  # int32: a game's countdown (e.g. chaser's power turns left)


def fresh_state(world, pos, level, total=0, ents=None, alive=None, pool=None, timer=None) -> ProcgenState:
    """A new episode's state from a generated level (no walkers: a one-slot empty `ents`)."""
    ents = jnp.zeros((1, 3), jnp.int32) if ents is None else jnp.asarray(ents, jnp.int32)
    alive = jnp.zeros((ents.shape[0],), jnp.bool_) if alive is None else jnp.asarray(alive, jnp.bool_)
    return ProcgenState(**init_state_fields(), world=jnp.asarray(world, jnp.int8),
                        pos=jnp.asarray(pos, jnp.int32), phase=jnp.int32(0), air_jump=jnp.bool_(True),
                        airborne=jnp.bool_(False),
                        level=jnp.asarray(level, jnp.uint32), items=jnp.int32(0),
                        total=jnp.asarray(total, jnp.int32), keys=jnp.int32(0),
                        earned=jnp.float32(0), ents=ents, alive=alive, pool=pool,
                        timer=None if timer is None else jnp.asarray(timer, jnp.int32))


# --- cells --------------------------------------------------------------------------------------
def cell_at(world: jax.Array, r: jax.Array, c: jax.Array, outside: int) -> jax.Array:
    """The code of cell (r, c), or `outside` for a cell off the world."""
    h, w = world.shape
    inside = (r >= 0) & (r < h) & (c >= 0) & (c < w)
    return jnp.where(inside, world[jnp.clip(r, 0, h - 1), jnp.clip(c, 0, w - 1)].astype(jnp.int32), outside)


def walk_target(pos: jax.Array, action: jax.Array) -> jax.Array:
    """The cell a WALK_ACTIONS action heads for (pos itself for NOOP / no action)."""
    d = _WALK_DIR[jnp.clip(action, 0, 4)]
    delta = jnp.where((action > 0) & (d >= 0), DIR_DELTAS[jnp.maximum(d, 0)], 0)
    return pos + delta


def patrol(solid: jax.Array, ents: jax.Array, alive: jax.Array) -> jax.Array:
    """Walkers step one column along their direction, turning (without moving) at a wall or at a
    ledge; -> ents with new (row, col, direction)."""
    r, c, d = ents[:, 0], ents[:, 1], ents[:, 2]
    ahead = c + d
    ok = ~solid_at(solid, r, ahead) & solid_at(solid, r + 1, ahead)
    c = jnp.where(alive & ok, ahead, c)
    d = jnp.where(alive & ~ok, -d, d)
    return jnp.stack([r, c, d], axis=1).astype(jnp.int32)


# --- view -----------------------------------------------------------------------------------------
def agent_view(codes: jax.Array, pos: jax.Array, rows: int, cols: int, outside: int) -> jax.Array:
    """The rows x cols window of `codes` centred on pos (you sit at row rows//2, column cols//2);
    cells beyond the world read `outside`."""
    return window(codes, pos - jnp.array([rows // 2, cols // 2]), rows, cols, outside)


def window(codes: jax.Array, origin: jax.Array, rows: int, cols: int, outside: int) -> jax.Array:
    """The rows x cols window of `codes` whose top-left cell is `origin` (it may lie off the
    world, by less than the window's size); cells beyond the world read `outside`."""
    padded = jnp.pad(codes, ((rows, rows), (cols, cols)), constant_values=outside)
    return jax.lax.dynamic_slice(padded, (origin[0] + rows, origin[1] + cols), (rows, cols))


# --- game declarations ----------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Game:
    """A Procgen game on this engine: static shapes, card text and three pure functions.

    generate(draws, hard, level) -> ProcgenState; step(state, action, params) -> (state, reward,
    terminated, event), or step(state, action, params, key) when `keyed` (games whose enemies
    move at random: the key is the episode's step key); paint(state) -> int32[H, W] cell codes
    (the engine draws you on top).
    `cells` lists the glyph of each cell code (code 0 is empty space); `view` is (rows, cols);
    `progress(state) -> int32` ranks states for the planner (higher = closer to the goal);
    `plan_key(state)` is what the planner's duplicate check compares (default: the whole state;
    a smaller projection that fixes the future makes the search cheaper).
    `hud_values(state)` -> the four int32 HUD fields (items, total, keys, airborne) when a game
    shows something else in them; `hud_enums` names a field's values (overriding keys/airborne).
    `view_origin(state)` places a centred game's window elsewhere than centred on you (a game
    that shows more ahead of you than behind)."""

    name: str
    world: tuple[int, int]
    view: tuple[int, int]
    cells: str
    glyphs: dict
    actions: tuple[str, ...]
    descriptions: tuple[str, ...]
    rules: str
    reward: str
    events: tuple[str, ...]
    success: tuple[int, ...]
    generate: Callable
    step: Callable
    paint: Callable
    draws: int
    hud: str = "Collected: {items} / {total}"
    side_view: bool = False  # physics game: the HUD shows grounded / airborne
    return_range: tuple[float, float] = (0.0, 1.0)
    hard_notes: str = ""
    scripted_policy: Callable | None = None
    centred: bool = True  # False: the view is the whole (view-sized) world, not a window on you
    progress: Callable = lambda state: jnp.int32(0)  # planner's preference when a depth overflows
    plan_key: Callable = lambda state: state  # what the planner hashes to tell states apart
    keyed: bool = False  # step takes the episode's step key (random enemy moves)
    keys_count: bool = False  # the HUD shows `keys` as a number (a game's own counter), not key names
    hud_values: Callable | None = None
    hud_enums: dict = dataclasses.field(default_factory=dict)
    view_origin: Callable | None = None  # state -> int32[2]: the window's top-left cell (default: centred on you)
    view_note: str = ""  # the card's sentence on where a `view_origin` window lies


def cell_table(game: Game) -> np.ndarray:
    """uint32 code points per cell code: the game's cells, then you, then outside."""
    return np.array([ord(ch) for ch in game.cells + PLAYER + OUTSIDE], np.uint32)


def move_body(state: ProcgenState, solid: jax.Array, action: jax.Array, dx_table: tuple[int, ...],
              jump_table: tuple[bool, ...], double_jump: bool = False) -> ProcgenState:
    """`body_step` for you under an action (dx and jump looked up per action; no action = NOOP)."""
    a = jnp.clip(action, 0, len(dx_table) - 1)
    a = jnp.where(action < 0, 0, a)
    dx = jnp.array(dx_table, jnp.int32)[a]
    jump = jnp.array(jump_table, jnp.bool_)[a]
    pos, phase, air_jump, airborne = body_step(solid, state.pos, state.phase, state.air_jump, dx, jump, double_jump)
    return state.replace(pos=pos, phase=phase, air_jump=air_jump, airborne=airborne)


def paint_entities(codes: jax.Array, ents: jax.Array, alive: jax.Array, code: int) -> jax.Array:
    """codes with `code` drawn at every live entity (dead ones leave their cell as it was)."""
    r, c = ents[:, 0], ents[:, 1]
    h, w = codes.shape
    rr, cc = jnp.clip(r, 0, h - 1), jnp.clip(c, 0, w - 1)
    return codes.at[rr, cc].set(jnp.where(alive, code, codes[rr, cc]))
