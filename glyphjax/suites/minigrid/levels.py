"""Level generators of every MiniGrid family, in JAX (static shapes, no rejection loops).

Each generator is `gen(rnd, **level) -> Level`, a port of the Farama MiniGrid `_gen_grid` of the family
written here from its rules (Farama's (x, y) becomes our (row=y, col=x)). Farama's rejection
sampling ("try a random cell until it is free") is replaced by one uniform draw over the mask of
admissible cells (same distribution); Farama's "retry the whole layout" (MultiRoom) is a while
loop of tries, capped. Where a family departs from Farama, the docstring of the generator says so.

Factories (`gen_*`) are cached: equal static arguments give the same function, i.e. one graph
and one compiled program (`TaskConfig.static_key`). What varies inside one graph comes in as
traced `level` keywords (e.g. `random_start`, `obstacle`), from the task's `MiniGridParams`.

Compile time of the vmapped reset (B = 4096) is most of a task's compile budget, so: grid writes
at traced cells are selects (`put`), not `.at[].set` (a scatter once vmapped); masks from static
bounds are numpy constants; a placement repeated n times is one `Rnd.scan` step (compiled once).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.grid import DIR_OFFSETS, border_mask
from glyphjax.core.sampling import Draws
from glyphjax.suites.minigrid.engine import (BALL, BLUE, BOX, CLOSED, COLORS, DOOR, EMPTY, FACING,
                                             GOAL, GREEN, GREY, KEY, LAVA, LOCKED, OBSTACLE, OPEN, RED, WALL,
                                             Level, item_index, pack)

NCOL = len(COLORS)
I32 = jnp.int32


# --- primitives ----------------------------------------------------------------------------------
def walled_np(h: int, w: int) -> np.ndarray:
    return np.where(border_mask(h, w), WALL, EMPTY).astype(np.int32)


def walled(h: int, w: int) -> jax.Array:
    return jnp.asarray(walled_np(h, w))


def iota(h: int, w: int):
    """Row and column indices (numpy: masks built from static bounds stay trace-time constants)."""
    return np.arange(h)[:, None], np.arange(w)[None, :]


def rect(h: int, w: int, r0, c0, r1, c1) -> jax.Array:
    """bool[h, w] of rows [r0, r1) x cols [c0, c1) (bounds may be traced)."""
    r, c = iota(h, w)
    return (r >= r0) & (r < r1) & (c >= c0) & (c < c1)


class Rnd(Draws):
    """A generator's stream of uniforms (`core.sampling.Draws`) from one threefry call on a split
    of the reset key (a generator needs < 128 numbers; `tasks` counts them), plus the MiniGrid
    extras: permutations and scanned repeated placements."""

    def __init__(self, key, n: int = 128):
        self.key, sub = jax.random.split(key)
        super().__init__(jax.random.uniform(sub, (n,)))

    @classmethod
    def of(cls, u):
        """A stream reading the given uniforms (a block of another stream)."""
        rnd = cls.__new__(cls)
        Draws.__init__(rnd, u)
        rnd.key = None
        return rnd

    def perm(self, m: int):
        """A uniformly random permutation of range(m)."""
        u = jnp.stack([self.uniform() for _ in range(m)])
        return jnp.argsort(u).astype(I32)

    def scan(self, body, carry, n: int, draws: int, xs=None):
        """n steps of `carry, out = body(carry, x_t, rnd_t)` (x_t: step t of the pytree xs, or
        None), rnd_t reading the next `draws` uniforms of this stream, the same numbers n
        unrolled steps would read. One lax.scan: XLA compiles the body once instead of n copies
        (the compile time of vmapped resets). Returns (carry, stacked outs)."""
        u = self.uniform((n, draws))

        def step(c, x_u):
            x, ut = x_u
            sub = Rnd.of(ut)
            c, out = body(c, x, sub)
            if sub.used != draws:
                raise RuntimeError(f"Rnd.scan body read {sub.used} uniforms, declared {draws}")
            return c, out
        return jax.lax.scan(step, carry, (xs, u))


def randint(rnd, lo, hi):
    return rnd.randint(lo, hi)


def sample_rc(rnd, mask) -> jax.Array:
    """A uniformly random True cell of mask -> int32[2] (row, col)."""
    w = mask.shape[1]
    idx, _ = rnd.cell(mask)
    return jnp.stack([idx // w, idx % w])


def cell(shape, p):
    """bool[h, w] of the one cell p = (row, col) (p may be traced)."""
    r, c = iota(*shape)
    return (r == p[0]) & (c == p[1])


def put(g, p, v):
    """g with cell p set to v, as a select: XLA fuses it, where a traced-index `.at[].set` becomes
    a scatter once vmapped (compile and run time of batched resets)."""
    return jnp.where(cell(g.shape, p), v, g)


def not_at(mask, pos):
    return mask & ~cell(mask.shape, pos)


def place_obj(rnd, grid, item, region, agent=None):
    """Farama `place_obj`: a random empty cell of region (not the agent's) gets item."""
    mask = region & (grid == EMPTY)
    if agent is not None:
        mask = not_at(mask, agent)
    p = sample_rc(rnd, mask)
    return put(grid, p, item), p


def place_agent(rnd, grid, region, facing_free: bool = False):
    """Farama `place_agent`: random empty cell of region, random direction. With facing_free
    (RoomGrid), the cell in front must be empty floor or wall (pos and direction drawn jointly)."""
    free = region & (grid == EMPTY)
    if not facing_free:
        return sample_rc(rnd, free), rnd.randint(0, 4)
    h, w = grid.shape
    pad = jnp.pad(grid, 1, constant_values=WALL)
    fronts = jnp.stack([pad[1:-1, 2:], pad[2:, 1:-1], pad[1:-1, :-2], pad[:-2, 1:-1]])  # [4, h, w]
    ok = free[None] & ((fronts == EMPTY) | (fronts == WALL))
    idx, _ = rnd.cell(ok)
    d, rest = idx // (h * w), idx % (h * w)
    return jnp.stack([rest // w, rest % w]), d


def rand_color(rnd):
    return rnd.randint(0, NCOL)


def item(typ, color):
    return pack(typ, color)


def lvl(grid, pos, d, **kw) -> Level:
    return Level(grid=grid, pos=jnp.asarray(pos, I32), dir=jnp.asarray(d, I32), **kw)


# --- missions (per family: the strings the HUD shows; the generator returns an index) ------------
OBJ_NAMES = tuple(f"{c} {t}" for t in ("key", "ball", "box") for c in COLORS)  # item_index - 1
OBJ_NAMES_WITH_NOTHING = ("nothing",) + OBJ_NAMES  # indexed by item_index (HUD "carrying")
PICKUP_MISSIONS = tuple(f"pick up the {n}" for n in OBJ_NAMES)
FETCH_MISSIONS = tuple(f"fetch a {n}" for n in OBJ_NAMES)
GOTO_OBJECT_MISSIONS = tuple(f"go to the {n}" for n in OBJ_NAMES)
GOTO_DOOR_MISSIONS = tuple(f"go to the {c} door" for c in COLORS)
PUTNEAR_MISSIONS = tuple(f"put the {a} near the {b}" for a in OBJ_NAMES for b in OBJ_NAMES)
LOCKEDROOM_MISSIONS = tuple(f"get the {a} key from the {b} room, unlock the {a} door and go to the goal"
                            for a in COLORS for b in COLORS)
GOAL_MISSION = ("get to the green goal square",)
LAVA_MISSION = ("avoid the lava and get to the green goal square",)
DOORKEY_MISSION = ("use the key to open the door and then get to the goal",)
MULTIROOM_MISSION = ("traverse the rooms to get to the goal",)
OBSTACLE_MISSION = ("get to the green goal square without touching a moving obstacle",)
UNLOCK_MISSION = ("open the door",)
REDBLUE_MISSION = ("open the red door then the blue door",)
MEMORY_MISSION = ("go to the matching object at the end of the hallway",)  # Farama's words


def obj_mission(c):
    """Mission index for a packed key/ball/box (index into the *_MISSIONS tuples above)."""
    return item_index(c) - 1


# --- Empty, FourRooms, DoorKey, DistShift, LavaGap --------------------------------------------------
@functools.cache
def gen_empty(size: int):
    """Empty room, goal in the bottom-right corner; the agent at the top-left facing east, or
    (random_start) on a random cell facing a random way."""
    def gen(rnd, random_start):
        g = walled(size, size).at[size - 2, size - 2].set(GOAL)
        pos, d = place_agent(rnd, g, rect(size, size, 0, 0, size, size))
        start = random_start != 0
        return lvl(g, jnp.where(start, pos, jnp.array([1, 1], I32)), jnp.where(start, d, 0))
    return gen


def gen_fourrooms(rnd):
    size = 19
    g = walled_np(size, size)
    g[9, :] = WALL
    g[:, 9] = WALL
    g = jnp.asarray(g)
    # one gap per wall segment (Farama: pos = rand_int(yT + 1, yB) etc.)
    for p in ((rnd.randint(1, 9), 9), (rnd.randint(10, 18), 9), (9, rnd.randint(1, 9)), (9, rnd.randint(10, 18))):
        g = put(g, p, EMPTY)
    allr = rect(size, size, 0, 0, size, size)
    pos, d = place_agent(rnd, g, allr)
    g, _ = place_obj(rnd, g, GOAL, allr, agent=pos)
    return lvl(g, pos, d)


@functools.cache
def gen_doorkey(size: int):
    def gen(rnd):
        g = walled(size, size).at[size - 2, size - 2].set(GOAL)
        split = rnd.randint(2, size - 2)
        r, c = iota(size, size)
        g = jnp.where(c == split, WALL, g)
        pos, d = place_agent(rnd, g, c < split)
        door_row = rnd.randint(1, size - 2)
        g = put(g, (door_row, split), pack(DOOR, 4, LOCKED))  # yellow locked door
        g, _ = place_obj(rnd, g, item(KEY, 4), c < split, agent=pos)
        return lvl(g, pos, d)
    return gen


@functools.cache
def gen_distshift():
    """Farama DistShift: lava strips on row 1 and on row strip2_row, the goal top-right."""
    def gen(rnd, strip2_row):
        h, w = 7, 9
        g = walled_np(h, w)
        g[1, w - 2] = GOAL
        g[1, 3: w - 3] = LAVA
        r, c = iota(h, w)
        return lvl(jnp.where((r == strip2_row) & (c >= 3) & (c < w - 3), LAVA, jnp.asarray(g)),
                   jnp.array([1, 1], I32), 0)
    return gen


@functools.cache
def gen_lavagap(size: int):
    def gen(rnd):
        g = walled(size, size).at[size - 2, size - 2].set(GOAL)
        gc, gr = rnd.randint(2, size - 2), rnd.randint(1, size - 1)
        r, c = iota(size, size)
        g = jnp.where((c == gc) & (r >= 1) & (r <= size - 2), LAVA, g)
        g = put(g, (gr, gc), EMPTY)
        return lvl(g, jnp.array([1, 1], I32), 0)
    return gen


# --- Crossings -------------------------------------------------------------------------------------
@functools.cache
def gen_crossing(size: int, n: int, easy: bool = False):
    """Farama Lava/SimpleCrossing: n random rivers of `obstacle` cells (lava or wall) (vertical at even columns, horizontal at even
    rows), a random monotone path of openings from the top-left to the goal. With `easy`
    (no Farama counterpart; our `simplecrossing-easy-*`): every river segment between two crossing
    rivers (or the border) gets an opening, so any monotone route works."""
    cand = [(0, i) for i in range(2, size - 2, 2)] + [(1, j) for j in range(2, size - 2, 2)]
    m = len(cand)
    cand_dir = jnp.array([d for d, _ in cand], I32)
    cand_at = jnp.array([p for _, p in cand], I32)
    big = 10 * size

    def gen(rnd, obstacle):
        g = walled(size, size).at[size - 2, size - 2].set(GOAL)
        perm = rnd.perm(m)
        chosen = jnp.zeros((m,), bool).at[perm[:n]].set(True)
        sel_v = chosen & (cand_dir == 0)  # vertical river: a column
        sel_h = chosen & (cand_dir == 1)  # horizontal river: a row
        nv, nh = sel_v.sum(), sel_h.sum()
        r, c = iota(size, size)
        inner = (r >= 1) & (r <= size - 2) & (c >= 1) & (c <= size - 2)
        col_hit = jnp.any(sel_v[:, None, None] & (c[None] == cand_at[:, None, None]), axis=0)
        row_hit = jnp.any(sel_h[:, None, None] & (r[None] == cand_at[:, None, None]), axis=0)
        river = inner & (col_hit | row_hit)
        g = jnp.where(river, obstacle, g)
        vs = jnp.sort(jnp.where(sel_v, cand_at, big))
        hs = jnp.sort(jnp.where(sel_h, cand_at, big))
        idx = jnp.arange(m)
        lim_v = jnp.concatenate([jnp.zeros((1,), I32), jnp.where(idx < nv, vs, size - 1),
                                 jnp.full((1,), size - 1, I32)])  # column limits
        lim_h = jnp.concatenate([jnp.zeros((1,), I32), jnp.where(idx < nh, hs, size - 1),
                                 jnp.full((1,), size - 1, I32)])  # row limits
        if not easy:
            order = rnd.perm(n)
            room_i, room_j = I32(0), I32(0)
            for step in range(n):
                cross_v = order[step] < nv  # cross a vertical river (move right)
                row_h = rnd.randint(lim_h[room_j] + 1, lim_h[room_j + 1])
                col_v = rnd.randint(lim_v[room_i] + 1, lim_v[room_i + 1])
                rr = jnp.where(cross_v, row_h, lim_h[room_j + 1])
                cc = jnp.where(cross_v, lim_v[room_i + 1], col_v)
                g = put(g, (rr, cc), EMPTY)
                room_i = room_i + cross_v.astype(I32)
                room_j = room_j + (~cross_v).astype(I32)
        else:
            # one opening per (river, segment): segment k of a vertical river lies between row
            # limits k and k+1 (k <= nh), of a horizontal river between column limits k and k+1.
            # A random offset in [0, 1) scaled into each segment gives every opening in one pass.
            offs = jnp.stack([rnd.uniform() for _ in range(n + 1)])
            lo_r, hi_r = lim_h[: n + 1] + 1, lim_h[1: n + 2]
            lo_c, hi_c = lim_v[: n + 1] + 1, lim_v[1: n + 2]
            open_r = jnp.clip(lo_r + jnp.floor(offs * (hi_r - lo_r)).astype(I32), lo_r, hi_r - 1)
            open_c = jnp.clip(lo_c + jnp.floor(offs * (hi_c - lo_c)).astype(I32), lo_c, hi_c - 1)
            seg_ok_v = jnp.arange(n + 1) <= nh
            seg_ok_h = jnp.arange(n + 1) <= nv
            hole_v = jnp.any(seg_ok_v[:, None, None] & (r[None] == open_r[:, None, None]), axis=0) & col_hit
            hole_h = jnp.any(seg_ok_h[:, None, None] & (c[None] == open_c[:, None, None]), axis=0) & row_hit
            g = jnp.where(river & ~(col_hit & row_hit) & (hole_v | hole_h), EMPTY, g)
        return lvl(g, jnp.array([1, 1], I32), 0)
    return gen


# --- Dynamic obstacles -------------------------------------------------------------------------------
@functools.cache
def gen_dynamic_obstacles(size: int, n_obstacles: int):
    def gen(rnd):
        g = walled(size, size).at[size - 2, size - 2].set(GOAL)
        pos = jnp.array([1, 1], I32)
        allr = rect(size, size, 0, 0, size, size)
        g, obs = rnd.scan(lambda g, _, r: place_obj(r, g, pack(OBSTACLE, BLUE), allr, agent=pos), g, n_obstacles, 1)
        return lvl(g, pos, 0, obstacles=obs)
    return gen


# --- MultiRoom ---------------------------------------------------------------------------------------
@functools.cache
def gen_multiroom(n_rooms: int, max_size: int, size: int = 25, attempts: int = 48):
    """Farama MultiRoom: a chain of n rooms (sides 4..max_size including walls), each next room
    entered by a door on a random wall (not the entry wall) of the previous one; up to 8 tries per
    room; a layout that stops short is redrawn at once (in all, up to attempts * 9 * n tries: all
    fail with negligible probability; a test checks 1,000 seeds for complete layouts). One loop
    turn is one try (or the first try of a new layout); turns run in blocks of 16 (uniforms drawn
    per block), so a vmapped batch runs as many blocks as its slowest level needs. Door colours:
    random, never the previous door's. The agent and the goal are drawn uniformly inside the first
    and the last room (row and column apart: a room's inside is all floor)."""
    slot = np.arange(n_rooms)

    def fresh(u0):
        """A new layout: no room yet, the first room's corner at a random cell."""
        return dict(
            rooms=jnp.zeros((n_rooms, 4), I32),  # top_row, top_col, size_rows, size_cols
            doors=jnp.zeros((n_rooms, 2), I32),  # entry door (row, col) of each room
            cur=jnp.zeros((4,), I32),  # the last placed room
            count=I32(0), last_wall=I32(2),  # entry wall of the last placed room
            wall=I32(2), epos=jnp.floor(u0 * (size - 2)).astype(I32),  # (x, y)
            fails=I32(0), stopped=jnp.bool_(False))

    def body(st, u):
        """One try of a layout from 7 uniforms: place the next room (or count a failure), then draw
        the exit door of the last placed room."""
        ri = Rnd.of(u).randint  # the 7 numbers in order
        count, wall, x, y = st["count"], st["wall"], st["epos"][0], st["epos"][1]
        sx, sy = ri(4, max_size + 1), ri(4, max_size + 1)
        first = count == 0
        rx_ = ri(x - sx + 2, x)
        ry_ = ri(y - sy + 2, y)
        # entry door on wall 0 (east) / 1 (south) / 2 (west) / 3 (north) of the new room
        # (jnp.where chains, not jnp.select: select lowers to an argmax)
        top_x = jnp.where(first | (wall == 2), x, jnp.where(wall == 0, x - sx + 1, rx_))
        top_y = jnp.where(first | (wall == 3), y, jnp.where(wall == 1, y - sy + 1, ry_))
        ok = (top_x >= 0) & (top_y >= 0) & (top_x + sx <= size) & (top_y + sy < size)
        rooms = st["rooms"]
        ry, rx, rh, rw = rooms[:, 0], rooms[:, 1], rooms[:, 2], rooms[:, 3]
        apart = (top_x + sx < rx) | (rx + rw <= top_x) | (top_y + sy < ry) | (ry + rh <= top_y)
        ok = ok & jnp.all(apart | (slot >= count - 1))  # all but the previous room
        active = ~st["stopped"] & (count < n_rooms)
        place = active & ok
        at = (slot == count)[:, None] & place  # the slot the new room fills (selects, not scatters)
        room = jnp.stack([top_y, top_x, sy, sx])
        rooms = jnp.where(at, room, rooms)
        doors = jnp.where(at, jnp.stack([y, x]), st["doors"])
        cur = jnp.where(place, room, st["cur"])
        last_wall = jnp.where(place, wall, st["last_wall"])
        count2 = count + place.astype(I32)
        fails = jnp.where(place, 0, st["fails"] + (active & ~ok).astype(I32))
        stopped = st["stopped"] | (active & first & ~ok) | (fails >= 8)
        # draw the exit of the last placed room for the next try
        cy, cx, ch, cw = cur[0], cur[1], cur[2], cur[3]
        pick = ri(0, 3)
        exit_wall = jnp.where(pick >= last_wall, pick + 1, pick)
        oy, ox = ri(1, ch - 1), ri(1, cw - 1)
        ex = jnp.where(exit_wall == 0, cx + cw - 1, jnp.where(exit_wall == 2, cx, cx + ox))
        ey = jnp.where(exit_wall == 1, cy + ch - 1, jnp.where(exit_wall == 3, cy, cy + oy))
        keep = ~active | (first & ~ok)
        return dict(rooms=rooms, doors=doors, cur=cur, count=count2, last_wall=last_wall,
                    wall=jnp.where(keep, wall, (exit_wall + 2) % 4),
                    epos=jnp.where(keep, st["epos"], jnp.stack([ex, ey])), fails=fails,
                    stopped=stopped)

    def gen(rnd):
        def turn(st, u):
            redraw = st["stopped"]  # (never once complete: a complete layout stays as it is)
            st = jax.tree.map(lambda new, old: jnp.where(redraw, new, old), fresh(u[7:]), st)
            return body(st, u[:7]), None

        def turns(carry):  # 16 turns as a scan, their uniforms drawn before it (compile time;
            t, st = carry  # a 1-D draw: a (16, 9)-shaped one compiles ~1.7 s slower on CPU)
            u = jax.random.uniform(jax.random.fold_in(rnd.key, t), (16 * 9,)).reshape(16, 9)
            return t + 16, jax.lax.scan(turn, st, u)[0]
        start = fresh(jnp.zeros((2,))) | dict(stopped=jnp.bool_(True))
        cap = -(-attempts * 9 * n_rooms // 16) * 16  # whole blocks of 16 turns
        _, st = jax.lax.while_loop(lambda c: (c[1]["count"] < n_rooms) & (c[0] < cap), turns, (I32(0), start))
        rooms, doors = st["rooms"], st["doors"]
        r, c = iota(size, size)
        ty, tx, sy, sx = (rooms[:, k][:, None, None] for k in range(4))
        inside = (r[None] >= ty) & (r[None] < ty + sy) & (c[None] >= tx) & (c[None] < tx + sx)
        border = inside & ((r[None] == ty) | (r[None] == ty + sy - 1) | (c[None] == tx) | (c[None] == tx + sx - 1))
        g = jnp.where(jnp.any(border, axis=0), WALL, EMPTY).astype(I32)
        prev_color = I32(-1)
        for i in range(1, n_rooms):
            col = rnd.randint(0, NCOL - 1) if i > 1 else rnd.randint(0, NCOL)
            if i > 1:
                col = jnp.where(col >= prev_color, col + 1, col)
            g = put(g, doors[i], pack(DOOR, col, CLOSED))
            prev_color = col
        def floor_cell(room):  # a uniformly random cell inside the walls of room (ty, tx, sy, sx)
            return jnp.stack([rnd.randint(room[0] + 1, room[0] + room[2] - 1),
                              rnd.randint(room[1] + 1, room[1] + room[3] - 1)])
        pos, d = floor_cell(rooms[0]), rnd.randint(0, 4)
        g = put(g, floor_cell(rooms[n_rooms - 1]), GOAL)  # n_rooms >= 2: never the agent's room
        return lvl(g, pos, d)
    return gen


# --- RoomGrid families ---------------------------------------------------------------------------------
class RoomGrid:
    """Farama RoomGrid geometry: nr x nc rooms of side rs (walls shared), one random door slot per
    wall between neighbours; the agent's reference cell is the centre of the middle room."""

    def __init__(self, rs: int, nr: int, nc: int):
        self.rs, self.nr, self.nc = rs, nr, nc
        self.h, self.w = (rs - 1) * nr + 1, (rs - 1) * nc + 1
        self.centre = ((nr // 2) * (rs - 1) + rs // 2, (nc // 2) * (rs - 1) + rs // 2)

    def base(self, rnd, open_walls=()):
        """The walls of every room, less the walls (i, j, k) in open_walls (Farama
        `remove_wall`), and the random door slots."""
        rs = self.rs
        g = np.zeros((self.h, self.w), np.int32)
        g[:: rs - 1, :] = WALL
        g[:, :: rs - 1] = WALL
        for i, j, k in open_walls:
            top, left = j * (rs - 1), i * (rs - 1)
            row = {1: top + rs - 1, 3: top}.get(k)
            col = {0: left + rs - 1, 2: left}.get(k)
            if row is not None:
                g[row, left + 1: left + rs - 1] = EMPTY
            else:
                g[top + 1: top + rs - 1, col] = EMPTY
        # door slot on the right wall (a row) and on the bottom wall (a column) of every room
        right_rows = np.zeros((self.nr, self.nc), object)
        bottom_cols = np.zeros((self.nr, self.nc), object)
        for j in range(self.nr):
            for i in range(self.nc):
                top, left = j * (rs - 1), i * (rs - 1)
                right_rows[j, i] = rnd.randint(top + 1, top + rs - 1) if i + 1 < self.nc else None
                bottom_cols[j, i] = rnd.randint(left + 1, left + rs - 1) if j + 1 < self.nr else None
        return jnp.asarray(g), (right_rows, bottom_cols)

    def door_pos(self, slots, i, j, k):
        """Cell (row, col) of door k (0 right, 1 down, 2 left, 3 up) of room (col i, row j)."""
        rr, bc = slots
        top, left = j * (self.rs - 1), i * (self.rs - 1)
        if k == 0:
            return rr[j, i], left + self.rs - 1
        if k == 1:
            return top + self.rs - 1, bc[j, i]
        if k == 2:
            return rr[j, i - 1], left
        return top, bc[j - 1, i]

    def region(self, i, j):
        """Room (i, j) with its walls (i and j may be traced)."""
        top, left = j * (self.rs - 1), i * (self.rs - 1)
        return rect(self.h, self.w, top, left, top + self.rs, left + self.rs)

    def far_from(self, ref):
        """Farama `reject_next_to`: not within Manhattan distance 1 of the agent's cell."""
        r, c = iota(self.h, self.w)
        return (jnp.abs(r - ref[0]) + jnp.abs(c - ref[1])) >= 2

    def place_in_room(self, rnd, g, i, j, it, agent_ref):
        """Farama `place_in_room`: random empty cell of the room, not next to the agent's cell."""
        return place_obj(rnd, g, it, self.region(i, j) & self.far_from(agent_ref))

    def walls(self):
        """Static list of (room a, room b, (i, j, k)) for every inner wall."""
        out = []
        for j in range(self.nr):
            for i in range(self.nc):
                if i + 1 < self.nc:
                    out.append((j * self.nc + i, j * self.nc + i + 1, (i, j, 0)))
                if j + 1 < self.nr:
                    out.append((j * self.nc + i, (j + 1) * self.nc + i, (i, j, 1)))
        return out

    def connect_all(self, rnd, g, slots, opened, joined, locked_room, start_room):
        """Farama `connect_all`: while some room is unreachable from the start room, add a closed
        door of random colour on a uniformly random wall without a door or opening whose rooms
        are not locked. `opened`: static bool[walls] of removed walls; `joined`: bool[rooms] of
        the rooms already joined to the start room by a door (KeyCorridor's locked room, whose
        walls are never candidates). Reachability is kept as room labels (rooms joined by doors
        or openings share one), so the loop body is a few small vector ops; the new doors go into
        the grid after the loop."""
        walls = self.walls()
        nw, n = len(walls), self.nr * self.nc
        end_a = np.arange(n)[None, :] == np.array([a for a, _, _ in walls])[:, None]  # [walls, rooms]
        end_b = np.arange(n)[None, :] == np.array([b for _, b, _ in walls])[:, None]
        lab0 = np.arange(n)  # labels after the static openings (union-find at trace time)
        for w in np.flatnonzero(opened):
            la, lb = lab0[end_a[w]][0], lab0[end_b[w]][0]
            lab0 = np.where(lab0 == lb, la, lab0)
        lab = jnp.where(joined, lab0[start_room], jnp.asarray(lab0, I32))
        cand_ok = ~jnp.any((end_a | end_b) & locked_room[None, :], axis=1)

        def body(carry, _, r):
            has, lab, colour = carry
            done = jnp.all(lab == lab[start_room])
            cand = ~has & cand_ok
            pick, _ = r.cell(cand)
            add = ~done & jnp.any(cand)
            new = (jnp.arange(nw) == pick) & add  # one-hot wall of the new door
            la = jnp.sum(jnp.where(end_a & new[:, None], lab[None, :], 0))
            lb = jnp.sum(jnp.where(end_b & new[:, None], lab[None, :], 0))
            lab = jnp.where(add & (lab == lb), la, lab)
            return (has | new, lab, jnp.where(new, rand_color(r), colour)), None

        (has, _, colour), _ = rnd.scan(body, (jnp.asarray(opened), lab, jnp.zeros((nw,), I32)), nw, 2)
        r, c = iota(self.h, self.w)
        rows, cols = (jnp.stack([jnp.asarray(self.door_pos(slots, *ijk)[x]) for _, _, ijk in walls])
                      for x in (0, 1))
        new = ((r[None] == rows[:, None, None]) & (c[None] == cols[:, None, None])
               & (has & ~jnp.asarray(opened))[:, None, None])  # [walls, h, w]
        doors = jnp.sum(jnp.where(new, pack(DOOR, colour, CLOSED)[:, None, None], 0), axis=0)
        return jnp.where(jnp.any(new, axis=0), doors, g)

    def wall_index(self, i, j, k):
        """Index in walls() of door k of room (i, j)."""
        if k == 2:
            i, k = i - 1, 0
        if k == 3:
            j, k = j - 1, 1
        for n, (_, _, ijk) in enumerate(self.walls()):
            if ijk == (i, j, k):
                return n
        raise ValueError((i, j, k))


@functools.cache
def gen_keycorridor(s: int, rows: int):
    """Farama KeyCorridor: 3 x rows rooms, the middle column opened into a hallway, a locked door
    into a random right room holding a ball (the target), its key in a random left room."""
    rg = RoomGrid(s, rows, 3)
    hallway = [(1, j, 3) for j in range(1, rows)]
    opened = np.zeros((len(rg.walls()),), bool)
    opened[[rg.wall_index(*ijk) for ijk in hallway]] = True

    def gen(rnd):
        g, slots = rg.base(rnd, hallway)
        room_idx = rnd.randint(0, rows)
        door_color = rand_color(rnd)
        ball_color = rand_color(rnd)
        key_row = rnd.randint(0, rows)
        door = jnp.zeros((rg.h, rg.w), bool)
        for j in range(rows):  # the locked door: left wall of right room room_idx
            door = door | (cell(door.shape, rg.door_pos(slots, 2, j, 2)) & (room_idx == j))
        g = jnp.where(door, pack(DOOR, door_color, LOCKED), g)
        ball = item(BALL, ball_color)
        far = rg.far_from(rg.centre)
        g, _ = place_obj(rnd, g, ball, rg.region(2, room_idx) & far)
        g, _ = place_obj(rnd, g, item(KEY, door_color), rg.region(0, key_row) & far)
        pos, d = place_agent(rnd, g, rg.region(1, rows // 2), facing_free=True)
        locked_room = jnp.arange(3 * rows) == room_idx * 3 + 2  # rooms are numbered row by row
        g = rg.connect_all(rnd, g, slots, opened, locked_room, locked_room, start_room=(rows // 2) * 3 + 1)
        return lvl(g, pos, d, mission=obj_mission(ball), target_item=ball)
    return gen


@functools.cache
def gen_unlock(kind: str):
    """Farama Unlock / UnlockPickup / BlockedUnlockPickup: two 6x6 rooms, a locked door between
    them, its key in the left room with the agent; pickup variants add a box in the right room
    (the target); blocked adds a ball right in front of the door on the agent's side."""
    rg = RoomGrid(6, 1, 2)

    def gen(rnd):
        g, slots = rg.base(rnd)
        box = item(BOX, rand_color(rnd))
        if kind != "unlock":
            g, _ = rg.place_in_room(rnd, g, 1, 0, box, rg.centre)
        door_color = rand_color(rnd)
        p = rg.door_pos(slots, 0, 0, 0)
        g = put(g, p, pack(DOOR, door_color, LOCKED))
        if kind == "blocked":
            g = put(g, (p[0], p[1] - 1), item(BALL, rand_color(rnd)))
        g, _ = rg.place_in_room(rnd, g, 0, 0, item(KEY, door_color), rg.centre)
        pos, d = place_agent(rnd, g, rg.region(0, 0), facing_free=True)
        if kind == "unlock":
            return lvl(g, pos, d)
        return lvl(g, pos, d, mission=obj_mission(box), target_item=box)
    return gen


# Farama ObstructedMaze colours are COLOR_NAMES[0..2] of its *sorted* colour list (blue, green, grey):
# a blue target ball, green blocking balls, grey key boxes.
OM_TARGET = BLUE


def _om_door(rg, g, slots, i, j, k, color, locked, blocked):  # blocked: bool, may be traced
    """Farama ObstructedMaze `add_door`: door k of room (i, j), locked or closed; a green ball in
    front of it on the room's side if blocked. The key is placed by `_om_keys`, after every door
    and ball of the room (Farama's ObstructedMaze v1 order: in v0 a later blocking ball could land
    on an earlier key's cell and delete it, leaving ~7% of 1Q/2Dlhb levels unsolvable, Farama
    issue 323)."""
    p = rg.door_pos(slots, i, j, k)
    g = put(g, p, pack(DOOR, color, LOCKED if locked else CLOSED))
    dr, dc = DIR_OFFSETS[FACING[k]]
    return jnp.where(blocked, put(g, (p[0] - dr, p[1] - dc), item(BALL, GREEN)), g)


def _om_keys(rg, rnd, g, rooms, colors, key_in_box):
    """The keys of `colors` (traced int[n]), key t in room rooms[t] (static (i, j)), each inside a
    grey box if key_in_box (bool, may be traced); placed one after another (one scanned placement)."""
    regions = jnp.asarray(np.stack([rg.region(i, j) for i, j in rooms]))
    far = rg.far_from(rg.centre)

    def body(g, x, r):
        region, color = x
        obj = item(KEY, color)
        obj = jnp.where(key_in_box, pack(BOX, GREY, 0, obj), obj)
        return place_obj(r, g, obj, region & far)[0], None
    return rnd.scan(body, g, len(rooms), 1, (regions, colors))[0]


@functools.cache
def gen_obstructed_1d():
    """Farama ObstructedMaze-1Dl/1Dlh/1Dlhb: two rooms, a locked door (key in the agent's room,
    maybe in a grey box), maybe blocked by a green ball; the blue ball is in the other room."""
    rg = RoomGrid(6, 1, 2)

    def gen(rnd, key_in_box, blocked):
        key_in_box, blocked = key_in_box != 0, blocked != 0
        g, slots = rg.base(rnd)
        colors = rnd.perm(NCOL)
        g = _om_door(rg, g, slots, 0, 0, 0, colors[0], True, blocked)
        g = _om_keys(rg, rnd, g, [(0, 0)], colors[:1], key_in_box)
        ball = item(BALL, OM_TARGET)
        g, _ = rg.place_in_room(rnd, g, 1, 0, ball, rg.centre)
        pos, d = place_agent(rnd, g, rg.region(0, 0), facing_free=True)
        return lvl(g, pos, d, mission=obj_mission(ball), target_item=ball)
    return gen


@functools.cache
def gen_obstructed_full(quarters: int):
    """Farama ObstructedMaze_Full, v1 placement order (2Dl, 2Dlh, 2Dlhb, 1Q, 2Q, Full): 3x3 rooms;
    the middle room opens through plain closed doors into `quarters` side rooms; each side room
    has two locked, maybe blocked doors into the neighbouring corners, then their keys (maybe in
    boxes); the blue ball is in a random corner; the agent starts in the room at column
    agent_col of the middle row. (All doors and balls are drawn before all keys:
    the same levels as Farama's side-by-side order, as no side room's doors or balls touch
    another side room's interior.)"""
    rg = RoomGrid(6, 3, 3)
    side = [(2, 1), (1, 2), (0, 1), (1, 0)][:quarters]
    corners = [(2, 0), (2, 2), (0, 2), (0, 0)][:quarters]
    key_rooms = [room for room in side for _ in (-1, 1)]
    key_colors = np.array([(i + kk) % NCOL for i in range(quarters) for kk in (-1, 1)])

    def gen(rnd, agent_col, key_in_box, blocked):
        key_in_box, blocked = key_in_box != 0, blocked != 0
        g, slots = rg.base(rnd)
        colors = rnd.perm(NCOL)
        for i, (si, sj) in enumerate(side):
            g = _om_door(rg, g, slots, 1, 1, i, colors[i], False, False)  # middle door: plain
            for kk in (-1, 1):
                g = _om_door(rg, g, slots, si, sj, (i + kk) % 4, colors[(i + kk) % NCOL], True, blocked)
        g = _om_keys(rg, rnd, g, key_rooms, colors[key_colors], key_in_box)
        which = rnd.randint(0, quarters)
        reg = jnp.zeros((rg.h, rg.w), bool)
        for n, (ci, cj) in enumerate(corners):
            reg = reg | (rg.region(ci, cj) & (which == n))
        ball = item(BALL, OM_TARGET)
        g, _ = place_obj(rnd, g, ball, reg & rg.far_from(rg.centre))
        pos, d = place_agent(rnd, g, rg.region(agent_col, 1), facing_free=True)
        return lvl(g, pos, d, mission=obj_mission(ball), target_item=ball)
    return gen


# --- LockedRoom, RedBlueDoors ----------------------------------------------------------------------
def gen_lockedroom(rnd):
    """Farama LockedRoom (19x19): a hallway between six rooms with doors of six different colours;
    one room (locked) holds the goal, its key lies in another room."""
    size = 19
    lw, rw = size // 2 - 2, size // 2 + 2
    g = walled_np(size, size)
    g[:, lw] = g[:, rw] = WALL
    rooms = []
    for n in range(3):
        j = n * (size // 3)
        g[j, :lw] = WALL
        g[j, rw:] = WALL
        rooms.append((j, 0, (j + 3, lw)))
        rooms.append((j, rw, (j + 3, rw)))
    g = jnp.asarray(g)
    locked = rnd.randint(0, 6)
    colors = rnd.perm(NCOL)
    key_room = rnd.randint(0, 5)
    key_room = jnp.where(key_room >= locked, key_room + 1, key_room)
    room_w, room_h = lw + 1, size // 3 + 1
    goal_reg = jnp.zeros((size, size), bool)
    key_reg = jnp.zeros((size, size), bool)
    for n, (top, left, door) in enumerate(rooms):
        g = put(g, door, pack(DOOR, colors[n], jnp.where(locked == n, LOCKED, CLOSED)))
        interior = rect(size, size, top + 1, left + 1, top + room_h - 1, left + room_w - 1)
        goal_reg = goal_reg | (interior & (locked == n))
        key_reg = key_reg | (interior & (key_room == n))
    gp = sample_rc(rnd, goal_reg)
    g = put(g, gp, GOAL)
    kp = sample_rc(rnd, key_reg)
    g = put(g, kp, item(KEY, colors[locked]))
    pos, d = place_agent(rnd, g, rect(size, size, 0, lw, size, rw))
    return lvl(g, pos, d, mission=colors[locked] * NCOL + colors[key_room])


@functools.cache
def gen_redbluedoors(size: int):
    """Farama RedBlueDoors: a size x size room in the middle of a 2size-wide grid, a red door in
    its left wall and a blue door in its right wall at random heights."""
    def gen(rnd):
        h, w = size, 2 * size
        g = walled_np(h, w)
        q = size // 2
        g[0, q: q + size] = g[-1, q: q + size] = WALL
        g[:, q] = g[:, q + size - 1] = WALL
        g = jnp.asarray(g)
        pos, d = place_agent(rnd, g, rect(h, w, 0, q, size, q + size))
        red = jnp.stack([rnd.randint(1, size - 1), I32(q)])
        blue = jnp.stack([rnd.randint(1, size - 1), I32(q + size - 1)])
        g = put(put(g, red, pack(DOOR, RED, CLOSED)), blue, pack(DOOR, BLUE, CLOSED))
        return lvl(g, pos, d, target=red, aux=blue)
    return gen


# --- object rooms: Fetch, GoToDoor, GoToObject, PutNear, Playground ---------------------------------
def _distinct_items(rnd, n, types):
    """n distinct (type, colour) pairs, uniformly (Farama: redraw duplicates)."""
    combos = jnp.array([item(t, c) for t in types for c in range(NCOL)], I32)
    return combos[rnd.perm(combos.shape[0])[:n]]


@functools.cache
def gen_fetch(size: int, n: int):
    def gen(rnd):
        g = walled(size, size)
        allr = rect(size, size, 0, 0, size, size)
        def one(g, _, r):
            it = item(jnp.where(r.bernoulli(), KEY, BALL), rand_color(r))
            return place_obj(r, g, it, allr)[0], it
        g, objs = rnd.scan(one, g, n, 3)
        pos, d = place_agent(rnd, g, allr)
        target = objs[rnd.randint(0, n)]
        return lvl(g, pos, d, mission=obj_mission(target), target_item=target)
    return gen


@functools.cache
def gen_gotodoor(size: int):
    """Farama GoToDoor: a room of random size 5..size in the top-left corner of the grid, one door
    of a distinct colour in each wall; the mission names one door."""
    def gen(rnd):
        w, h = rnd.randint(5, size + 1), rnd.randint(5, size + 1)
        r, c = iota(size, size)
        inside = (r < h) & (c < w)
        g = jnp.where(inside & ((r == 0) | (r == h - 1) | (c == 0) | (c == w - 1)), WALL, EMPTY).astype(I32)
        doors = jnp.stack([
            jnp.stack([I32(0), rnd.randint(2, w - 2)]),
            jnp.stack([h - 1, rnd.randint(2, w - 2)]),
            jnp.stack([rnd.randint(2, h - 2), I32(0)]),
            jnp.stack([rnd.randint(2, h - 2), w - 1]),
        ])
        colors = rnd.perm(NCOL)[:4]
        for i in range(4):
            g = put(g, doors[i], pack(DOOR, colors[i], CLOSED))
        pos, d = place_agent(rnd, g, inside)
        t = rnd.randint(0, 4)
        return lvl(g, pos, d, mission=colors[t], target=doors[t])
    return gen


@functools.cache
def gen_gotoobject(size: int, n: int):
    def gen(rnd):
        g = walled(size, size)
        allr = rect(size, size, 0, 0, size, size)
        items = _distinct_items(rnd, n, (KEY, BALL, BOX))
        g, ps = rnd.scan(lambda g, it, r: place_obj(r, g, it, allr), g, n, 1, items)
        pos, d = place_agent(rnd, g, allr)
        t = rnd.randint(0, n)
        return lvl(g, pos, d, mission=obj_mission(items[t]), target=ps[t], target_item=items[t])
    return gen


@functools.cache
def gen_putnear(size: int, n: int):
    """Farama PutNear: n distinct objects never placed next to one another; move one (the
    target_item) next to another (the target cell)."""
    def gen(rnd):
        g = walled(size, size)
        allr = rect(size, size, 0, 0, size, size)
        r, c = iota(size, size)
        items = _distinct_items(rnd, n, (KEY, BALL, BOX))

        def one(carry, it, rr):
            g, near = carry  # near: cells next to (or on) an object already placed
            g, p = place_obj(rr, g, it, allr & ~near)
            return (g, near | ((jnp.abs(r - p[0]) <= 1) & (jnp.abs(c - p[1]) <= 1))), p
        (g, _), ps = rnd.scan(one, (g, jnp.zeros((size, size), bool)), n, 1, items)
        pos, d = place_agent(rnd, g, allr)
        mv = rnd.randint(0, n)
        tg = rnd.randint(0, n - 1)
        tg = jnp.where(tg >= mv, tg + 1, tg)
        mission = obj_mission(items[mv]) * len(OBJ_NAMES) + obj_mission(items[tg])
        return lvl(g, pos, d, mission=mission, target=ps[tg], target_item=items[mv])
    return gen


def gen_playground(rnd):
    """Farama Playground: 3x3 rooms joined by closed doors of random colours and 12 random
    objects. Farama gives no mission and never rewards; ours names one of the objects to pick up
    (picking up others is allowed) so the task can be learned and scored."""
    size = 19
    rw = size // 3
    g = walled_np(size, size)
    for k in range(1, 3):
        g[:, k * rw] = WALL
        g[k * rw, :] = WALL
    g = jnp.asarray(g)
    for j in range(3):
        for i in range(3):
            xl, yt = i * rw, j * rw
            xr, yb = xl + rw, yt + rw
            if i + 1 < 3:
                y = rnd.randint(yt + 1, yb - 1)
                g = put(g, (y, xr), pack(DOOR, rand_color(rnd), CLOSED))
            if j + 1 < 3:
                x = rnd.randint(xl + 1, xr - 1)
                g = put(g, (yb, x), pack(DOOR, rand_color(rnd), CLOSED))
    allr = rect(size, size, 0, 0, size, size)
    pos, d = place_agent(rnd, g, allr)
    def one(g, _, r):
        it = item(KEY + r.randint(0, 3), rand_color(r))
        return place_obj(r, g, it, allr, agent=pos)[0], it
    g, objs = rnd.scan(one, g, 12, 3)
    target = objs[rnd.randint(0, 12)]
    return lvl(g, pos, d, mission=obj_mission(target), target_item=target)


# --- Memory ------------------------------------------------------------------------------------------
@functools.cache
def gen_memory(size: int):
    """Farama Memory (fixed length): a start room with a green key or ball (the cue), a hallway,
    and at its end a green key and a green ball above and below; stepping next to the matching
    one succeeds, next to the other fails."""
    h = w = size
    mid = h // 2
    upper, lower = mid - 2, mid + 2
    end = w - 3
    base = walled_np(h, w)
    for i in range(1, 5):
        base[upper, i] = base[lower, i] = WALL
    base[upper + 1, 4] = base[lower - 1, 4] = WALL
    for i in range(5, end):
        base[upper + 1, i] = base[lower - 1, i] = WALL
    for j in range(h):
        if j != mid:
            base[j, end] = WALL
        base[j, end + 2] = WALL

    def gen(rnd):
        g = jnp.asarray(base)
        pos = jnp.stack([I32(mid), rnd.randint(1, end + 1)])
        cue_is_key = rnd.bernoulli()
        top_is_key = rnd.bernoulli()
        kg, bg = item(KEY, GREEN), item(BALL, GREEN)
        g = g.at[mid - 1, 1].set(jnp.where(cue_is_key, kg, bg))
        g = g.at[mid - 2, end + 1].set(jnp.where(top_is_key, kg, bg))
        g = g.at[mid + 2, end + 1].set(jnp.where(top_is_key, bg, kg))
        up_cell = jnp.array([mid - 1, end + 1], I32)
        down_cell = jnp.array([mid + 1, end + 1], I32)
        match_top = cue_is_key == top_is_key
        return lvl(g, pos, 0, target=jnp.where(match_top, up_cell, down_cell),
                   aux=jnp.where(match_top, down_cell, up_cell))
    return gen
