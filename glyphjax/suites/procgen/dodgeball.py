"""Dodgeball: hit every enemy in a walled arena with your balls, then leave by the exit (Procgen's
dodgeball, loosely after Atari's Berzerk).

Arena 12 x 14, the whole of it in view, inside a border (`█`, it stops you). The level (seed)
splits the arena like Procgen: 2 times (hard 4) a room is cut by a wall (`▧`, deadly to touch)
across its middle that leaves a gap of 1/4 to 3/4 of its length at one end; the halves and the
gap strip are the new rooms. Pockets the walls seal off become wall too. It also fixes your start,
the exit in the border (`⊠`, locked; `◈` once every enemy is hit) and 3-6 enemies (`♟`) at
least 4 steps from you, each walking one of the 4 directions.
Turn order: you move one cell (LEFT/RIGHT/UP/DOWN also turn you that way, even when blocked);
THROW (at most every THROW_EVERY turns) sends a ball (`•`) from you the way you face, a cell a
turn; enemies move a cell every 3rd turn (hard: every 2nd) and turn round at walls; one move in
ten they pick a new direction at random; an enemy that may fire (its first shot after
FIRST_FIRE turns, then every FIRE_DELAY to FIRE_DELAY + 3 turns) and shares your row or
column throws a ball (`*`) at you and turns to you. Balls vanish at walls; your ball removes
the first enemy it meets (same cell or swapping cells); walls, enemies and enemy balls kill you.
Random moves and reload times come from the episode's step key, never the level seed.
Reward (pattern D): +1/20 per enemy hit (the catalogue's constant); reaching the open exit pays
the rest of a full return, 1 - N/20 (N = the level's enemies); death pays -1 and ends the
episode (the return is then k/20 - 1 after k hits). Return range [-1, 1].
Differs from OpenAI Procgen: a grid with one move per turn (Procgen's bodies move continuously,
the enemies far slower than you); its rewards are 2 per enemy and 10 for the exit.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core import entities
from glyphjax.core.grid import DIR_DELTAS, DOWN, LEFT, RIGHT, UP, bfs_distances, border_mask, dilate, flood
from glyphjax.core.sampling import hash_bits
from glyphjax.suites.procgen.engine import WALK_ACTIONS, WALK_DESCRIPTIONS, Game, ProcgenState, fresh_state
from glyphjax.suites.procgen.shooters import BOLT, GLYPHS_SHOTS, SHOT, cells_of, every, extend, threat_cells

H, W = 12, 14
N_ENEMIES, N_BALLS, N_BOLTS = 6, 4, 8
ROOMS = 12  # room slots of the splitter (at most 1 + 2 per split are live)
SPLITS = (2, 4)  # easy, hard
ENEMY_PERIOD = (3, 2)  # easy, hard: turns per enemy move
FIRST_FIRE, FIRE_DELAY = (15, 8), (20, 12)  # easy, hard
TURN_P = 0.1
THROW_EVERY = 4
GOAL = 20  # hits of the catalogue's +1/GOAL
EMPTY_C, BORDER_C, WALL_C, LOCKED_C, EXIT_C, ENEMY_C, BALL_C, BOLT_C = range(8)
BORDER, WALL, LOCKED, EXIT, ENEMY = "█", "▧", "⊠", "◈", "♟"
ACTIONS = WALK_ACTIONS + ("THROW",)
DESCRIPTIONS = WALK_DESCRIPTIONS + (f"throw a ball the way you face (at most every {THROW_EVERY} turns)",)
THROW = len(WALK_ACTIONS)
RELOAD_NAMES = ("ready",) + tuple(f"in {k} turn" + "s" * (k > 1) for k in range(1, THROW_EVERY))
_ACTION_DIR = jnp.array([-1, LEFT, RIGHT, UP, DOWN, -1], jnp.int32)
EVENTS = ("", "Enemy hit.", "Every enemy is hit: the exit is open.", "You touched a wall.",
          "An enemy caught you.", "An enemy ball hit you.", "You reached the exit. You win!")
HIT, OPENED, WALLED, CAUGHT, SHOT_DOWN, WIN = range(1, 7)


@struct.dataclass(kw_only=True)  # after ProcgenState's defaulted fields
class DodgeballState(ProcgenState):
    enemies: entities.Pool  # velocity one of the 4 directions; timer = turns until it may fire
    balls: entities.Pool  # your balls
    bolts: entities.Pool  # enemy balls
    facing: jax.Array  # int32: core.grid direction you face
    cool: jax.Array  # int32: turns until you may throw again


# --- level -------------------------------------------------------------------------------------
def _split(draws, rooms, n, walls, active):
    """One Procgen room split: a random live room gets a wall across its middle from one end,
    leaving a gap of 1/4-3/4 of that length; the room is replaced by the two halves and the gap
    strip (rooms too thin to split again are dropped). rooms: int32[ROOMS, 4] (row, col, h, w)."""
    u = draws.uniform((4,))
    idx = jnp.clip(jnp.floor(u[0] * n).astype(jnp.int32), 0, ROOMS - 1)
    r, c, h, w = rooms[idx]
    can_h, can_v = (h >= 3) & (w >= 2), (w >= 3) & (h >= 2)
    horiz = jnp.where(can_h & can_v, u[1] < 0.5, can_h)  # the wall runs along a row
    ok = active & (n > 0) & (can_h | can_v)
    a0, b0, na, nb = jnp.where(horiz, jnp.stack([r, c, h, w]), jnp.stack([c, r, w, h]))
    gap = 0.25 * (1 + jnp.floor(u[3] * 3))
    length = jnp.clip(jnp.round((1 - gap) * nb).astype(jnp.int32), 1, nb - 1)
    start = jnp.where(u[2] < 0.5, b0, b0 + nb - length)
    gap_start = jnp.where(u[2] < 0.5, b0 + length, b0)
    mid = a0 + na // 2
    rr, cc = jnp.arange(H)[:, None], jnp.arange(W)[None, :]
    along, across = jnp.where(horiz, rr, cc), jnp.where(horiz, cc, rr)
    walls = walls | (ok & (along == mid) & (across >= start) & (across < start + length))
    new = jnp.stack([jnp.stack([a0, start, na // 2, length]),
                     jnp.stack([mid + 1, start, na - na // 2 - 1, length]),
                     jnp.stack([a0, gap_start, na, nb - length])])
    new = jnp.where(horiz, new, new[:, jnp.array([1, 0, 3, 2])])
    last = jnp.clip(n - 1, 0, ROOMS - 1)
    rooms = jnp.where(ok, rooms.at[idx].set(rooms[last]), rooms)
    n = n - ok
    for room in new:
        keep = ok & (room[2] >= 2) & (room[3] >= 2) & ((room[2] >= 3) | (room[3] >= 3))
        rooms = rooms.at[jnp.clip(n, 0, ROOMS - 1)].set(jnp.where(keep, room, rooms[jnp.clip(n, 0, ROOMS - 1)]))
        n = n + keep
    return rooms, n, walls


def dodgeball_generate(draws, hard, level) -> DodgeballState:
    rooms = jnp.zeros((ROOMS, 4), jnp.int32).at[0].set(jnp.array([1, 1, H - 2, W - 2]))
    n, walls = jnp.int32(1), jnp.zeros((H, W), bool)
    for i in range(SPLITS[1]):
        rooms, n, walls = _split(draws, rooms, n, walls, (i < SPLITS[0]) | hard)
    border = jnp.asarray(border_mask(H, W))
    flat, _ = draws.cell(~border & ~walls)
    start = jnp.stack([flat // W, flat % W]).astype(jnp.int32)
    reach = flood(jnp.zeros((H, W), bool).at[start[0], start[1]].set(True), ~border & ~walls)
    walls = ~border & ~reach
    door, _ = draws.cell(border & dilate(reach))
    rr, cc = jnp.arange(H)[:, None], jnp.arange(W)[None, :]
    far = reach & (jnp.abs(rr - start[0]) + jnp.abs(cc - start[1]) > 3)
    cells, found = draws.cells(far, N_ENEMIES)
    count = 3 + draws.randint(0, N_ENEMIES - 2)
    dirs = draws.randint(0, 4, (N_ENEMIES,))
    world = jnp.where(border, BORDER_C, jnp.where(walls, WALL_C, EMPTY_C)).reshape(-1).at[door].set(LOCKED_C)
    alive = found & (jnp.arange(N_ENEMIES) < count)
    enemies = entities.put(entities.empty(N_ENEMIES), alive, jnp.stack([cells // W, cells % W], 1),
                           DIR_DELTAS[dirs], 0, jnp.where(hard, FIRST_FIRE[1], FIRST_FIRE[0]))
    base = fresh_state(world.reshape(H, W), start, level, total=jnp.sum(alive))
    return extend(DodgeballState, base, enemies=enemies, balls=entities.empty(N_BALLS),
                  bolts=entities.empty(N_BOLTS), facing=jnp.int32(RIGHT), cool=jnp.int32(0))


# --- turn --------------------------------------------------------------------------------------
def _solid(state: DodgeballState) -> jax.Array:
    """bool[H, W]: cells that stop balls and enemies (border, exit, walls)."""
    return state.world != EMPTY_C


def _move_enemies(state: DodgeballState, u: jax.Array, period: jax.Array) -> entities.Pool:
    """Due enemies (every `period` turns) maybe turn at random, then step, or turn round at a
    solid cell without moving."""
    e = state.enemies
    due = e.alive & every(state.t, period)
    turn = due & (u[:, 0] < TURN_P)
    vel = jnp.where(turn[:, None], DIR_DELTAS[jnp.floor(u[:, 1] * 4).astype(jnp.int32)], e.vel)
    ahead = jnp.clip(e.pos + vel, 0, jnp.array([H - 1, W - 1]))
    blocked = _solid(state)[ahead[:, 0], ahead[:, 1]]
    e = e.replace(vel=jnp.where((due & blocked)[:, None], -vel, vel))
    return entities.advance(e, H, W, "clip", moving=due & ~blocked)


def _enemies_fire(enemies: entities.Pool, bolts: entities.Pool, pos: jax.Array, u: jax.Array,
                  delay: jax.Array) -> tuple[entities.Pool, entities.Pool]:
    """Enemies that may fire and share your row or column throw a ball at you and turn to you."""
    d = pos - enemies.pos
    aligned = (d[:, 0] == 0) | (d[:, 1] == 0)
    fire = enemies.alive & (enemies.timer == 0) & aligned & (d != 0).any(1)
    vel = jnp.sign(d).astype(jnp.int32)
    bolts = entities.spawn_many(bolts, enemies.pos, vel, jnp.zeros(N_ENEMIES, jnp.int32), fire)
    timer = jnp.where(fire, delay + jnp.floor(u * 4).astype(jnp.int32), jnp.maximum(enemies.timer - 1, 0))
    return enemies.replace(vel=jnp.where(fire[:, None], vel, enemies.vel), timer=timer), bolts


def _fly(pool: entities.Pool, solid: jax.Array) -> entities.Pool:
    """Balls move a cell; those reaching a solid cell vanish."""
    moved = entities.advance(pool, H, W, "kill")
    return entities.kill(moved, entities.on_cells(moved, solid))


def dodgeball_step(state: DodgeballState, action, params, key):
    """One turn in the order of the module docstring; the step key draws the enemies' chance."""
    u = (hash_bits(key, 3 * N_ENEMIES) >> 8).astype(jnp.float32) * jnp.float32(2.0 ** -24)
    u = u.reshape(N_ENEMIES, 3)
    hard = params.hard
    d = _ACTION_DIR[jnp.clip(action, 0, THROW)]
    facing = jnp.where(d >= 0, d, state.facing)
    target = state.pos + jnp.where(d >= 0, DIR_DELTAS[jnp.maximum(d, 0)], 0)
    code = state.world[target[0], target[1]]
    is_open = state.items >= state.total
    stopped = (code == BORDER_C) | ((code == LOCKED_C) & ~is_open)
    pos = jnp.where(stopped, state.pos, target).astype(jnp.int32)
    throw = (action == THROW) & (state.cool == 0)
    solid = _solid(state)
    balls_b = entities.spawn(state.balls, pos, DIR_DELTAS[facing], 0, where=throw)
    balls_a = _fly(balls_b, solid)
    enemies = _move_enemies(state, u, jnp.where(hard, ENEMY_PERIOD[1], ENEMY_PERIOD[0]))
    bolts = _fly(state.bolts, solid)
    hit = entities.hits(balls_b, balls_a, state.enemies, enemies, sweep=1)
    first = jax.nn.one_hot(jnp.argmax(hit, 1), N_ENEMIES, dtype=bool) & hit.any(1)[:, None]
    struck = first.any(0)
    enemies, balls = entities.kill(enemies, struck), entities.kill(balls_a, hit.any(1))
    walled = code == WALL_C
    caught = entities.point_hits(state.enemies, enemies, state.pos, pos, sweep=1).any()
    shot = entities.point_hits(state.bolts, bolts, state.pos, pos, sweep=1).any()
    dead = walled | caught | shot
    won = ~dead & (code == LOCKED_C) & is_open
    enemies, bolts = _enemies_fire(enemies, bolts, pos, u[:, 2], jnp.where(hard, FIRE_DELAY[1], FIRE_DELAY[0]))
    hits = jnp.sum(struck, dtype=jnp.int32)
    items = state.items + jnp.where(dead, 0, hits)
    reward = jnp.where(dead, -1.0, hits / GOAL + jnp.where(won, 1.0 - state.total / GOAL, 0.0))
    opened = (items >= state.total) & ~is_open
    event = jnp.select([walled, caught, shot, won, opened, hits > 0], [WALLED, CAUGHT, SHOT_DOWN, WIN, OPENED, HIT], 0)
    nxt = state.replace(pos=pos, facing=facing, enemies=enemies, balls=balls, bolts=bolts, items=items,
                        cool=jnp.where(throw, THROW_EVERY - 1, jnp.maximum(state.cool - 1, 0)).astype(jnp.int32),
                        earned=state.earned + reward)
    return nxt, reward.astype(jnp.float32), dead | won, event


