"""Golden cases where MiniGrid once departed from Farama MiniGrid 3.2.0 (issue 22): each pins
Farama's behaviour on the issue's example (seed, actions, expected outcome)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.render.text import hud_strings
from glyphjax.suites.minigrid import make_task
from glyphjax.suites.minigrid.engine import (BALL, BOX, DONE, KEY, MOVE_FORWARD, PICKUP, TURN_LEFT, cell_color,
                                             cell_type, pack)

# colour indices of the engine, written out here (not imported) on purpose
GREEN_, BLUE_, GREY_ = 1, 2, 5


def _reset(name: str, seed: int):
    env = make_task(name)
    return env, jax.jit(env.reset)(glyphjax.reset_key(seed))


def _step(env, s, action: int, seed: int):
    return jax.jit(env.step)(glyphjax.step_key(seed, int(s.t)), s, jnp.int32(action))


def test_gotoobject__done_diagonal_to_the_target_fails_orthogonal_pays():
    """Farama GoToObject (since its PR #333) pays DONE only orthogonally next to the target."""
    env, s = _reset("gotoobject-6x6-n2", 1)
    assert env.card.hud_enums["mission"][int(s.mission)] == "go to the green key"
    assert int(s.grid[2, 1]) == pack(KEY, GREEN_) and s.pos.tolist() == [3, 2]  # diagonal contact
    _, tr = _step(env, s, DONE, 1)
    assert bool(tr.terminated) and float(tr.reward) == 0.0
    _, tr = _step(env, s.replace(pos=jnp.array([2, 2], jnp.int32)), DONE, 1)  # right of the key
    assert bool(tr.terminated) and np.isclose(float(tr.reward), 1 - 0.9 / 500)


def test_memory__pickup_acts_as_toggle_and_nothing_is_carried():
    """Farama Memory turns PICKUP into TOGGLE: the cue stays where it is and the HUD never shows it."""
    env, s = _reset("memory-s7", 0)
    assert s.pos.tolist() == [3, 1] and int(s.grid[2, 1]) == pack(KEY, GREEN_)
    s1, _ = _step(env, s, TURN_LEFT, 0)
    s2, tr = _step(env, s1, PICKUP, 0)
    assert int(s2.carry) == 0 and not bool(tr.terminated) and float(tr.reward) == 0.0
    np.testing.assert_array_equal(np.asarray(s2.grid), np.asarray(s.grid))
    hud = hud_strings(env.card, jax.device_get(env.render(s2)).hud[None])[0]
    assert "Carrying: nothing" in hud, hud


def test_obstructedmaze_2q__agent_starts_in_the_right_side_room():
    """Farama's registered 2Q (v0 and v1) has agent_room (2, 1): column 2, middle row of rooms."""
    env = make_task("obstructedmaze-2q")
    pos = jax.jit(jax.vmap(lambda k: env.reset(k).pos))(jax.vmap(glyphjax.reset_key)(jnp.arange(64)))
    rows, cols = np.asarray(pos).T
    assert ((rows > 5) & (rows < 10)).all() and ((cols > 10) & (cols < 15)).all(), np.asarray(pos)


def test_obstructedmaze__blue_target_green_blockers_grey_boxes():
    """Farama's colours are COLOR_NAMES[0..2] of its sorted list: blue target, green balls, grey boxes."""
    env, s = _reset("obstructedmaze-1dlhb", 0)
    assert env.card.hud_enums["mission"][int(s.mission)] == "pick up the blue ball"
    g = np.asarray(s.grid)
    colours = {(int(t), int(c)) for t, c in zip(np.asarray(cell_type(g)).ravel(), np.asarray(cell_color(g)).ravel())
               if t in (BALL, BOX)}
    assert colours == {(BALL, BLUE_), (BALL, GREEN_), (BOX, GREY_)}, colours


def test_last_turn_success__is_terminated_not_truncated():
    """docs/core.md: success on the last allowed turn reports (terminated, not truncated);
    Farama reports both there. Empty-5x5: the goal is one step east of (3, 2)."""
    env, s = _reset("empty-5x5", 0)
    T = env.card.max_steps
    s = s.replace(pos=jnp.array([3, 2], jnp.int32), dir=jnp.int32(0), t=jnp.int32(T - 1))
    _, tr = _step(env, s, MOVE_FORWARD, 0)
    assert bool(tr.terminated) and not bool(tr.truncated) and np.isclose(float(tr.reward), 0.1)
    _, tr = _step(env, s, TURN_LEFT, 0)  # the same last turn without success: truncated only
    assert not bool(tr.terminated) and bool(tr.truncated)
