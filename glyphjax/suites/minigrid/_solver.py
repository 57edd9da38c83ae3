"""Host-side planner for MiniGrid levels: breadth-first search over (row, col, direction) on a
numpy copy of the grid, chained over subgoals (fetch a key, open a door, move a blocking ball,
open a box, ...). It is written independently of the JAX step (it keeps its own model of the
mechanics), so replaying its plans through the JAX engine checks both.

`plan(cfg, state)` -> list of actions that solves the level from the reset state, or None.
Each navigation leg is a shortest path (turns and moves count as one action each), so for pure
navigation tasks the plan length is the optimal episode length; for tasks with subgoals it is the
length of this subgoal chain (an upper bound of the optimum).
Dynamic obstacles are not planned here (they move at random): see `scripted_obstacle_action`.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from glyphjax.core.grid import DIR_OFFSETS
from glyphjax.suites.minigrid.engine import (BALL, BOX, CLOSED, DONE, DOOR, DROP, EMPTY, FACING,
                                             GOAL, KEY, LAVA, LOCKED, MOVE_FORWARD, OBSTACLE, OPEN,
                                             PICKUP, TOGGLE, TURN_LEFT, TURN_RIGHT, WALL)

DV = tuple(DIR_OFFSETS[d] for d in FACING)  # (d_row, d_col) per facing


def t_of(c):
    return int(c) & 15


def col_of(c):
    return (int(c) >> 4) & 7


def st_of(c):
    return (int(c) >> 7) & 3


class Planner:
    """Mutable host model of one level: grid, agent, carried item; actions appended to `out`."""

    def __init__(self, grid, pos, d, carry=0, rng=None):
        self.rng = rng  # None: the fixed door order; a Generator: a shuffled order (restarts)
        self.g = np.array(grid, np.int64)
        self.pos = (int(pos[0]), int(pos[1]))
        self.d = int(d)
        self.carry = int(carry)
        self.out: list[int] = []

    # -- model of the mechanics (independent of engine.py) --
    def front(self, pos=None, d=None):
        pos = self.pos if pos is None else pos
        d = self.d if d is None else d
        return pos[0] + DV[d][0], pos[1] + DV[d][1]

    def walkable(self, c, allow_closed=True):
        t = t_of(c)
        if t in (EMPTY, GOAL):
            return True
        if t == DOOR:
            return st_of(c) == OPEN or (allow_closed and st_of(c) == CLOSED)
        return False

    def act(self, a):
        self.out.append(a)
        if a == TURN_LEFT:
            self.d = (self.d + 3) % 4
        elif a == TURN_RIGHT:
            self.d = (self.d + 1) % 4
        else:
            fr = self.front()
            c = int(self.g[fr])
            if a == MOVE_FORWARD and self.walkable(c, allow_closed=False):
                self.pos = fr
            elif a == PICKUP and self.carry == 0 and t_of(c) in (KEY, BALL, BOX):
                self.carry, self.g[fr] = c, EMPTY
            elif a == DROP and self.carry and c == EMPTY:
                self.g[fr], self.carry = self.carry, 0
            elif a == TOGGLE:
                if t_of(c) == DOOR:
                    s = st_of(c)
                    base = c & ~(3 << 7)
                    if s == LOCKED:
                        if t_of(self.carry) == KEY and col_of(self.carry) == col_of(c):
                            self.g[fr] = base
                    else:
                        self.g[fr] = base | ((CLOSED if s == OPEN else OPEN) << 7)
                elif t_of(c) == BOX:
                    self.g[fr] = c >> 9

    # -- navigation --
    def bfs(self, goal_fn, allow_closed=True):
        """Shortest action list (turns/moves) to a state where goal_fn(pos, d) holds; closed
        doors on the way are opened (a TOGGLE is inserted). None if unreachable."""
        h, w = self.g.shape
        start = (self.pos, self.d)
        prev = {start: None}
        q = deque([start])
        while q:
            s = q.popleft()
            pos, d = s
            if goal_fn(pos, d):
                path = []
                while prev[s] is not None:
                    s, a = prev[s]
                    path.append(a)
                return path[::-1]
            fr = (pos[0] + DV[d][0], pos[1] + DV[d][1])
            nxt = [((pos, (d + 3) % 4), TURN_LEFT), ((pos, (d + 1) % 4), TURN_RIGHT)]
            if 0 <= fr[0] < h and 0 <= fr[1] < w and self.walkable(self.g[fr], allow_closed):
                nxt.append(((fr, d), MOVE_FORWARD))
            for ns, a in nxt:
                if ns not in prev:
                    prev[ns] = (s, a)
                    q.append(ns)
        return None

    def go(self, goal_fn) -> bool:
        path = self.bfs(goal_fn)
        if path is None:
            return False
        for a in path:
            if a == MOVE_FORWARD and t_of(self.g[self.front()]) == DOOR and st_of(self.g[self.front()]) == CLOSED:
                self.act(TOGGLE)
            self.act(a)
        return True

    def face(self, cell) -> bool:
        cell = tuple(int(x) for x in cell)
        return self.go(lambda p, d: (p[0] + DV[d][0], p[1] + DV[d][1]) == cell)

    def stand(self, cell) -> bool:
        cell = tuple(int(x) for x in cell)
        return self.go(lambda p, d: p == cell)

    def reachable(self):
        """Cells the agent can stand on now (closed doors count as passable)."""
        h, w = self.g.shape
        seen = {self.pos}
        q = deque([self.pos])
        while q:
            r, c = q.popleft()
            for dr, dc in DV:
                n = (r + dr, c + dc)
                if 0 <= n[0] < h and 0 <= n[1] < w and n not in seen and self.walkable(self.g[n]):
                    seen.add(n)
                    q.append(n)
        return seen

    def drop_somewhere(self, avoid=()) -> bool:
        """Put the carried item on a reachable empty floor cell that cuts nothing off (the rest
        of the reachable area stays reachable), preferring cells away from doors and objects."""
        if not self.carry:
            return True
        reach = self.reachable()
        h, w = self.g.shape
        tiers: list[list] = [[], [], []]
        for cell in reach:
            if self.g[cell] != EMPTY or cell == self.pos or cell in avoid:
                continue
            nb = [int(self.g[cell[0] + dr, cell[1] + dc]) for dr, dc in DV
                  if 0 <= cell[0] + dr < h and 0 <= cell[1] + dc < w]
            free = sum(x == EMPTY for x in nb)
            special = any(t_of(x) in (GOAL, KEY, BALL, BOX) or (t_of(x) == DOOR and st_of(x) == LOCKED) for x in nb)
            near_door = any(t_of(x) == DOOR for x in nb)
            tier = 0 if not (special or near_door) else (1 if not special else 2)
            tiers[tier].append((-free, cell))
        for tier in tiers:
            for _, cell in sorted(tier):
                self.g[cell] = self.carry  # would dropping here cut anything off?
                cut = len(self.reachable()) != len(reach) - 1
                self.g[cell] = EMPTY
                if cut:
                    continue
                saved = (self.g.copy(), self.pos, self.d, self.carry, len(self.out))
                if self.face(cell):
                    self.act(DROP)
                    if self.carry == 0:
                        return True
                self.g, self.pos, self.d, self.carry = saved[:4]
                del self.out[saved[4]:]
        return False

    def fetch(self, cell) -> bool:
        """Pick up the object at cell (dropping what is carried first)."""
        if self.carry and not self.drop_somewhere(avoid={tuple(cell)}):
            return False
        if not self.face(cell):
            return False
        self.act(PICKUP)
        return self.carry != 0

    def find(self, pred):
        return [tuple(int(x) for x in p) for p in zip(*np.nonzero(np.vectorize(pred)(self.g)))]

    # -- unlocking what stands in the way --
    def clear_one_obstacle(self) -> bool:
        """Make one more door usable: move a ball/box/key that blocks the only approach to a
        door (keeping it if it is that door's key), or open a locked door next to the reachable
        area (fetching its key, from a box if need be). False if nothing helps."""
        reach = self.reachable()
        h, w = self.g.shape
        doors = self.find(lambda c: t_of(c) == DOOR and (c & 127) != 0)
        focus = getattr(self, "focus", None)
        if self.rng is not None:  # a restart: try the doors in another order
            self.rng.shuffle(doors)
        elif focus is not None:  # work on the doors nearest the objective first
            doors.sort(key=lambda d: abs(d[0] - focus[0]) + abs(d[1] - focus[1]))
        else:
            doors.sort(key=lambda d: st_of(self.g[d]) == LOCKED)  # unblock plain doors first
        for door in doors:
            locked = st_of(self.g[door]) == LOCKED
            color = col_of(self.g[door])
            approach = [(door[0] + dr, door[1] + dc) for dr, dc in DV]
            approach = [a for a in approach if 0 <= a[0] < h and 0 <= a[1] < w]
            if not locked and door in reach:
                # reachable, but an object just behind it may seal off the room beyond
                # (Playground): stand in the doorway, carry the object off, drop it
                for a in approach:
                    behind = [(a[0] + dr, a[1] + dc) for dr, dc in DV]
                    if (t_of(self.g[a]) in (BALL, BOX, KEY) and a not in reach
                            and any(0 <= b[0] < h and 0 <= b[1] < w and b not in reach and b != door
                                    and self.walkable(self.g[b]) for b in behind)
                            and self.fetch(a) and self.drop_somewhere(avoid=set(approach) | {door})):
                        return True
                continue
            if not any(a in reach for a in approach):
                for a in approach:
                    if t_of(self.g[a]) in (BALL, BOX, KEY) and any((a[0] + dr, a[1] + dc) in reach for dr, dc in DV):
                        is_key = (int(self.g[a]) & 127) == (KEY | (color << 4))
                        if not self.fetch(a):
                            continue
                        if is_key and locked and self.face(door):
                            self.act(TOGGLE)
                            return st_of(self.g[door]) == OPEN
                        if self.drop_somewhere(avoid=set(approach) | {door}):
                            return True
                # the door's own key may be what blocks the way to it: take it along
                keycell = self._key_for(color, reach) if locked else None
                if keycell is not None and self._take_key(keycell):
                    return True
                continue
            if not locked:
                continue
            keycell = self._key_for(color, reach)
            if keycell is None and not (t_of(self.carry) == KEY and col_of(self.carry) == color):
                continue
            if keycell is not None and not self._take_key(keycell):
                continue
            if not self.face(door):
                continue
            self.act(TOGGLE)
            if st_of(self.g[door]) == OPEN:
                return True
        return False

    def _key_for(self, color, reach):
        want = KEY | (color << 4)
        for cell in self.find(lambda c: (int(c) & 127) == want or (t_of(c) == BOX and ((int(c) >> 9) & 127) == want)):
            if any((cell[0] + dr, cell[1] + dc) in reach for dr, dc in DV):
                return cell
        return None

    def _take_key(self, cell) -> bool:
        if t_of(self.g[cell]) == BOX:
            if self.carry and not self.drop_somewhere(avoid={cell}):
                return False
            if not self.face(cell):
                return False
            self.act(TOGGLE)  # the box turns into the key
        return self.fetch(cell)

    def achieve(self, attempt, max_clears=24) -> bool:
        """Run attempt() (a function that returns success); on failure clear one obstacle and retry."""
        for _ in range(max_clears + 1):
            saved = (self.g.copy(), self.pos, self.d, self.carry, len(self.out))
            if attempt():
                return True
            self.g, self.pos, self.d, self.carry = saved[:4]
            del self.out[saved[4]:]
            if not self.clear_one_obstacle():
                return False
        return False


def plan(cfg, state, restarts: int = 16) -> list[int] | None:
    """Action list solving the level in `state` (a host copy of a reset MiniGridState).

    The subgoal chain is greedy, so the order in which blocked doors are cleared can dead-end
    (e.g. a key dropped where a moved ball later seals it in). The first attempt uses the fixed
    order (nearest the objective first); if it fails, up to `restarts` more attempts shuffle the
    door order with seeds 1, 2, ... (deterministic), and the first plan found is returned."""
    for attempt in range(restarts + 1):
        out = _plan_once(cfg, state, None if attempt == 0 else np.random.default_rng(attempt))
        if out is not None:
            return out
    return None


def _plan_once(cfg, state, rng) -> list[int] | None:
    p = Planner(np.asarray(state.grid), np.asarray(state.pos), int(state.dir), rng=rng)
    target = tuple(int(x) for x in np.asarray(state.target))
    aux = tuple(int(x) for x in np.asarray(state.aux))
    item = int(state.target_item)

    if cfg.memory:
        ok = p.stand(target)
    elif cfg.goto:
        def near_ok(pos, d):
            dr, dc = abs(pos[0] - target[0]), abs(pos[1] - target[1])
            return max(dr, dc) <= 1 if cfg.goto == 1 else dr + dc == 1
        ok = p.go(near_ok)
        if ok:
            p.act(DONE)
    elif cfg.redblue:
        ok = p.face(target)
        if ok:
            p.act(TOGGLE)
            ok = p.face(aux)
            if ok:
                p.act(TOGGLE)
    elif cfg.unlock:
        def open_door():
            doors = p.find(lambda c: t_of(c) == DOOR and st_of(c) == LOCKED)
            return not doors
        for _ in range(4):
            if open_door() or not p.clear_one_obstacle():
                break
        ok = open_door()
    elif cfg.putnear:
        objs = p.find(lambda c: (int(c) & 127) == item)
        ok = bool(objs) and p.fetch(objs[0])
        if ok:
            h, w = p.g.shape
            spots = {(target[0] + dr, target[1] + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)}
            spots = {s for s in spots if 0 <= s[0] < h and 0 <= s[1] < w and p.g[s] == EMPTY}
            ok = p.go(lambda pos, d: (pos[0] + DV[d][0], pos[1] + DV[d][1]) in spots)
            if ok:
                p.act(DROP)
    elif cfg.pickup_target:
        objs = p.find(lambda c: (int(c) & 127) == item)
        p.focus = objs[0] if objs else None

        def get_target():
            cells = [c for c in p.find(lambda c: (int(c) & 127) == item)]
            reach = p.reachable()
            cells.sort(key=lambda c: min(abs(c[0] - r[0]) + abs(c[1] - r[1]) for r in reach))
            for c in cells:
                if any((c[0] + dr, c[1] + dc) in reach for dr, dc in DV):
                    return p.fetch(c) and (p.carry & 127) == item
            return False
        ok = p.achieve(get_target)
    else:  # goal square
        goals = p.find(lambda c: t_of(c) == GOAL)
        p.focus = goals[0] if goals else None
        ok = bool(goals) and p.achieve(lambda: p.stand(goals[0]))
    return p.out if ok else None


def obstacle_action(grid, pos, d) -> int:
    """Greedy re-planning step for dynamic obstacles: a shortest path to the goal treating the
    obstacles' cells and the cells they may move to next as walls; falls back to plain BFS."""
    g = np.array(grid, np.int64)
    h, w = g.shape
    obst = list(zip(*np.nonzero((g & 15) == OBSTACLE)))
    for avoid_next in (True, False):
        g2 = g.copy()
        if avoid_next:
            for r, c in obst:
                for dr in (-1, 0, 1):
                    for dc in (-1, 0, 1):
                        rr, cc = r + dr, c + dc
                        if 0 <= rr < h and 0 <= cc < w and g2[rr, cc] == EMPTY and (rr, cc) != tuple(pos):
                            g2[rr, cc] = WALL
        p = Planner(g2, pos, d)
        goals = p.find(lambda c: t_of(c) == GOAL)
        path = p.bfs(lambda q, dd: q == goals[0]) if goals else None
        if path:
            return path[0]
    return TURN_LEFT  # nothing safe: turning never collides


# --- certification: plan every seed, replay the plans through the JAX engine --------------------
def certify(name: str, seeds, partial: bool = False):
    """Plan `seeds` of task `name` on the host and replay the plans (vmapped) through the JAX env.

    Returns dict(solved: bool[N] (replay earned reward > 0), planned: bool[N], lengths: int[N]
    (plan length, -1 where no plan), returns: float[N]). Dynamic-obstacle tasks are played
    closed-loop with `obstacle_action` instead (not deterministic)."""
    import jax
    import jax.numpy as jnp

    import glyphjax
    from glyphjax.suites.minigrid.tasks import make_task

    env = make_task(name, partial=partial)
    seeds = np.asarray(seeds, np.uint32)
    n = len(seeds)
    reset = jax.jit(jax.vmap(lambda s: env.reset(glyphjax.reset_key(s))))
    step = jax.jit(jax.vmap(lambda s, st, a: env.step(glyphjax.step_key(s, st.t), st, a)))
    states = reset(jnp.asarray(seeds))
    host = jax.device_get(states)
    T = env.card.max_steps
    if env.cfg.n_obstacles:
        ret = np.zeros(n, np.float32)
        lengths = np.full(n, -1)
        for t in range(T):
            h = jax.device_get(states)
            if h.done.all():
                break
            acts = np.array([obstacle_action(h.grid[i], h.pos[i], h.dir[i]) if not h.done[i] else -1
                             for i in range(n)], np.int32)
            states, tr = step(jnp.asarray(seeds), states, jnp.asarray(acts))
            r = np.asarray(tr.reward)
            ret += r
            lengths = np.where((r > 0) & (lengths < 0), t + 1, lengths)
        return dict(solved=ret > 0, planned=np.ones(n, bool), lengths=lengths, returns=ret)
    plans = []
    for i in range(n):
        one = jax.tree.map(lambda x: x[i], host)
        plans.append(plan(env.cfg, one))
    planned = np.array([p is not None for p in plans])
    lengths = np.array([len(p) if p is not None else -1 for p in plans])
    L = max(1, min(T, int(lengths.max(initial=1))))
    acts = np.full((n, L), -1, np.int32)
    for i, p in enumerate(plans):
        if p is not None:
            acts[i, : min(len(p), L)] = p[:L]
    ret = np.zeros(n, np.float32)
    for t in range(L):
        states, tr = step(jnp.asarray(seeds), states, jnp.asarray(acts[:, t]))
        ret += np.asarray(tr.reward)
    return dict(solved=ret > 0, planned=planned, lengths=lengths, returns=ret)


def main(argv=None):
    """`python -m glyphjax.suites.minigrid._solver --seeds 1000 [names...]`: certification table."""
    import argparse
    import time

    from glyphjax.suites.minigrid.tasks import TASKS

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--seeds", type=int, default=1000)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args(argv)
    names = args.names or list(TASKS)
    print("| task | seeds | planned | solved (JAX replay) | plan length min / median / mean / max | s |")
    print("|---|---:|---:|---:|---|---:|")
    for name in names:
        t0 = time.time()
        r = certify(name, range(args.seeds))
        ok = r["lengths"][r["lengths"] >= 0]
        stats = (f"{ok.min()} / {int(np.median(ok))} / {ok.mean():.1f} / {ok.max()}" if ok.size else "-")
        print(f"| {name} | {args.seeds} | {r['planned'].sum()} | {r['solved'].sum()} | {stats} | "
              f"{time.time() - t0:.0f} |", flush=True)


if __name__ == "__main__":
    main()
