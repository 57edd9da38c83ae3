"""Warehouse: pick up / put down / deliver rules, the win, a golden board and reachability of
every package and destination on 1,000 seeds (host-side BFS)."""

from collections import deque

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics import warehouse as wh

ENV = glyphjax.make("classics/warehouse")
UP, DOWN, LEFT, RIGHT, PICKUP, DROP = range(6)
KEY = glyphjax.step_key(0, 0)
STEP = jax.jit(ENV.step)
RESET = jax.jit(ENV.reset)
RENDER = jax.jit(ENV.render)


def _state(player, pkg, dest, status=(0, 0, 0), carrying=-1, extra_walls=()):
    s = RESET(glyphjax.reset_key(0))
    w = np.zeros((10, 10), bool)
    w[0, :] = w[-1, :] = w[:, 0] = w[:, -1] = True
    for r, c in extra_walls:
        w[r, c] = True
    return s.replace(walls=jnp.asarray(w), player=jnp.array(player, jnp.int32),
                     pkg=jnp.array(pkg, jnp.int32), dest=jnp.array(dest, jnp.int32),
                     pkg_status=jnp.array(status, jnp.int32), carrying=jnp.int32(carrying))


def _step(s, a):
    return STEP(KEY, s, jnp.int32(a))


PKG = [[2, 2], [2, 5], [6, 6]]
DEST = [[8, 8], [1, 8], [8, 1]]


def test_warehouse__pickup_needs_the_package_cell_and_empty_hands():
    s, _ = _step(_state([2, 3], PKG, DEST), PICKUP)
    assert int(s.carrying) == -1, "no package on (2, 3)"
    s, tr = _step(_state([2, 2], PKG, DEST), PICKUP)
    assert int(s.carrying) == 0 and s.pkg_status.tolist() == [1, 0, 0] and int(tr.event) == wh.EV_PICK
    s2, _ = _step(s.replace(player=jnp.array([2, 5], jnp.int32)), PICKUP)
    assert int(s2.carrying) == 0 and s2.pkg_status.tolist() == [1, 0, 0], "hands are full"


def test_warehouse__drop_delivers_on_the_matching_destination_else_puts_down():
    s = _state([8, 8], PKG, DEST, status=(1, 0, 0), carrying=0)
    s2, tr = _step(s, DROP)
    assert abs(float(tr.reward) - 1 / 3) < 1e-7 and s2.pkg_status.tolist() == [2, 0, 0]
    s3, tr = _step(s.replace(player=jnp.array([1, 8], jnp.int32)), DROP)  # destination of b
    assert float(tr.reward) == 0.0 and s3.pkg_status.tolist() == [0, 0, 0] and s3.pkg[0].tolist() == [1, 8]
    s4, tr = _step(s.replace(player=jnp.array([2, 5], jnp.int32)), DROP)  # package b lies there
    assert int(s4.carrying) == 0 and s4.pkg_status.tolist() == [1, 0, 0]


def test_warehouse__third_delivery_wins():
    s = _state([8, 1], PKG, DEST, status=(2, 2, 1), carrying=2)
    _, tr = _step(s, DROP)
    assert bool(tr.terminated) and int(tr.event) == wh.EV_WIN and abs(float(tr.reward) - 1 / 3) < 1e-7


def test_warehouse__golden_board_after_a_pickup_and_a_move():
    s = _state([2, 2], PKG, DEST, extra_walls=[(4, 3), (4, 4), (4, 5)])
    s, _ = _step(s, PICKUP)
    s, _ = _step(s, DOWN)
    expected = "\n".join([
        "██████████",
        "█·······Ⓑ█",
        "█····ⓑ···█",
        "█·@······█",
        "█··███···█",
        "█········█",
        "█·····ⓒ··█",
        "█········█",
        "█Ⓒ······Ⓐ█",
        "██████████",
    ])
    got = glyphjax.render_text(ENV.card, RENDER(s))
    assert got.grid == expected, f"classics/warehouse step 2:\n{got.grid}"
    assert "Carrying: package a" in got.hud


def test_warehouse__everything_reachable_on_1000_seeds():
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(1000, dtype=jnp.uint32))
    st = jax.device_get(jax.jit(jax.vmap(ENV.reset))(keys))
    for seed in range(1000):
        w = st.walls[seed]
        start = tuple(int(x) for x in st.player[seed])
        seen, todo = {start}, deque([start])
        while todo:
            r, c = todo.popleft()
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                n = (r + dr, c + dc)
                if not w[n] and n not in seen:
                    seen.add(n)
                    todo.append(n)
        cells = [tuple(int(x) for x in p) for p in np.concatenate([st.pkg[seed], st.dest[seed]])]
        assert len(set(cells + [start])) == 7, f"classics/warehouse seed {seed}: overlapping items"
        missing = [c for c in cells if c not in seen]
        assert not missing, f"classics/warehouse seed {seed}: unreachable {missing}"
