"""CaveFlyer: fly a drifting ship through a cave to the exit, shooting targets on the way.

The cave is 30 x 30 (hard 40 x 40) inside a 40 x 40 world (easy levels draw the rest as
outside), seen through a 12 x 20 window centred on you. The level (seed) carves a 3-wide tunnel
from your start at the left through two random waypoints to the exit (`◈`) at the right (each
leg runs vertically, then horizontally), opens 10 round chambers along it, and puts 4 (hard 8)
each of meteors (`◎`, still), targets (`⊗`, still) and patrolling mines (`✹`, a cell every 2
turns along a row or column, turning back at rock) off the tunnel; the tunnel itself is clear.
The ship (simplified Asteroids physics): it faces one of 8 headings (HUD: Heading) and keeps
its drift velocity (HUD: Drift, each axis -1, 0 or +1 cells a turn) until thrust changes it.
LEFT/RIGHT turn the heading 45 degrees; UP thrusts forward (drift += heading), DOWN thrusts
backward (drift -= heading), each axis clipped to [-1, 1]; FIRE sends a shot along the heading,
2 cells a turn for 4 turns. Rock stops you (the blocked axis of the drift drops to 0) and
stops shots. A shot destroys the first target it reaches; meteors and mines stop shots.
Touching a meteor, a target or a mine kills you; reaching the exit wins.
Reward (pattern D): 0.4/N per target destroyed (N = the level's targets), +0.6 at the exit,
-1 on death. Return range [-1, 1].
Differs from OpenAI Procgen: targets take one hit (5 there); the cave is a carved tunnel with
chambers, not cellular-automaton rock.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core import entities
from glyphjax.core.grid import dilate
from glyphjax.suites.procgen.engine import Game, ProcgenState, fresh_state
from glyphjax.suites.procgen.shooters import (FIRE, FIRE_ACTIONS, GLYPHS_SHOTS, HEADING_NAMES,
                                              HEADINGS, METEOR, METEOR_MEANING, SHOT, extend,
                                              threat_cells)

S = 40  # world side (easy levels use the top-left 30 x 30)
EASY, HARD = 30, 40
N_OBJ = 8  # meteors, targets and mines each (easy uses 4)
N_SHOTS = 4
N_ROOMS = 10
SHOT_LIFE = 4
EMPTY_C, ROCK_C, EXIT_C, METEOR_C, TARGET_C, MINE_C, SHOT_C = range(7)
OUT_C = SHOT_C + 2  # the engine's outside code (after your own)
ROCK, EXIT, TARGET, MINE = "█", "◈", "⊗", "✹"
NO_DIR = 8
DRIFT_NAMES = ("up-left", "up", "up-right", "left", "none", "right", "down-left", "down", "down-right")
EVENTS = ("", "You reached the exit. You win!", "You hit a meteor.", "You crashed into a target.",
          "A mine got you.", "Target destroyed.")
WIN, METEOR_HIT, TARGET_HIT, MINE_HIT, KILL = 1, 2, 3, 4, 5
_R = jnp.arange(S)[:, None]
_C = jnp.arange(S)[None, :]


@struct.dataclass(kw_only=True)  # after ProcgenState's defaulted fields
class CaveflyerState(ProcgenState):
    heading: jax.Array  # int32: index into HEADINGS (clockwise from up)
    vel: jax.Array  # int32[2]: drift (d_row, d_col), each in {-1, 0, 1}
    mines: entities.Pool  # patrolling mines
    shots: entities.Pool  # your shots; timer = turns left
    route: jax.Array  # int8[S, S]: tunnel cells' heading towards the exit (NO_DIR elsewhere)


def _leg(a, b, band):
    """Cells of the L-shaped leg a -> b (vertical at a's column, then horizontal at b's row),
    widened to `band` cells each side -> (mask, heading index towards b) per cell."""
    vert = (jnp.abs(_C - a[1]) <= band) & (_R >= jnp.minimum(a[0], b[0]) - band) & (_R <= jnp.maximum(a[0], b[0]) + band)
    horiz = (jnp.abs(_R - b[0]) <= band) & (_C >= jnp.minimum(a[1], b[1]) - band) & (_C <= jnp.maximum(a[1], b[1]) + band)
    vdir = jnp.where(b[0] > a[0], 4, 0)
    hdir = jnp.where(b[1] >= a[1], 2, 6)
    vert = vert & (b[0] != a[0])
    return vert | horiz, jnp.where(horiz, hdir, jnp.where(vert, vdir, NO_DIR))


def _carve(draws, n):
    """The tunnel through start, two waypoints and the exit, and the chambers along it ->
    (open bool[S, S], route int32[S, S], start, exit)."""
    rows = draws.randint(3, n - 3, (4,))
    cols = jnp.stack([jnp.int32(3), draws.randint(n // 4, n // 2), draws.randint(n // 2, 3 * n // 4), n - 4])
    points = jnp.stack([rows, cols], 1)
    tunnel = jnp.zeros((S, S), bool)
    route = jnp.full((S, S), NO_DIR, jnp.int32)
    for i in range(3):
        mask, heading = _leg(points[i], points[i + 1], 1)
        tunnel = tunnel | mask
        route = jnp.where(mask, heading, route)
    centre_leg = draws.randint(0, 3, (N_ROOMS,))
    frac = draws.uniform((N_ROOMS,))
    radius = draws.randint(2, 5, (N_ROOMS,))
    a, b = points[centre_leg], points[centre_leg + 1]
    on_vertical = frac < 0.5
    cr = jnp.where(on_vertical, a[:, 0] + (b[:, 0] - a[:, 0]) * (2 * frac), b[:, 0]).astype(jnp.int32)
    cc = jnp.where(on_vertical, a[:, 1], a[:, 1] + (b[:, 1] - a[:, 1]) * (2 * frac - 1)).astype(jnp.int32)
    rooms = ((_R[None] - cr[:, None, None]) ** 2 + (_C[None] - cc[:, None, None]) ** 2 <= radius[:, None, None] ** 2).any(0)
    inside = (_R >= 1) & (_R < n - 1) & (_C >= 1) & (_C < n - 1)
    return (tunnel | rooms) & inside, jnp.where(inside, route, NO_DIR), points[0], points[3]


def caveflyer_generate(draws, hard, level) -> CaveflyerState:
    """A level: the carved cave, the exit, and meteors, targets and mines off the tunnel."""
    n = jnp.where(hard, HARD, EASY)
    open_, route, start, exit_ = _carve(draws, n)
    count = jnp.where(hard, N_OBJ, N_OBJ // 2)
    tunnel = route != NO_DIR
    spots, found = draws.cells(open_ & ~tunnel, 3 * N_OBJ)
    use = found & (jnp.arange(3 * N_OBJ) % N_OBJ < count)
    kind = jnp.arange(3 * N_OBJ) // N_OBJ  # 0 meteors, 1 targets, 2 mines
    world = jnp.where((_R < n) & (_C < n), jnp.where(open_, EMPTY_C, ROCK_C), OUT_C)
    flat = world.reshape(-1)
    for k, code in ((0, METEOR_C), (1, TARGET_C)):
        flat = flat.at[spots].set(jnp.where(use & (kind == k), code, flat[spots]))
    world = flat.reshape(S, S).at[exit_[0], exit_[1]].set(EXIT_C)
    mine_cells = spots[2 * N_OBJ:]
    along_row = draws.bernoulli(0.5, (N_OBJ,))
    sign = jnp.where(draws.bernoulli(0.5, (N_OBJ,)), 1, -1)
    vel = jnp.stack([jnp.where(along_row, 0, sign), jnp.where(along_row, sign, 0)], 1)
    mines = entities.Pool(pos=jnp.stack([mine_cells // S, mine_cells % S], 1).astype(jnp.int32), vel=vel.astype(jnp.int32),
                          kind=jnp.zeros((N_OBJ,), jnp.int32), alive=use[2 * N_OBJ:], timer=jnp.zeros((N_OBJ,), jnp.int32))
    total = jnp.sum(use & (kind == 1), dtype=jnp.int32)
    base = fresh_state(world, start, level, total=total)
    return extend(CaveflyerState, base, heading=jnp.int32(2), vel=jnp.zeros((2,), jnp.int32), mines=mines,
                  shots=entities.empty(N_SHOTS), route=route.astype(jnp.int8))


def _blocked(world, cell) -> jax.Array:
    """Whether rock (or the world's edge) fills a cell."""
    r, c = cell[..., 0], cell[..., 1]
    ok = (r >= 0) & (r < S) & (c >= 0) & (c < S)
    code = world[jnp.clip(r, 0, S - 1), jnp.clip(c, 0, S - 1)]
    return ~ok | (code == ROCK_C) | (code == OUT_C)


def _fly(state: CaveflyerState, action):
    """Turn or thrust, then drift one cell; rock stops the blocked axis -> (pos, vel, heading)."""
    turn = jnp.where(action == 1, -1, jnp.where(action == 2, 1, 0))
    heading = (state.heading + turn) % 8
    push = jnp.where(action == 3, 1, jnp.where(action == 4, -1, 0))
    vel = jnp.clip(state.vel + push * HEADINGS[heading], -1, 1)
    world, pos = state.world, state.pos
    target = pos + vel
    row_only = pos + vel * jnp.array([1, 0])
    col_only = pos + vel * jnp.array([0, 1])
    slid = jnp.stack([jnp.where(_blocked(world, row_only), 0, vel[0]),
                      jnp.where(_blocked(world, col_only), 0, vel[1])])
    slid = jnp.where(_blocked(world, pos + slid), 0, slid)  # a blocked diagonal between two free cells
    vel = jnp.where(_blocked(world, target), slid, vel)
    return (pos + vel).astype(jnp.int32), vel.astype(jnp.int32), heading.astype(jnp.int32)


def _patrol(mines: entities.Pool, world, t) -> entities.Pool:
    """Mines move a cell every 2nd turn, turning back (without moving) where rock, a meteor,
    a target or the exit is ahead."""
    ahead = mines.pos + mines.vel
    code = world[jnp.clip(ahead[:, 0], 0, S - 1), jnp.clip(ahead[:, 1], 0, S - 1)]
    stop = _blocked(world, ahead) | (code >= EXIT_C)
    due = mines.alive & (t % 2 == 0)
    pos = jnp.where((due & ~stop)[:, None], ahead, mines.pos)
    vel = jnp.where((due & stop)[:, None], -mines.vel, mines.vel)
    return mines.replace(pos=pos.astype(jnp.int32), vel=vel.astype(jnp.int32))


def _shoot(state: CaveflyerState, shots_b: entities.Pool, mines_b, mines_a, world):
    """Shots fly 2 cells; each stops at the first rock, meteor or target on its way (a target
    it reaches is destroyed) or at a mine -> (shots, world, targets destroyed)."""
    shots_a = entities.advance(shots_b, S, S, "kill")
    d = shots_a.pos - shots_b.pos
    mid = shots_b.pos + jnp.sign(d) * ((jnp.abs(d) + 1) // 2)
    code_at = lambda p: world[jnp.clip(p[:, 0], 0, S - 1), jnp.clip(p[:, 1], 0, S - 1)]
    solid = lambda code: (code == ROCK_C) | (code == OUT_C) | (code == METEOR_C) | (code == TARGET_C)
    m_code, e_code = code_at(mid), code_at(shots_a.pos)
    stop_mid = shots_b.alive & solid(m_code)
    stop_end = shots_a.alive & ~stop_mid & solid(e_code)
    hit_cell = jnp.where(stop_mid[:, None], mid, shots_a.pos)
    kills = (stop_mid & (m_code == TARGET_C)) | (stop_end & (e_code == TARGET_C))
    flat = world.reshape(-1)
    idx = jnp.clip(hit_cell[:, 0], 0, S - 1) * S + jnp.clip(hit_cell[:, 1], 0, S - 1)
    flat = flat.at[idx].set(jnp.where(kills, EMPTY_C, flat[idx]))
    # two shots on one target destroy it once
    destroyed = jnp.sum(world.reshape(-1) != flat, dtype=jnp.int32)
    by_mine = entities.hits(shots_b, shots_a, mines_b, mines_a).any(1)
    expired = shots_a.timer <= 1
    shots = entities.kill(shots_a.replace(timer=shots_a.timer - 1), stop_mid | stop_end | by_mine | expired)
    return shots, flat.reshape(S, S), destroyed


def caveflyer_step(state: CaveflyerState, action, params):
    """One turn: fly, mines patrol, shots fly, then what your cell holds decides."""
    pos, vel, heading = _fly(state, action)
    mines = _patrol(state.mines, state.world, state.t)
    shots_b = entities.spawn(state.shots, pos, 2 * HEADINGS[heading], 0, where=action == FIRE, timer=SHOT_LIFE)
    shots, world, destroyed = _shoot(state, shots_b, state.mines, mines, state.world)
    code = world[pos[0], pos[1]]
    mine_hit = entities.point_hits(state.mines, mines, state.pos, pos).any()
    died = (code == METEOR_C) | (code == TARGET_C) | mine_hit
    won = ~died & (code == EXIT_C)
    items = state.items + destroyed
    earned = 0.4 * items / jnp.maximum(state.total, 1) + 0.6 * won
    reward = earned - state.earned - died
    event = jnp.select([won, code == METEOR_C, code == TARGET_C, mine_hit, destroyed > 0],
                       [WIN, METEOR_HIT, TARGET_HIT, MINE_HIT, KILL], 0)
    nxt = state.replace(pos=pos, vel=vel, heading=heading, mines=mines, shots=shots, world=world.astype(jnp.int8),
                        items=items, earned=earned.astype(jnp.float32))
    return nxt, reward.astype(jnp.float32), died | won, event


def caveflyer_paint(state: CaveflyerState) -> jax.Array:
    """Cell codes: the cave, mines and shots."""
    codes = entities.paint(state.world.astype(jnp.int32), state.mines, jnp.array([MINE_C]))
    return entities.paint(codes, state.shots, jnp.array([SHOT_C]))


def caveflyer_policy(key, state: CaveflyerState, params):
    """Follow the tunnel one cell a turn: stop, turn to the tunnel's heading, thrust once,
    coast; fire at a target straight ahead while stopped."""
    r, c = state.pos[0], state.pos[1]
    d = state.route[r, c].astype(jnp.int32)
    gap = jnp.argwhere(state.world == EXIT_C, size=1)[0] - state.pos
    towards = jnp.argmax((HEADINGS == jnp.sign(gap)).all(1))
    d = jnp.where((d == NO_DIR) | (jnp.abs(gap).max() <= 2), towards, d)
    want, v, h = HEADINGS[d], state.vel, state.heading
    moving = jnp.any(v != 0)
    v_dir = jnp.argmax((HEADINGS == v).all(1))
    turn_to = lambda g: jnp.where((g - h) % 8 == 0, 0, jnp.where((g - h) % 8 <= 4, 2, 1))
    stop = jnp.where(v_dir == h, 4, jnp.where((v_dir - h) % 8 == 4, 3, turn_to(v_dir)))
    go = jnp.where(d == h, 3, turn_to(d))
    near_mine = threat_cells((state.mines,), S, S)
    near_mine = near_mine | dilate(near_mine, eight=True)
    ahead = state.pos + want
    wait = near_mine[ahead[0], ahead[1]] & ~near_mine[r, c]
    act = jnp.where(jnp.all(v == want) & ~wait, 0, jnp.where(moving, stop, jnp.where(wait & (d == h), 0, go)))
    line = state.pos + jnp.arange(1, 6)[:, None] * HEADINGS[h]
    codes = state.world[jnp.clip(line[:, 0], 0, S - 1), jnp.clip(line[:, 1], 0, S - 1)]
    first_solid = jnp.argmax((codes != EMPTY_C) & (codes != EXIT_C))
    target_ahead = codes[first_solid] == TARGET_C
    return jnp.where(~moving & target_ahead, FIRE, act)


def _hud(state: CaveflyerState):
    """HUD numbers: targets destroyed, targets, heading, drift (index into DRIFT_NAMES)."""
    return state.items, state.total, state.heading, (state.vel[0] + 1) * 3 + state.vel[1] + 1


CAVEFLYER = Game(
    name="caveflyer", world=(S, S), view=(12, 20), cells=" " + ROCK + EXIT + METEOR + TARGET + MINE + SHOT,
    glyphs={SHOT: GLYPHS_SHOTS[SHOT], ROCK: "wall", EXIT: "the exit (the goal)", METEOR: METEOR_MEANING,
            TARGET: "target (shoot it; deadly to touch)", MINE: "patrolling mine (stops shots; deadly to touch)"},
    actions=FIRE_ACTIONS,
    descriptions=("do nothing (keep drifting)", "turn your heading 45 degrees anticlockwise",
                  "turn your heading 45 degrees clockwise", "thrust forward (drift += heading)",
                  "thrust backward (drift -= heading)", "fire a shot along your heading"),
    rules=("Fly through the cave to the exit. Your ship faces one of 8 headings and keeps drifting "
           "(each axis -1, 0 or +1 cells a turn) until you thrust: UP adds the heading to the drift, "
           "DOWN subtracts it (each axis clipped to -1..1); LEFT/RIGHT turn 45 degrees. Walls stop "
           "you. FIRE sends a shot along your heading, 2 cells a turn for 4 turns; it destroys the "
           "first target it reaches. Meteors, targets and patrolling mines kill you on touch."),
    reward=("0.4/N for each target destroyed (N = the level's targets, shown as Targets: x / N), "
            "+0.6 at the exit, -1 on death. Return range [-1, 1]."),
    events=EVENTS, success=(WIN,), generate=caveflyer_generate, step=caveflyer_step,
    paint=caveflyer_paint, draws=8 + 3 * N_ROOMS + S * S + 2 * N_OBJ,
    hud="Targets: {items} / {total}    Heading: {keys}    Drift: {airborne}",
    return_range=(-1.0, 1.0), scripted_policy=caveflyer_policy,
    hud_values=_hud, hud_enums={"keys": HEADING_NAMES, "airborne": DRIFT_NAMES},
    hard_notes="the cave is 40 x 40 (easy 30 x 30) with 8 each of meteors, targets and mines (easy 4).")
