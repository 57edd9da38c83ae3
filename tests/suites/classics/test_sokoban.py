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


def solve_sokoban(walls, targets, boxes, pos, max_nodes=20_000, weight=2):
    """Independent host solver: weighted A* over pushes (states = box set + the player's reachable
    region, keyed by its smallest cell), pruning pushes onto dead squares (cells from which a lone
    box cannot reach any target). Returns the pushes of a solution found, or None."""
    walls = walls.tolist()
    h, w = len(walls), len(walls[0])
    tlist = [tuple(t) for t in np.argwhere(targets)]
    tset = set(tlist)
    def hdist(bx):
        return sum(min(abs(b[0]-t[0])+abs(b[1]-t[1]) for t in tlist) for b in bx)
    # live squares: cells from which a lone box can be pushed to some target (reverse pull BFS)
    live = set(tlist); stack = list(tlist)
    while stack:
        r, c = stack.pop()
        for dr, dc in ((-1,0),(1,0),(0,-1),(0,1)):
            a, b2 = (r+dr, c+dc), (r+2*dr, c+2*dc)
            if 0 <= b2[0] < h and 0 <= b2[1] < w and not walls[a[0]][a[1]] and not walls[b2[0]][b2[1]] and a not in live:
                live.add(a); stack.append(a)
    def dead(b):
        return b not in live
    def reach(bx, p):
        seen = {p}; stack = [p]
        while stack:
            r, c = stack.pop()
            for dr, dc in ((-1,0),(1,0),(0,-1),(0,1)):
                n = (r+dr, c+dc)
                if not walls[n[0]][n[1]] and n not in bx and n not in seen:
                    seen.add(n); stack.append(n)
        return seen
    b0 = frozenset(tuple(b) for b in np.argwhere(boxes))
    p0 = tuple(int(x) for x in pos)
    r0 = reach(b0, p0)
    key0 = (b0, min(r0))
    seen = {key0}
    heap = [(hdist(b0), 0, 0, b0, p0)]
    cnt = 0
    while heap:
        _, g, _, bx, p = heapq.heappop(heap)
        if bx <= tset:
            return g
        cnt += 1
        if cnt > max_nodes:
            return None
        reg = reach(bx, p)
        for b in bx:
            for dr, dc in ((-1,0),(1,0),(0,-1),(0,1)):
                stand = (b[0]-dr, b[1]-dc)
                dest = (b[0]+dr, b[1]+dc)
                if stand in reg and not walls[dest[0]][dest[1]] and dest not in bx and not dead(dest):
                    nb = (bx - {b}) | {dest}
                    reg2 = reach(nb, b)
                    k = (nb, min(reg2))
                    if k not in seen:
                        seen.add(k)
                        heapq.heappush(heap, ((hdist(nb) if weight is None else g + 1 + weight * hdist(nb)), g + 1, len(seen), nb, b))
    return None


def hand_state(rows):
    """'#' wall, '.' floor, '$' box, 'o' target, '*' box on target, '@' you, '+' you on target."""
    g = np.array([list(r) for r in rows])
    return SokobanState(**init_state_fields(), walls=jnp.asarray(g == "#"),
                        targets=jnp.asarray(np.isin(g, ["o", "*", "+"])),
                        boxes=jnp.asarray(np.isin(g, ["$", "*"])),
                        pos=jnp.asarray(np.argwhere(np.isin(g, ["@", "+"]))[0], jnp.int32))


@pytest.mark.parametrize("task_id", IDS)
def test_sokoban__every_start_is_solvable_and_unsolved_on_1000_seeds(task_id):
    env = glyphjax.make(task_id)
    st = jax.device_get(jax.jit(jax.vmap(env.reset))(
        jax.vmap(glyphjax.reset_key)(jnp.arange(1000, dtype=jnp.uint32))))
    pushes = []
    for seed in range(1000):
        walls, targets, boxes, pos = st.walls[seed], st.targets[seed], st.boxes[seed], st.pos[seed]
        assert boxes.sum() == env.num_boxes and targets.sum() == env.num_boxes, f"{task_id} seed {seed}"
        assert not (boxes & walls).any() and not walls[tuple(pos)] and not boxes[tuple(pos)]
        assert (boxes & ~targets).any(), f"{task_id} seed {seed}: starts solved"
        k = solve_sokoban(walls, targets, boxes, pos)
        if k is None:  # weighted A* ran out of nodes: retry with pure greedy best-first
            k = solve_sokoban(walls, targets, boxes, pos, max_nodes=30_000, weight=None)
        assert k is not None, f"{task_id} seed {seed}: solver found no solution"
        pushes.append(k)
    assert np.mean(pushes) >= 3, f"{task_id}: mean solution {np.mean(pushes)} pushes"


def test_sokoban__push_rules_and_rewards():
    env = glyphjax.make("classics/sokoban-easy")
    s = hand_state(["#######",
                    "#.....#",
                    "#.@$o.#",
                    "#..$..#",
                    "#..o..#",
                    "#.....#",
                    "#######"])
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
    s = hand_state(["#######",
                    "#.....#",
                    "#.@$o.#",
                    "#..$..#",
                    "#..o..#",
                    "#.....#",
                    "#######"])
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
