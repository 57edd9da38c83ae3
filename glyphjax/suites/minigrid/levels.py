"""Level generators of every MiniGrid family, in JAX (static shapes, no rejection loops).

Each generator is `gen(key) -> Level`, a port of the Farama MiniGrid `_gen_grid` of the family
written here from its rules (Farama's (x, y) becomes our (row=y, col=x)). Farama's rejection
sampling ("try a random cell until it is free") is replaced by one uniform draw over the mask of
admissible cells (same distribution); Farama's "retry the whole layout" loops (MultiRoom) become
a fixed number of candidate layouts drawn in parallel, of which the first valid one is kept.
Where a family departs from Farama, the docstring of the generator says so.
"""

from __future__ import annotations


import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.suites.minigrid.engine import (BALL, BLUE, BOX, CLOSED, COLORS, DOOR, EMPTY, GOAL,
                                             GREEN, KEY, LAVA, LOCKED, OBSTACLE, OPEN, RED, WALL,
                                             Level, item_index, pack)

NCOL = len(COLORS)
I32 = jnp.int32


# --- primitives ----------------------------------------------------------------------------------
def walled_np(h: int, w: int) -> np.ndarray:
    g = np.zeros((h, w), np.int32)
    g[0, :] = g[-1, :] = g[:, 0] = g[:, -1] = WALL
    return g


def walled(h: int, w: int) -> jax.Array:
    return jnp.asarray(walled_np(h, w))


def iota(h: int, w: int):
    return jnp.arange(h)[:, None], jnp.arange(w)[None, :]


def rect(h: int, w: int, r0, c0, r1, c1) -> jax.Array:
    """bool[h, w] of rows [r0, r1) x cols [c0, c1) (bounds may be traced)."""
    r, c = iota(h, w)
    return (r >= r0) & (r < r1) & (c >= c0) & (c < c1)


def randint(key, lo, hi):
    """Uniform int in [lo, hi) (Farama `_rand_int`)."""
    return jax.random.randint(key, (), lo, hi, dtype=I32)