def dodgeball_paint(state: DodgeballState) -> jax.Array:
    """Cell codes: the arena (the exit by whether it is open), balls, enemy balls, enemies."""
    codes = state.world.astype(jnp.int32)
    codes = jnp.where((codes == LOCKED_C) & (state.items >= state.total), EXIT_C, codes)
    codes = entities.paint(codes, state.balls, jnp.array([BALL_C]))
    codes = entities.paint(codes, state.bolts, jnp.array([BOLT_C]))
    return entities.paint(codes, state.enemies, jnp.array([ENEMY_C]))


# --- scripted policy ---------------------------------------------------------------------------
_DIR_ACTION = jnp.array([3, 4, 1, 2], jnp.int32)  # core.grid direction -> the action moving that way


def _sight(state: DodgeballState, solid: jax.Array) -> jax.Array:
    """bool[4]: per direction, an enemy stands on your straight line before any solid cell."""
    k = jnp.arange(1, max(H, W), dtype=jnp.int32)
    rays = state.pos[None, None, :] + k[None, :, None] * DIR_DELTAS[:, None, :]  # [4, K, 2]
    inb = entities.inside(rays, H, W)
    r, c = jnp.clip(rays[..., 0], 0, H - 1), jnp.clip(rays[..., 1], 0, W - 1)
    wall = solid[r, c] | ~inb
    enemy = cells_of(state.enemies, H, W)[r, c] & inb
    return (enemy & (jnp.cumsum(wall, axis=1) == 0)).any(1)


