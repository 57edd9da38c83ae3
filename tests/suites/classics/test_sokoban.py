"""Sokoban: push rules, rewards, golden boards, and solver certification on 1,000 seeds."""

import heapq

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.types import init_state_fields
from glyphjax.suites.classics.sokoban import SokobanState

IDS = ["classics/sokoban-easy", "classics/sokoban-medium", "classics/sokoban-hard"]
UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3


def solve_sokoban(walls, targets, boxes, pos, max_nodes=200_000, weight=3):
    """Independent host solver -> (moves 0 UP/1 DOWN/2 LEFT/3 RIGHT, number of pushes) or None.

    Weighted A* over pushes on bitboards (cell i = r * w + c; the outer ring is wall so +-1 shifts
    never wrap into the interior). A state is the box set + the player's reachable region, keyed by
    the region's lowest cell. Heuristic: sum over boxes of the push distance to the nearest target
    (reverse-pull BFS per target, walls only). Pruned: pushes onto dead cells (no push path to any
    target) and pushes completing a 2x2 block of walls/boxes that holds a box off target."""
    walls = np.asarray(walls, bool)
    h, w = walls.shape
    n = h * w
    bit = lambda i: 1 << int(i)  # noqa: E731
    floor = sum(bit(i) for i in range(n) if not walls.flat[i])
    wall_bits = ((1 << n) - 1) & ~floor
    tgt = sum(bit(i) for i in np.flatnonzero(np.asarray(targets)))
    offs = (-w, w, -1, 1)  # UP DOWN LEFT RIGHT

    def sh(x, o):  # bit i of the result = bit i - o of x
        return x << o if o > 0 else x >> -o

    # push distance to the nearest target: multi-source reverse BFS over pulls
    inf = 1 << 30
    dist = [inf] * n
    frontier = [int(i) for i in np.flatnonzero(np.asarray(targets))]
    for i in frontier:
        dist[i] = 0
    while frontier:
        nxt = []
        for y in frontier:
            for o in offs:  # a box at y - o pushed by o (player at y - 2o) lands on y
                x, p = y - o, y - 2 * o
                if 0 <= p < n and not walls.flat[x] and not walls.flat[p] and dist[x] == inf:
                    dist[x] = dist[y] + 1
                    nxt.append(x)
        frontier = nxt
    live = sum(bit(i) for i in range(n) if dist[i] < inf)

    def reach(bx, p):
        free = floor & ~bx
        r = bit(p)
        while True:
            r2 = r | ((r << 1 | r >> 1 | r << w | r >> w) & free)
            if r2 == r:
                return r
            r = r2

    def cells(x):
        while x:
            low = x & -x
            yield low.bit_length() - 1
            x ^= low

    def hval(bx):
        return sum(dist[i] for i in cells(bx))

    def frozen(bx, d):  # some 2x2 block containing d is all wall/box with a box off target
        solid = wall_bits | bx
        for a in (d, d - 1, d - w, d - w - 1):
            blk = bit(a) | bit(a + 1) | bit(a + w) | bit(a + w + 1)
            if solid & blk == blk and (bx & blk) & ~tgt:
                return True
        return False

    b0 = sum(bit(i) for i in np.flatnonzero(np.asarray(boxes)))
    p0 = int(pos[0]) * w + int(pos[1])
    r0 = reach(b0, p0)
    k0 = (b0, (r0 & -r0).bit_length())
    parent = {k0: None}  # key -> (parent key, player cell before the push, box cell, dir)
    heap = [(weight * hval(b0), 0, 0, b0, p0, r0, k0)]
    count = 0
    goal = None
    while heap:
        _, g, _, bx, p, reg, key = heapq.heappop(heap)
        if bx & ~tgt == 0:
            goal = key
            break
        count += 1
        if count > max_nodes:
            return None
        free_live = live & ~bx
        for d, o in enumerate(offs):
            movable = bx & sh(reg, o) & sh(free_live, -o)
            for b in cells(movable):
                dest = b + o
                nb = bx ^ bit(b) ^ bit(dest)
                if frozen(nb, dest):
                    continue
                reg2 = reach(nb, b)
                k = (nb, (reg2 & -reg2).bit_length())
                if k in parent:
                    continue
                parent[k] = (key, p, b, d)
                heapq.heappush(heap, (g + 1 + weight * hval(nb), g + 1, len(parent), nb, b, reg2, k))
    if goal is None:
        return None
    pushes = []
    k = goal
    while parent[k] is not None:
        pk, p, b, d = parent[k]
        pushes.append((p, b, d, pk[0]))
        k = pk
    pushes.reverse()
    # expand pushes into moves: walk (BFS on the grid) to the cell behind the box, then push
    moves = []
    for p, b, d, bx in pushes:
        stand = b - offs[d]
        prev = {p: None}
        q = [p]
        for c in q:
            if c == stand:
                break
            for dd, o in enumerate(offs):
                m = c + o
                if not walls.flat[m] and not (bx >> m) & 1 and m not in prev:
                    prev[m] = (c, dd)
                    q.append(m)
        path = []
        c = stand
        while prev[c] is not None:
            c, dd = prev[c]
            path.append(dd)
        moves.extend(reversed(path))
        moves.append(d)
    return moves, len(pushes)


def hand_state(rows):
    """'#' wall, '.' floor, '$' box, 'o' target, '*' box on target, '@' you, '+' you on target."""
    g = np.array([list(r) for r in rows])
    return SokobanState(**init_state_fields(), walls=jnp.asarray(g == "#"),
                        targets=jnp.asarray(np.isin(g, ["o", "*", "+"])),
                        boxes=jnp.asarray(np.isin(g, ["$", "*"])),
                        pos=jnp.asarray(np.argwhere(np.isin(g, ["@", "+"]))[0], jnp.int32))


