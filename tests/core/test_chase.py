"""core/chase: Pac-Man's corridor rule on hand-drawn grids (expected moves worked out by hand)."""

import jax.numpy as jnp
import numpy as np

from glyphjax.core import entities
from glyphjax.core.chase import chase_step, line_field


def _grid(rows):
    return jnp.asarray(np.array([[ch == "." for ch in r] for r in rows]))


CROSS = _grid(["#.#",
               "...",
               "#.#"])


def _one(pos, vel=(0, 0)):
    return entities.empty(1).replace(pos=jnp.array([pos], jnp.int32), vel=jnp.array([vel], jnp.int32),
                                     alive=jnp.ones((1,), bool))


def _moved(pool, passable, target, **kw):
    out = chase_step(pool, passable, line_field(jnp.array(target), *passable.shape), **kw)
    return tuple(int(x) for x in out.pos[0]), tuple(int(x) for x in out.vel[0])


def test_line_field__is_the_squared_straight_line_distance():
    f = np.asarray(line_field(jnp.array([1, 2]), 3, 4))
    assert f[1, 2] == 0 and f[0, 0] == 1 + 4 and f[2, 3] == 1 + 1


def test_chase_step__takes_the_open_cell_nearest_the_target_and_never_reverses():
    grid = _grid(["#.###",
                  ".....",
                  "##.##"])
    # at (1,2) heading right; target (2,4): RIGHT (1,3) is 1+1=2 away, DOWN (2,2) 0+4=4, UP closed,
    # LEFT (1,1) 1+9=10 but it is the way back anyway
    assert _moved(_one((1, 2), (0, 1)), grid, (2, 4)) == ((1, 3), (0, 1))
    # target (2,0), same heading: DOWN (2,2) = 4 beats RIGHT (1,3) = 1+9 = 10; LEFT (1,1) = 1+1 = 2
    # would be nearer still, but turning back is not allowed
    assert _moved(_one((1, 2), (0, 1)), grid, (2, 0)) == ((2, 2), (1, 0))
    # fleeing from (2,0): the farthest allowed cell, RIGHT (1,3)
    assert _moved(_one((1, 2), (0, 1)), grid, (2, 0), flee=True) == ((1, 3), (0, 1))


def test_chase_step__turns_back_in_a_dead_end_and_breaks_ties_up_down_left_right():
    # heading left at the corridor's closed end (1,0): the only open cell is behind it
    grid = _grid(["#####", ".....", "#####"])
    assert _moved(_one((1, 0), (0, -1)), grid, (1, 0)) == ((1, 1), (0, 1))
    # standing still at the centre of a cross, target (0,2): UP (0,1) and RIGHT (1,2) are both
    # 1+1 = 2 away; UP comes first in the grid's direction order
    assert _moved(_one((1, 1)), CROSS, (0, 2)) == ((0, 1), (-1, 0))


def test_chase_step__held_and_dead_entities_stay_and_wander_picks_by_the_uniform():
    pool = _one((1, 1))
    assert _moved(pool, CROSS, (0, 2), moves=False) == ((1, 1), (0, 0))
    assert _moved(pool.replace(alive=jnp.zeros((1,), bool)), CROSS, (0, 2)) == ((1, 1), (0, 0))
    # a wander (u0 < 0.5) with u1 = 0.99 takes the last of the 4 allowed directions: RIGHT;
    # u1 = 0.3 the second (floor(0.3 * 4) = 1): DOWN
    assert _moved(pool, CROSS, (0, 2), u=jnp.array([[0.1, 0.99]]), wander=0.5) == ((1, 2), (0, 1))
    assert _moved(pool, CROSS, (0, 2), u=jnp.array([[0.1, 0.3]]), wander=0.5) == ((2, 1), (1, 0))
    assert _moved(pool, CROSS, (0, 2), u=jnp.array([[0.9, 0.3]]), wander=0.5) == ((0, 1), (-1, 0))


def test_chase_step__per_entity_fields_and_torus_wrap():
    pool = entities.spawn_many(entities.empty(2), jnp.array([[1, 1], [1, 1]]), jnp.zeros((2, 2)), jnp.zeros(2),
                               jnp.ones(2, bool))
    fields = jnp.stack([line_field(jnp.array([0, 1]), 3, 3), line_field(jnp.array([2, 1]), 3, 3)])
    out = chase_step(pool, CROSS, fields)
    assert out.pos.tolist() == [[0, 1], [2, 1]]  # each heads for its own target
    row = _grid(["..."])
    # from (0, 2) heading right: off the edge is closed without wrap (it turns back), open with it
    assert _moved(_one((0, 2), (0, 1)), row, (0, 0)) == ((0, 1), (0, -1))
    out = chase_step(_one((0, 2), (0, 1)), row, line_field(jnp.array([0, 0]), 1, 3), wrap=True)
    assert out.pos.tolist() == [[0, 0]] and out.vel.tolist() == [[0, 1]]