def _bolt_lines(bolts: entities.Pool, ahead: int = 4) -> jax.Array:
    """bool[H, W]: the cells enemy balls will cross in the next `ahead` turns (and hold now)."""
    k = jnp.arange(ahead + 1, dtype=jnp.int32)[None, :, None]
    cells = bolts.pos[:, None, :] + k * bolts.vel[:, None, :]  # [N, ahead + 1, 2]
    keep = bolts.alive[:, None] & entities.inside(cells, H, W)
    flat = jnp.clip(cells[..., 0], 0, H - 1) * W + jnp.clip(cells[..., 1], 0, W - 1)
    return jnp.zeros(H * W, bool).at[flat.reshape(-1)].max(keep.reshape(-1)).reshape(H, W)


def dodgeball_policy(key, state: DodgeballState, params):
    """Throw at an enemy in line when facing it; else turn to one in line; else walk (by BFS) to
    a cell in line with an enemy, or to the exit once open, never onto a deadly cell if avoidable."""
    solid = _solid(state)
    is_open = state.items >= state.total
    door = state.world == LOCKED_C
    enemy_at = cells_of(state.enemies, H, W)
    rows, cols = enemy_at.any(1)[:, None], enemy_at.any(0)[None, :]
    near = dilate(dilate(enemy_at, eight=True), eight=True)
    lined = (rows | cols) & ~solid & ~near
    goal = jnp.where(is_open, door, lined)
    dist = bfs_distances(~solid | (door & is_open), goal)
    unsafe = threat_cells((state.enemies,), H, W) | (state.world == WALL_C) | _bolt_lines(state.bolts)
    acts = jnp.arange(5)
    d = _ACTION_DIR[acts]
    target = state.pos + jnp.where((d >= 0)[:, None], DIR_DELTAS[jnp.maximum(d, 0)], 0)
    code = state.world[target[:, 0], target[:, 1]]
    stopped = (code == BORDER_C) | ((code == LOCKED_C) & ~is_open)
    cell = jnp.where(stopped[:, None], state.pos, target)
    score = 1000 * ~unsafe[cell[:, 0], cell[:, 1]] - jnp.minimum(dist[cell[:, 0], cell[:, 1]], 500)
    sees = _sight(state, solid)
    turn = _DIR_ACTION[jnp.argmax(sees)]
    score = score + jnp.where(~is_open & sees.any() & (acts == jnp.where(sees[state.facing], 0, turn)), 600, 0)
    best = acts[jnp.argmax(score)]
    stay_safe = ~unsafe[state.pos[0], state.pos[1]]
    throw = ~is_open & sees[state.facing] & (state.cool == 0) & stay_safe
    return jnp.where(throw, THROW, best).astype(jnp.int32)