@pytest.mark.parametrize("task_id", IDS)
def test_sokoban__every_start_is_solvable_and_unsolved_on_1000_seeds(task_id):
    """The host solver solves all 1,000 starts; each solution, replayed through the JAX env, ends
    the episode solved within max_steps."""
    env = glyphjax.make(task_id)
    seeds = jnp.arange(1000, dtype=jnp.uint32)
    st0 = jax.jit(jax.vmap(env.reset))(jax.vmap(glyphjax.reset_key)(seeds))
    st = jax.device_get(st0)
    solutions, pushes = [], []
    for seed in range(1000):
        walls, targets, boxes, pos = st.walls[seed], st.targets[seed], st.boxes[seed], st.pos[seed]
        assert boxes.sum() == env.num_boxes and targets.sum() == env.num_boxes, f"{task_id} seed {seed}"
        assert not (boxes & walls).any() and not walls[tuple(pos)] and not boxes[tuple(pos)]
        assert (boxes & ~targets).any(), f"{task_id} seed {seed}: starts solved"
        found = solve_sokoban(walls, targets, boxes, pos)
        assert found is not None, f"{task_id} seed {seed}: solver found no solution"
        solutions.append(found[0])
        pushes.append(found[1])
    longest = max(len(m) for m in solutions)
    assert longest <= env.card.max_steps, f"{task_id}: a solution needs {longest} moves > max_steps"
    actions = np.full((1000, longest), -1, np.int32)
    for seed, moves in enumerate(solutions):
        actions[seed, :len(moves)] = moves

    def replay(seed, state, acts):
        def turn(s, ta):
            s, tr = env.step(glyphjax.step_key(seed, ta[0]), s, ta[1])
            return s, tr.terminated
        s, term = jax.lax.scan(turn, state, (jnp.arange(longest), acts))
        return s, term.any()
    final, terminated = jax.device_get(jax.jit(jax.vmap(replay))(seeds, st0, jnp.asarray(actions)))
    for seed in range(1000):
        ok = terminated[seed] and (final.boxes[seed] == final.targets[seed]).all()
        assert ok, f"{task_id} seed {seed}: the solver's {len(solutions[seed])} moves do not solve it in the env"
    assert np.mean(pushes) >= 3, f"{task_id}: mean solution {np.mean(pushes)} pushes"


# 7x7 room: you left of a box with a target right of it; a second box above a second target
TWO_BOX_ROOM = ["#######",
                "#.....#",
                "#.@$o.#",
                "#..$..#",
                "#..o..#",
                "#.....#",
                "#######"]


def test_sokoban__push_rules_and_rewards():
    env = glyphjax.make("classics/sokoban-easy")
    s = hand_state(TWO_BOX_ROOM)
    s1, tr = env.step(glyphjax.step_key(0, 0), s, jnp.int32(RIGHT))  # push onto the target
    assert s1.pos.tolist() == [2, 3] and bool(s1.boxes[2, 4]) and float(tr.reward) == 0.5
    assert int(tr.event) == 1 and not bool(tr.terminated)
    s2, tr = env.step(glyphjax.step_key(0, 1), s1, jnp.int32(RIGHT))  # push it off again
    assert bool(s2.boxes[2, 5]) and float(tr.reward) == -0.5 and int(tr.event) == 2
    s3, tr = env.step(glyphjax.step_key(0, 2), s2, jnp.int32(RIGHT))  # box against the wall: no-op
    assert s3.pos.tolist() == [2, 4] and bool(s3.boxes[2, 5]) and float(tr.reward) == 0.0
    # two boxes in a row cannot be pushed
    s4 = hand_state(["#######", "#.....#", "#.@$$.#", "#.....#", "#.oo..#", "#.....#", "#######"])
    s5, tr = env.step(glyphjax.step_key(0, 3), s4, jnp.int32(RIGHT))
    assert s5.pos.tolist() == [2, 2] and np.array_equal(np.asarray(s5.boxes), np.asarray(s4.boxes))


def test_sokoban__golden_boards_scripted_solution():
    env = glyphjax.make("classics/sokoban-easy")
    s = hand_state(TWO_BOX_ROOM)
    board = lambda st: glyphjax.render_text(env.card, env.render(st)).grid
    assert board(s) == ("███████\n"
                        "█·····█\n"
                        "█·@☐◇·█\n"
                        "█··☐··█\n"
                        "█··◇··█\n"
                        "█·····█\n"
                        "███████")
    total = 0.0
    for t, a in enumerate([RIGHT, DOWN]):
        s, tr = env.step(glyphjax.step_key(0, t), s, jnp.int32(a))
        total += float(tr.reward)
        if t == 0:
            assert board(s) == ("███████\n"
                                "█·····█\n"
                                "█··@▣·█\n"
                                "█··☐··█\n"
                                "█··◇··█\n"
                                "█·····█\n"
                                "███████")
    # RIGHT pushes the first box home and leaves you above the second; DOWN pushes it home
    assert board(s) == ("███████\n"
                        "█·····█\n"
                        "█···▣·█\n"
                        "█··@··█\n"
                        "█··▣··█\n"
                        "█·····█\n"
                        "███████"), board(s)
    assert bool(tr.terminated) and int(tr.event) == 3 and total == pytest.approx(1.0)