def sample_rc(key, mask) -> jax.Array:
    """A uniformly random True cell of mask -> int32[2] (row, col)."""
    w = mask.shape[1]
    u = jax.random.uniform(key, mask.shape)
    idx = jnp.argmax(jnp.where(mask, u, -1.0).reshape(-1)).astype(I32)
    return jnp.stack([idx // w, idx % w])


def not_at(mask, pos):
    r, c = iota(*mask.shape)
    return mask & ~((r == pos[0]) & (c == pos[1]))


def place_obj(key, grid, item, region, agent=None):
    """Farama `place_obj`: a random empty cell of region (not the agent's) gets item."""
    mask = region & (grid == EMPTY)
    if agent is not None:
        mask = not_at(mask, agent)
    p = sample_rc(key, mask)
    return grid.at[p[0], p[1]].set(item), p


def place_agent(key, grid, region, facing_free: bool = False):
    """Farama `place_agent`: random empty cell of region, random direction. With facing_free
    (RoomGrid), the cell in front must be empty floor or wall (pos and direction drawn jointly)."""
    k1, k2 = jax.random.split(key)
    free = region & (grid == EMPTY)
    if not facing_free:
        return sample_rc(k1, free), randint(k2, 0, 4)
    h, w = grid.shape
    pad = jnp.pad(grid, 1, constant_values=WALL)
    fronts = jnp.stack([pad[1:-1, 2:], pad[2:, 1:-1], pad[1:-1, :-2], pad[:-2, 1:-1]])  # [4, h, w]
    ok = free[None] & ((fronts == EMPTY) | (fronts == WALL))
    u = jax.random.uniform(k1, ok.shape)
    idx = jnp.argmax(jnp.where(ok, u, -1.0).reshape(-1)).astype(I32)
    d, rest = idx // (h * w), idx % (h * w)
    return jnp.stack([rest // w, rest % w]), d


def rand_color(key):
    return randint(key, 0, NCOL)


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
MEMORY_MISSION = ("go to the object at the end of the hallway that matches the one in the start room",)


def obj_mission(c):
    """Mission index for a packed key/ball/box (index into the *_MISSIONS tuples above)."""
    return item_index(c) - 1


# --- Empty, FourRooms, DoorKey, DistShift, LavaGap --------------------------------------------------
def gen_empty(size: int, random_start: bool):
    def gen(key):
        g = walled(size, size).at[size - 2, size - 2].set(GOAL)
        if random_start:
            pos, d = place_agent(key, g, rect(size, size, 0, 0, size, size))
        else:
            pos, d = jnp.array([1, 1], I32), 0
        return lvl(g, pos, d)
    return gen


def gen_fourrooms(key):
    size = 19
    g = np.array(walled_np(size, size))
    g[9, :] = WALL
    g[:, 9] = WALL
    g = jnp.asarray(g)
    ks = jax.random.split(key, 6)
    # one gap per wall segment (Farama: pos = rand_int(yT + 1, yB) etc.)
    g = g.at[randint(ks[0], 1, 9), 9].set(EMPTY).at[randint(ks[1], 10, 18), 9].set(EMPTY)
    g = g.at[9, randint(ks[2], 1, 9)].set(EMPTY).at[9, randint(ks[3], 10, 18)].set(EMPTY)
    allr = rect(size, size, 0, 0, size, size)
    pos, d = place_agent(ks[4], g, allr)
    g, _ = place_obj(ks[5], g, GOAL, allr, agent=pos)
    return lvl(g, pos, d)


def gen_doorkey(size: int):
    def gen(key):
        ks = jax.random.split(key, 4)
        g = walled(size, size).at[size - 2, size - 2].set(GOAL)
        split = randint(ks[0], 2, size - 2)
        r, c = iota(size, size)
        g = jnp.where(c == split, WALL, g)
        pos, d = place_agent(ks[1], g, c < split)
        door_row = randint(ks[2], 1, size - 2)
        g = g.at[door_row, split].set(pack(DOOR, 4, LOCKED))  # yellow locked door
        g, _ = place_obj(ks[3], g, item(KEY, 4), c < split, agent=pos)
        return lvl(g, pos, d)
    return gen


def gen_distshift(strip2_row: int):
    def gen(key):
        h, w = 7, 9
        g = walled(h, w).at[1, w - 2].set(GOAL)
        for i in range(w - 6):
            g = g.at[1, 3 + i].set(LAVA).at[strip2_row, 3 + i].set(LAVA)
        return lvl(g, jnp.array([1, 1], I32), 0)
    return gen


def gen_lavagap(size: int):
    def gen(key):
        k1, k2 = jax.random.split(key)
        g = walled(size, size).at[size - 2, size - 2].set(GOAL)
        gc, gr = randint(k1, 2, size - 2), randint(k2, 1, size - 1)
        r, c = iota(size, size)
        g = jnp.where((c == gc) & (r >= 1) & (r <= size - 2), LAVA, g)
        g = g.at[gr, gc].set(EMPTY)
        return lvl(g, jnp.array([1, 1], I32), 0)
    return gen


# --- Crossings -------------------------------------------------------------------------------------
def gen_crossing(size: int, n: int, obstacle: int, easy: bool = False):
    """Farama Lava/SimpleCrossing: n random rivers (vertical at even columns, horizontal at even
    rows), a random monotone path of openings from the top-left to the goal. With `easy`
    (no Farama counterpart; our `simplecrossing-easy-*`): every river segment between two crossing
    rivers gets an opening, so any monotone route works."""
    cand = [(0, i) for i in range(2, size - 2, 2)] + [(1, j) for j in range(2, size - 2, 2)]
    m = len(cand)
    cand_dir = jnp.array([d for d, _ in cand], I32)
    cand_at = jnp.array([p for _, p in cand], I32)
    big = 10 * size

    def gen(key):
        ks = jax.random.split(key, 3 + 2 * n + 2 * m * (n + 1))
        g = walled(size, size).at[size - 2, size - 2].set(GOAL)
        perm = jax.random.permutation(ks[0], m)
        chosen = jnp.zeros((m,), bool).at[perm[:n]].set(True)
        sel_v = chosen & (cand_dir == 0)  # vertical river: a column
        sel_h = chosen & (cand_dir == 1)  # horizontal river: a row
        nv, nh = sel_v.sum(), sel_h.sum()
        r, c = iota(size, size)
        inner = (r >= 1) & (r <= size - 2) & (c >= 1) & (c <= size - 2)
        col_hit = jnp.any(sel_v[:, None, None] & (c[None] == cand_at[:, None, None]), axis=0)
        row_hit = jnp.any(sel_h[:, None, None] & (r[None] == cand_at[:, None, None]), axis=0)
        g = jnp.where(inner & (col_hit | row_hit), obstacle, g)
        vs = jnp.sort(jnp.where(sel_v, cand_at, big))
        hs = jnp.sort(jnp.where(sel_h, cand_at, big))
        idx = jnp.arange(m)
        lim_v = jnp.concatenate([jnp.zeros((1,), I32), jnp.where(idx < nv, vs, size - 1),
                                 jnp.full((1,), size - 1, I32)])  # x limits (columns)
        lim_h = jnp.concatenate([jnp.zeros((1,), I32), jnp.where(idx < nh, hs, size - 1),
                                 jnp.full((1,), size - 1, I32)])  # y limits (rows)
        if not easy:
            order = jax.random.permutation(ks[1], n)
            room_i, room_j = I32(0), I32(0)
            for step in range(n):
                cross_v = order[step] < nv  # cross a vertical river (move right)
                kk = ks[3 + 2 * step]
                row_h = randint(kk, lim_h[room_j] + 1, lim_h[room_j + 1])
                col_v = randint(ks[4 + 2 * step], lim_v[room_i] + 1, lim_v[room_i + 1])
                rr = jnp.where(cross_v, row_h, lim_h[room_j + 1])
                cc = jnp.where(cross_v, lim_v[room_i + 1], col_v)
                g = g.at[rr, cc].set(EMPTY)
                room_i = room_i + cross_v.astype(I32)
                room_j = room_j + (~cross_v).astype(I32)
        else:
            kk = 3 + 2 * n
            for a in range(m):
                for seg in range(n + 1):
                    # vertical river a (if chosen): opening in row segment seg
                    rr = randint(ks[kk], lim_h[seg] + 1, jnp.maximum(lim_h[seg + 1], lim_h[seg] + 2))
                    cc = randint(ks[kk + 1], lim_v[seg] + 1, jnp.maximum(lim_v[seg + 1], lim_v[seg] + 2))
                    kk += 2
                    use_v = sel_v[a] & (seg <= nh)
                    use_h = sel_h[a] & (seg <= nv)
                    g = g.at[jnp.where(use_v, rr, 0), jnp.where(use_v, cand_at[a], 0)].set(
                        jnp.where(use_v, EMPTY, g[0, 0]))
                    g = g.at[jnp.where(use_h, cand_at[a], 0), jnp.where(use_h, cc, 0)].set(
                        jnp.where(use_h, EMPTY, g[0, 0]))
        return lvl(g, jnp.array([1, 1], I32), 0)
    return gen


# --- Dynamic obstacles -------------------------------------------------------------------------------
def gen_dynamic_obstacles(size: int, n_obstacles: int):
    def gen(key):
        g = walled(size, size).at[size - 2, size - 2].set(GOAL)
        pos = jnp.array([1, 1], I32)
        allr = rect(size, size, 0, 0, size, size)
        obs = []
        for k in jax.random.split(key, n_obstacles):
            g, p = place_obj(k, g, pack(OBSTACLE, BLUE), allr, agent=pos)
            obs.append(p)
        return lvl(g, pos, 0, obstacles=jnp.stack(obs))
    return gen


# --- MultiRoom ---------------------------------------------------------------------------------------
def gen_multiroom(n_rooms: int, max_size: int, size: int = 25, attempts: int = 48):
    """Farama MultiRoom: a chain of n rooms (sides 4..max_size including walls), each next room
    entered by a door on a random wall (not the entry wall) of the previous one; up to 8 tries per
    room; a layout that stops short is redrawn. Here `attempts` layouts are drawn in parallel and
    the first complete one is kept (all 48 fail with negligible probability; the test certifies
    complete layouts on the seeds it checks). Door colours: random, never the previous door's."""
    tries = 9 * n_rooms

    def one_layout(key):
        k1, k2, kl = jax.random.split(key, 3)
        st = dict(
            rooms=jnp.zeros((n_rooms, 4), I32),  # top_row, top_col, size_rows, size_cols
            doors=jnp.zeros((n_rooms, 2), I32),  # entry door (row, col) of each room
            count=I32(0), last_wall=I32(2),  # entry wall of the last placed room
            wall=I32(2), epos=jnp.stack([randint(k1, 0, size - 2), randint(k2, 0, size - 2)]),  # (x, y)
            fails=I32(0), stopped=jnp.bool_(False))

        def body(t, st):
            ks = jax.random.split(jax.random.fold_in(kl, t), 7)
            count, wall, x, y = st["count"], st["wall"], st["epos"][0], st["epos"][1]
            sx, sy = randint(ks[0], 4, max_size + 1), randint(ks[1], 4, max_size + 1)
            first = count == 0
            rx_ = randint(ks[2], x - sx + 2, x)
            ry_ = randint(ks[3], y - sy + 2, y)
            top_x = jnp.where(first, x, jnp.select([wall == 0, wall == 1, wall == 2], [x - sx + 1, rx_, x], rx_))
            top_y = jnp.where(first, y, jnp.select([wall == 0, wall == 1, wall == 2], [ry_, y - sy + 1, ry_], y))
            ok = (top_x >= 0) & (top_y >= 0) & (top_x + sx <= size) & (top_y + sy < size)
            rooms = st["rooms"]
            ry, rx, rh, rw = rooms[:, 0], rooms[:, 1], rooms[:, 2], rooms[:, 3]
            apart = (top_x + sx < rx) | (rx + rw <= top_x) | (top_y + sy < ry) | (ry + rh <= top_y)
            ok = ok & jnp.all(apart | (jnp.arange(n_rooms) >= count - 1))  # all but the previous room
            active = ~st["stopped"] & (count < n_rooms)
            place = active & ok
            rooms = jnp.where(place, rooms.at[count].set(jnp.stack([top_y, top_x, sy, sx])), rooms)
            doors = jnp.where(place, st["doors"].at[count].set(jnp.stack([y, x])), st["doors"])
            last_wall = jnp.where(place, wall, st["last_wall"])
            count2 = count + place.astype(I32)
            fails = jnp.where(place, 0, st["fails"] + (active & ~ok).astype(I32))
            stopped = st["stopped"] | (active & first & ~ok) | (fails >= 8)
            # draw the exit of the last placed room for the next try
            cur = rooms[jnp.maximum(count2 - 1, 0)]
            cy, cx, ch, cw = cur[0], cur[1], cur[2], cur[3]
            pick = randint(ks[4], 0, 3)
            exit_wall = jnp.where(pick >= last_wall, pick + 1, pick)
            oy, ox = randint(ks[5], 1, ch - 1), randint(ks[6], 1, cw - 1)
            ex = jnp.select([exit_wall == 0, exit_wall == 2], [cx + cw - 1, cx], cx + ox)
            ey = jnp.select([exit_wall == 1, exit_wall == 3], [cy + ch - 1, cy], cy + oy)
            keep = ~active | (first & ~ok)
            return dict(rooms=rooms, doors=doors, count=count2, last_wall=last_wall,
                        wall=jnp.where(keep, wall, (exit_wall + 2) % 4),
                        epos=jnp.where(keep, st["epos"], jnp.stack([ex, ey])), fails=fails, stopped=stopped)

        st = jax.lax.fori_loop(0, tries, body, st)
        return st["rooms"], st["doors"], st["count"]

    def gen(key):
        ka, kb = jax.random.split(key)
        rooms, doors, counts = jax.vmap(one_layout)(jax.random.split(ka, attempts))
        best = jnp.argmax(counts >= n_rooms)
        rooms, doors = rooms[best], doors[best]
        g = jnp.zeros((size, size), I32)
        r, c = iota(size, size)
        ks = jax.random.split(kb, n_rooms + 2)
        prev_color = I32(-1)
        for i in range(n_rooms):
            ty, tx, sy, sx = rooms[i, 0], rooms[i, 1], rooms[i, 2], rooms[i, 3]
            inside = (r >= ty) & (r < ty + sy) & (c >= tx) & (c < tx + sx)
            border = inside & ((r == ty) | (r == ty + sy - 1) | (c == tx) | (c == tx + sx - 1))
            g = jnp.where(border, WALL, g)
            if i > 0:
                col = randint(ks[i], 0, NCOL - 1)
                col = jnp.where((prev_color >= 0) & (col >= prev_color), col + 1, col)
                col = jnp.where(prev_color < 0, randint(ks[i], 0, NCOL), col)
                g = g.at[doors[i, 0], doors[i, 1]].set(pack(DOOR, col, CLOSED))
                prev_color = col
        first = rooms[0]
        reg0 = rect(size, size, first[0], first[1], first[0] + first[2], first[1] + first[3])
        pos, d = place_agent(ks[-2], g, reg0)
        last = rooms[n_rooms - 1]
        regl = rect(size, size, last[0], last[1], last[0] + last[2], last[1] + last[3])
        g, _ = place_obj(ks[-1], g, GOAL, regl, agent=pos)
        return lvl(g, pos, d)
    return gen


# --- RoomGrid families ---------------------------------------------------------------------------------
class RoomGrid:
    """Farama RoomGrid geometry: nr x nc rooms of side rs (walls shared), one random door slot per
    wall between neighbours; the agent's reference cell is the centre of the middle room."""

    def __init__(self, rs: int, nr: int, nc: int):
        self.rs, self.nr, self.nc = rs, nr, nc
        self.h, self.w = (rs - 1) * nr + 1, (rs - 1) * nc + 1
        self.centre = jnp.array([(nr // 2) * (rs - 1) + rs // 2, (nc // 2) * (rs - 1) + rs // 2], I32)

    def base(self, key):
        g = np.zeros((self.h, self.w), np.int32)
        g[:: self.rs - 1, :] = WALL
        g[:, :: self.rs - 1] = WALL
        k1, k2 = jax.random.split(key)
        # door slot on the right wall (a row) and on the bottom wall (a column) of every room
        right_rows = jax.random.randint(k1, (self.nr, self.nc), 1, self.rs - 1) + \
            (jnp.arange(self.nr)[:, None] * (self.rs - 1))
        bottom_cols = jax.random.randint(k2, (self.nr, self.nc), 1, self.rs - 1) + \
            (jnp.arange(self.nc)[None, :] * (self.rs - 1))
        return jnp.asarray(g), (right_rows, bottom_cols)

    def door_pos(self, slots, i, j, k):
        """Cell of door k (0 right, 1 down, 2 left, 3 up) of room (col i, row j)."""
        rr, bc = slots
        top, left = j * (self.rs - 1), i * (self.rs - 1)
        if k == 0:
            return jnp.stack([rr[j, i], I32(left + self.rs - 1)])
        if k == 1:
            return jnp.stack([I32(top + self.rs - 1), bc[j, i]])
        if k == 2:
            return jnp.stack([rr[j, i - 1], I32(left)])
        return jnp.stack([I32(top), bc[j - 1, i]])

    def region(self, i, j):
        top, left = j * (self.rs - 1), i * (self.rs - 1)
        return rect(self.h, self.w, top, left, top + self.rs, left + self.rs)

    def place_in_room(self, key, g, i, j, it, agent_ref):
        """Farama `place_in_room`: random empty cell of the room, not next to the agent's cell."""
        r, c = iota(self.h, self.w)
        far = (jnp.abs(r - agent_ref[0]) + jnp.abs(c - agent_ref[1])) >= 2
        return place_obj(key, g, it, self.region(i, j) & far)

    def remove_wall(self, g, i, j, k):
        top, left = j * (self.rs - 1), i * (self.rs - 1)
        g = np.asarray(g).copy() if isinstance(g, np.ndarray) else g
        if k == 3:
            return g.at[top, left + 1: left + self.rs - 1].set(EMPTY)
        if k == 1:
            return g.at[top + self.rs - 1, left + 1: left + self.rs - 1].set(EMPTY)
        if k == 2:
            return g.at[top + 1: top + self.rs - 1, left].set(EMPTY)
        return g.at[top + 1: top + self.rs - 1, left + self.rs - 1].set(EMPTY)

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

    def connect_all(self, key, g, slots, has_door, locked_room, start_room):
        """Farama `connect_all`: while some room is unreachable from the start room, add a closed
        door of random colour on a uniformly random wall without a door whose rooms are not locked."""
        walls = self.walls()
        n = self.nr * self.nc
        wa = jnp.array([a for a, _, _ in walls], I32)
        wb = jnp.array([b for _, b, _ in walls], I32)
        pos = jnp.stack([self.door_pos(slots, *ijk) for _, _, ijk in walls])
        cand_ok = ~locked_room[wa] & ~locked_room[wb]

        def body(t, carry):
            g, has = carry
            reach = jnp.zeros((n,), bool).at[start_room].set(True)
            for _ in range(n):
                ra = reach[wa] & has
                rb = reach[wb] & has
                reach = reach.at[wb].max(ra).at[wa].max(rb)
            done = jnp.all(reach)
            k = jax.random.fold_in(key, t)
            k1, k2 = jax.random.split(k)
            cand = ~has & cand_ok
            u = jax.random.uniform(k1, cand.shape)
            pick = jnp.argmax(jnp.where(cand, u, -1.0))
            add = ~done & jnp.any(cand)
            p = pos[pick]
            cell = jnp.where(add, pack(DOOR, rand_color(k2), CLOSED), g[p[0], p[1]])
            return g.at[p[0], p[1]].set(cell), has.at[pick].set(has[pick] | add)

        g, _ = jax.lax.fori_loop(0, len(walls), body, (g, has_door))
        return g

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


def gen_keycorridor(s: int, rows: int):
    """Farama KeyCorridor: 3 x rows rooms, the middle column opened into a hallway, a locked door
    into a random right room holding a ball (the target), its key in a random left room."""
    rg = RoomGrid(s, rows, 3)

    def gen(key):
        ks = jax.random.split(key, 10)
        g, slots = rg.base(ks[0])
        has = jnp.zeros((len(rg.walls()),), bool)
        for j in range(1, rows):
            g = rg.remove_wall(g, 1, j, 3)
            has = has.at[rg.wall_index(1, j, 3)].set(True)
        room_idx = randint(ks[1], 0, rows)
        door_color = rand_color(ks[2])
        ball_color = rand_color(ks[3])
        key_row = randint(ks[4], 0, rows)
        locked_room = jnp.zeros((3 * rows,), bool)
        for j in range(rows):  # static loop over candidate rooms, selected by room_idx
            p = rg.door_pos(slots, 2, j, 2)
            sel = room_idx == j
            g = g.at[p[0], p[1]].set(jnp.where(sel, pack(DOOR, door_color, LOCKED), g[p[0], p[1]]))
            has = has.at[rg.wall_index(2, j, 2)].set(has[rg.wall_index(2, j, 2)] | sel)
            locked_room = locked_room.at[j * 3 + 2].set(sel)
        ball = item(BALL, ball_color)
        reg_ball = jnp.zeros((rg.h, rg.w), bool)
        reg_key = jnp.zeros((rg.h, rg.w), bool)
        for j in range(rows):
            reg_ball = reg_ball | (rg.region(2, j) & (room_idx == j))
            reg_key = reg_key | (rg.region(0, j) & (key_row == j))
        r, c = iota(rg.h, rg.w)
        far = (jnp.abs(r - rg.centre[0]) + jnp.abs(c - rg.centre[1])) >= 2
        g, _ = place_obj(ks[5], g, ball, reg_ball & far)
        g, _ = place_obj(ks[6], g, item(KEY, door_color), reg_key & far)
        pos, d = place_agent(ks[7], g, rg.region(1, rows // 2), facing_free=True)
        g = rg.connect_all(ks[8], g, slots, has, locked_room, start_room=(rows // 2) * 3 + 1)
        return lvl(g, pos, d, mission=obj_mission(ball), target_item=ball)
    return gen


def gen_unlock(kind: str):
    """Farama Unlock / UnlockPickup / BlockedUnlockPickup: two 6x6 rooms, a locked door between
    them, its key in the left room with the agent; pickup variants add a box in the right room
    (the target); blocked adds a ball right in front of the door on the agent's side."""
    rg = RoomGrid(6, 1, 2)

    def gen(key):
        ks = jax.random.split(key, 8)
        g, slots = rg.base(ks[0])
        box = item(BOX, rand_color(ks[1]))
        if kind != "unlock":
            g, _ = rg.place_in_room(ks[2], g, 1, 0, box, rg.centre)
        door_color = rand_color(ks[3])
        p = rg.door_pos(slots, 0, 0, 0)
        g = g.at[p[0], p[1]].set(pack(DOOR, door_color, LOCKED))
        if kind == "blocked":
            g = g.at[p[0], p[1] - 1].set(item(BALL, rand_color(ks[4])))
        g, _ = rg.place_in_room(ks[5], g, 0, 0, item(KEY, door_color), rg.centre)
        pos, d = place_agent(ks[6], g, rg.region(0, 0), facing_free=True)
        if kind == "unlock":
            return lvl(g, pos, d)
        return lvl(g, pos, d, mission=obj_mission(box), target_item=box)
    return gen


def _om_door(rg, key, g, slots, i, j, k, color, locked, key_in_box, blocked, agent_ref):
    """Farama ObstructedMaze `add_door`: door k of room (i, j); a green ball in front of it on the
    room's side if blocked; if locked, its key (inside a blue box if key_in_box) in room (i, j)."""
    p = rg.door_pos(slots, i, j, k)
    g = g.at[p[0], p[1]].set(pack(DOOR, color, LOCKED if locked else CLOSED))
    if blocked:
        dr, dc = [(0, 1), (1, 0), (0, -1), (-1, 0)][k]
        g = g.at[p[0] - dr, p[1] - dc].set(item(BALL, GREEN))
    if locked:
        obj = item(KEY, color)
        if key_in_box:
            obj = pack(BOX, BLUE, 0, obj)
        g, _ = rg.place_in_room(key, g, i, j, obj, agent_ref)
    return g


def gen_obstructed_1d(key_in_box: bool, blocked: bool):
    """Farama ObstructedMaze-1Dl/1Dlh/1Dlhb: two rooms, a locked door (key in the agent's room,
    maybe in a blue box), maybe blocked by a green ball; the red ball is in the other room."""
    rg = RoomGrid(6, 1, 2)

    def gen(key):
        ks = jax.random.split(key, 6)
        g, slots = rg.base(ks[0])
        colors = jax.random.permutation(ks[1], NCOL)
        g = _om_door(rg, ks[2], g, slots, 0, 0, 0, colors[0], True, key_in_box, blocked, rg.centre)
        ball = item(BALL, RED)
        g, _ = rg.place_in_room(ks[3], g, 1, 0, ball, rg.centre)
        pos, d = place_agent(ks[4], g, rg.region(0, 0), facing_free=True)
        return lvl(g, pos, d, mission=obj_mission(ball), target_item=ball)
    return gen


def gen_obstructed_full(agent_room, key_in_box: bool, blocked: bool, quarters: int):
    """Farama ObstructedMaze_Full (2Dl, 2Dlh, 2Dlhb, 1Q, 2Q, Full): 3x3 rooms; the middle room
    opens into `quarters` side rooms; each side room has two locked, maybe blocked doors into the
    neighbouring corners with their keys (maybe in boxes); the red ball is in a random corner."""
    rg = RoomGrid(6, 3, 3)
    side = [(2, 1), (1, 2), (0, 1), (1, 0)][:quarters]
    corners = [(2, 0), (2, 2), (0, 2), (0, 0)][:quarters]

    def gen(key):
        ks = jax.random.split(key, 4 + 3 * quarters)
        g, slots = rg.base(ks[0])
        colors = jax.random.permutation(ks[1], NCOL)
        for i, (si, sj) in enumerate(side):
            g = _om_door(rg, ks[4 + 3 * i], g, slots, 1, 1, i, colors[i], False, key_in_box, blocked, rg.centre)
            for n, kk in enumerate((-1, 1)):
                g = _om_door(rg, ks[5 + 3 * i + n], g, slots, si, sj, (i + kk) % 4, colors[(i + kk) % NCOL],
                             True, key_in_box, blocked, rg.centre)
        which = randint(ks[2], 0, quarters)
        reg = jnp.zeros((rg.h, rg.w), bool)
        for n, (ci, cj) in enumerate(corners):
            reg = reg | (rg.region(ci, cj) & (which == n))
        r, c = iota(rg.h, rg.w)
        far = (jnp.abs(r - rg.centre[0]) + jnp.abs(c - rg.centre[1])) >= 2
        ball = item(BALL, RED)
        g, _ = place_obj(ks[3], g, ball, reg & far)
        pos, d = place_agent(jax.random.fold_in(key, 7), g, rg.region(*agent_room), facing_free=True)
        return lvl(g, pos, d, mission=obj_mission(ball), target_item=ball)
    return gen


# --- LockedRoom, RedBlueDoors ----------------------------------------------------------------------
def gen_lockedroom(key):
    """Farama LockedRoom (19x19): a hallway between six rooms with doors of six different colours;
    one room (locked) holds the goal, its key lies in another room."""
    size = 19
    lw, rw = size // 2 - 2, size // 2 + 2
    g = np.array(walled_np(size, size))
    g[:, lw] = g[:, rw] = WALL
    rooms = []
    for n in range(3):
        j = n * (size // 3)
        g[j, :lw] = WALL
        g[j, rw:] = WALL
        rooms.append((j, 0, (j + 3, lw)))
        rooms.append((j, rw, (j + 3, rw)))
    g = jnp.asarray(g)
    ks = jax.random.split(key, 6)
    locked = randint(ks[0], 0, 6)
    colors = jax.random.permutation(ks[1], NCOL)
    key_room = randint(ks[2], 0, 5)
    key_room = jnp.where(key_room >= locked, key_room + 1, key_room)
    room_w, room_h = lw + 1, size // 3 + 1
    goal_reg = jnp.zeros((size, size), bool)
    key_reg = jnp.zeros((size, size), bool)
    for n, (top, left, door) in enumerate(rooms):
        g = g.at[door].set(pack(DOOR, colors[n], jnp.where(locked == n, LOCKED, CLOSED)))
        interior = rect(size, size, top + 1, left + 1, top + room_h - 1, left + room_w - 1)
        goal_reg = goal_reg | (interior & (locked == n))
        key_reg = key_reg | (interior & (key_room == n))
    gp = sample_rc(ks[3], goal_reg)
    g = g.at[gp[0], gp[1]].set(GOAL)
    kp = sample_rc(ks[4], key_reg)
    g = g.at[kp[0], kp[1]].set(item(KEY, colors[locked]))
    pos, d = place_agent(ks[5], g, rect(size, size, 0, lw, size, rw))
    return lvl(g, pos, d, mission=colors[locked] * NCOL + colors[key_room])


def gen_redbluedoors(size: int):
    """Farama RedBlueDoors: a size x size room in the middle of a 2size-wide grid, a red door in
    its left wall and a blue door in its right wall at random heights."""
    def gen(key):
        h, w = size, 2 * size
        g = np.zeros((h, w), np.int32)
        g[0, :] = g[-1, :] = g[:, 0] = g[:, -1] = WALL
        q = size // 2
        g[0, q: q + size] = g[-1, q: q + size] = WALL
        g[:, q] = g[:, q + size - 1] = WALL
        g = jnp.asarray(g)
        ks = jax.random.split(key, 3)
        pos, d = place_agent(ks[0], g, rect(h, w, 0, q, size, q + size))
        red = jnp.stack([randint(ks[1], 1, size - 1), I32(q)])
        blue = jnp.stack([randint(ks[2], 1, size - 1), I32(q + size - 1)])
        g = g.at[red[0], red[1]].set(pack(DOOR, RED, CLOSED)).at[blue[0], blue[1]].set(pack(DOOR, BLUE, CLOSED))
        return lvl(g, pos, d, target=red, aux=blue)
    return gen


# --- object rooms: Fetch, GoToDoor, GoToObject, PutNear, Playground ---------------------------------
def _distinct_items(key, n, types):
    """n distinct (type, colour) pairs, uniformly (Farama: redraw duplicates)."""
    combos = jnp.array([item(t, c) for t in types for c in range(NCOL)], I32)
    return combos[jax.random.permutation(key, combos.shape[0])[:n]]


def gen_fetch(size: int, n: int):
    def gen(key):
        ks = jax.random.split(key, 2 * n + 3)
        g = walled(size, size)
        allr = rect(size, size, 0, 0, size, size)
        objs = []
        for i in range(n):
            t = jnp.where(randint(ks[2 * i], 0, 2) == 0, KEY, BALL)
            it = item(t, rand_color(ks[2 * i + 1]))
            g, _ = place_obj(jax.random.fold_in(ks[2 * i], 1), g, it, allr)
            objs.append(it)
        pos, d = place_agent(ks[-3], g, allr)
        target = jnp.stack(objs)[randint(ks[-2], 0, n)]
        return lvl(g, pos, d, mission=obj_mission(target), target_item=target)
    return gen


def gen_gotodoor(size: int):
    """Farama GoToDoor: a room of random size 5..size in the top-left corner of the grid, one door
    of a distinct colour in each wall; the mission names one door."""
    def gen(key):
        ks = jax.random.split(key, 10)
        w, h = randint(ks[0], 5, size + 1), randint(ks[1], 5, size + 1)
        r, c = iota(size, size)
        inside = (r < h) & (c < w)
        g = jnp.where(inside & ((r == 0) | (r == h - 1) | (c == 0) | (c == w - 1)), WALL, EMPTY)
        doors = jnp.stack([
            jnp.stack([I32(0), randint(ks[2], 2, w - 2)]),
            jnp.stack([h - 1, randint(ks[3], 2, w - 2)]),
            jnp.stack([randint(ks[4], 2, h - 2), I32(0)]),
            jnp.stack([randint(ks[5], 2, h - 2), w - 1]),
        ])
        colors = jax.random.permutation(ks[6], NCOL)[:4]
        for i in range(4):
            g = g.at[doors[i, 0], doors[i, 1]].set(pack(DOOR, colors[i], CLOSED))
        pos, d = place_agent(ks[7], g, inside)
        t = randint(ks[8], 0, 4)
        return lvl(g, pos, d, mission=colors[t], target=doors[t])
    return gen


def gen_gotoobject(size: int, n: int):
    def gen(key):
        ks = jax.random.split(key, n + 3)
        g = walled(size, size)
        allr = rect(size, size, 0, 0, size, size)
        items = _distinct_items(ks[0], n, (KEY, BALL, BOX))
        ps = []
        for i in range(n):
            g, p = place_obj(ks[1 + i], g, items[i], allr)
            ps.append(p)
        pos, d = place_agent(ks[-2], g, allr)
        t = randint(ks[-1], 0, n)
        return lvl(g, pos, d, mission=obj_mission(items[t]), target=jnp.stack(ps)[t], target_item=items[t])
    return gen


def gen_putnear(size: int, n: int):
    """Farama PutNear: n distinct objects never placed next to one another; move one (the
    target_item) next to another (the target cell)."""
    def gen(key):
        ks = jax.random.split(key, n + 4)
        g = walled(size, size)
        allr = rect(size, size, 0, 0, size, size)
        r, c = iota(size, size)
        items = _distinct_items(ks[0], n, (KEY, BALL, BOX))
        ps = []
        for i in range(n):
            far = allr
            for p in ps:
                far = far & ~((jnp.abs(r - p[0]) <= 1) & (jnp.abs(c - p[1]) <= 1))
            g, p = place_obj(ks[1 + i], g, items[i], far)
            ps.append(p)
        pos, d = place_agent(ks[-3], g, allr)
        mv = randint(ks[-2], 0, n)
        tg = randint(ks[-1], 0, n - 1)
        tg = jnp.where(tg >= mv, tg + 1, tg)
        ps = jnp.stack(ps)
        mission = obj_mission(items[mv]) * len(OBJ_NAMES) + obj_mission(items[tg])
        return lvl(g, pos, d, mission=mission, target=ps[tg], target_item=items[mv])
    return gen


def gen_playground(key):
    """Farama Playground: 3x3 rooms joined by closed doors of random colours and 12 random
    objects. Farama gives no mission and never rewards; ours names one of the objects to pick up
    (picking up others is allowed) so the task can be learned and scored."""
    size = 19
    rw = size // 3
    g = walled(size, size)
    ks = jax.random.split(key, 40)
    n = 0
    for j in range(3):
        for i in range(3):
            xl, yt = i * rw, j * rw
            xr, yb = xl + rw, yt + rw
            if i + 1 < 3:
                g = g.at[yt: yt + rw, xr].set(WALL)
                y = randint(ks[n], yt + 1, yb - 1)
                g = g.at[y, xr].set(pack(DOOR, rand_color(ks[n + 1]), CLOSED))
                n += 2
            if j + 1 < 3:
                g = g.at[yb, xl: xl + rw].set(WALL)
                x = randint(ks[n], xl + 1, xr - 1)
                g = g.at[yb, x].set(pack(DOOR, rand_color(ks[n + 1]), CLOSED))
                n += 2
    allr = rect(size, size, 0, 0, size, size)
    pos, d = place_agent(ks[n], g, allr)
    objs = []
    kk = jax.random.split(ks[n + 1], 36)
    for i in range(12):
        t = KEY + randint(kk[3 * i], 0, 3)
        it = item(t, rand_color(kk[3 * i + 1]))
        g, _ = place_obj(kk[3 * i + 2], g, it, allr, agent=pos)
        objs.append(it)
    target = jnp.stack(objs)[randint(ks[n + 2], 0, 12)]
    return lvl(g, pos, d, mission=obj_mission(target), target_item=target)


# --- Memory ------------------------------------------------------------------------------------------
def gen_memory(size: int):
    """Farama Memory (fixed length): a start room with a green key or ball (the cue), a hallway,
    and at its end a green key and a green ball above and below; stepping next to the matching
    one succeeds, next to the other fails."""
    def gen(key):
        h = w = size
        mid = h // 2
        upper, lower = mid - 2, mid + 2
        end = w - 3
        g = np.array(walled_np(h, w))
        for i in range(1, 5):
            g[upper, i] = g[lower, i] = WALL
        g[upper + 1, 4] = g[lower - 1, 4] = WALL
        for i in range(5, end):
            g[upper + 1, i] = g[lower - 1, i] = WALL
        for j in range(h):
            if j != mid:
                g[j, end] = WALL
            g[j, end + 2] = WALL
        g = jnp.asarray(g)
        ks = jax.random.split(key, 3)
        pos = jnp.stack([I32(mid), randint(ks[0], 1, end + 1)])
        cue_is_key = jax.random.bernoulli(ks[1])
        top_is_key = jax.random.bernoulli(ks[2])
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