def _hud(state: DodgeballState):
    """HUD numbers: enemies hit of the level's, the way you face, turns until you may throw."""
    return state.items, state.total, state.facing, state.cool


DODGEBALL = Game(
    name="dodgeball", world=(H, W), view=(H, W),
    cells=" " + BORDER + WALL + LOCKED + EXIT + ENEMY + SHOT + BOLT,
    glyphs={BORDER: "wall", WALL: "electrified wall (deadly to touch)",
            LOCKED: "locked exit (opens once every enemy is hit)", EXIT: "the exit (the goal)",
            ENEMY: "enemy (throws balls at you along rows and columns; deadly to touch)",
            SHOT: GLYPHS_SHOTS[SHOT], BOLT: GLYPHS_SHOTS[BOLT]},
    actions=ACTIONS, descriptions=DESCRIPTIONS,
    rules=("A walled arena seen from above. Each turn you move one cell (a move also turns you "
           "that way, even into the border, which stops you); THROW sends a ball the way you "
           f"face, a cell a turn (at most every {THROW_EVERY} turns). Enemies walk a cell every "
           "few turns, turn round at walls and sometimes at random, and throw balls at you "
           "whenever they share your row or column and have reloaded. Your ball removes the "
           "first enemy it meets; balls vanish at walls. Touching an electrified wall or an "
           "enemy, or being hit by an enemy ball, ends the game. Hit every enemy, then walk "
           "into the exit in the border."),
    reward=(f"+1/{GOAL} per enemy hit; reaching the open exit pays 1 - N/{GOAL} (N = the level's "
            f"enemies, so a cleared level returns 1); touching a wall or an enemy or being hit "
            f"pays -1 and ends the episode. Return range [-1, 1]."),
    events=EVENTS, success=(WIN,), generate=dodgeball_generate, step=dodgeball_step,
    paint=dodgeball_paint, draws=4 * SPLITS[1] + 2 + H * W + 1 + N_ENEMIES,
    hud="Enemies hit: {items} / {total}    Facing: {keys}    Throw: {airborne}",
    return_range=(-1.0, 1.0), scripted_policy=dodgeball_policy, centred=False, keyed=True,
    hud_values=_hud, hud_enums={"keys": ("up", "down", "left", "right"), "airborne": RELOAD_NAMES},
    hard_notes=("the arena is split 4 times (easy 2), enemies move every 2nd turn (easy 3rd) and "
                f"reload in {FIRE_DELAY[1]}-{FIRE_DELAY[1] + 3} turns (easy "
                f"{FIRE_DELAY[0]}-{FIRE_DELAY[0] + 3}), first after {FIRST_FIRE[1]} (easy {FIRST_FIRE[0]})."))
