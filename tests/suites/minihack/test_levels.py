"""MiniHack levels: structural invariants of every task's resets (one vmapped reset per program
over all its tasks) and a real certification subset (the planner on the 7x7 program)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.rollout import reset_key, stack_params
from glyphjax.suites.minihack import constants as C
from glyphjax.suites.minihack.certify import certify_boxoban, certify_program

SEEDS = 32
PROGRAMS = glyphjax.programs("minihack/*")
SMALL = next(ids for ids in PROGRAMS.values() if "minihack/eat" in ids)  # the 7x7 program


def test_tasks__63_ids_on_six_programs():
    ids = glyphjax.task_ids("minihack/*")
    assert len(ids) == 63
    assert len(PROGRAMS) == 6
    assert sorted(PROGRAMS["minihack/memento-f2"]) == ["minihack/memento-f2", "minihack/memento-f4",
                                                       "minihack/memento-hard", "minihack/memento-short"]
    assert set(SMALL) >= {"minihack/room-5x5", "minihack/room-ultimate-5x5",
                                              "minihack/keyroom-s5", "minihack/wield-distract"}


@pytest.mark.parametrize("first", sorted(PROGRAMS))
def test_levels__one_stairs_you_on_open_floor_monsters_on_free_cells(first):
    ids = PROGRAMS[first]
    envs = [glyphjax.make(i) for i in ids]
    params = jax.tree.map(lambda x: jnp.repeat(x, SEEDS, axis=0), stack_params(envs))
    seeds = jnp.tile(jnp.arange(SEEDS, dtype=jnp.uint32), len(ids))
    s = jax.jit(jax.vmap(lambda k, p: envs[0].reset(reset_key(k), p)))(seeds, params)
    terrain, pos = np.asarray(s.terrain), np.asarray(s.pos)
    b = np.arange(len(seeds))
    for k, task_id in enumerate(ids):
        sl = slice(k * SEEDS, (k + 1) * SEEDS)
        stairs = 1 if envs[k].layout.stairs_mask.any() else 0  # Boxoban has none
        assert ((terrain[sl] == C.STAIRS).sum(axis=(1, 2)) == stairs).all(), task_id
        under = terrain[b[sl], pos[sl, 0], pos[sl, 1]]
        assert ((under == C.FLOOR) | (under == C.FOUNTAIN)).all(), task_id  # Boxoban: a walk may end on one
        lay = envs[k].layout
        if lay.n_stones:  # rivers: exactly the declared stepping stones cross the river row
            row = terrain[sl, 3, 1:10]
            assert ((row == C.FLOOR).sum(axis=1) == lay.n_stones).all(), task_id
            assert ((row == C.FLOOR) | (row == C.WATER) | (row == C.LAVA)).all(), task_id
    alive = np.asarray(s.mon_hp) > 0
    mp = np.asarray(s.mon_pos)
    under = terrain[b[:, None], mp[..., 0], mp[..., 1]]
    assert (under[alive] == C.FLOOR).all()
    assert not (alive & (mp == pos[:, None, :]).all(-1)).any()


def test_certify__boxoban_levels_are_solved_by_undoing_their_walk():
    for task_id in ("minihack/boxoban-medium", "minihack/boxoban-hard"):
        r = certify_boxoban(task_id, seeds=16)
        assert r["wins"] == 16, f"{task_id}: certificate failed on seeds {r['failed_seeds']}"


def test_certify__planner_solves_every_non_combat_level_of_the_small_program():
    results = certify_program(SMALL, seeds=12)
    for task_id, r in results.items():
        if not r["combat"]:
            assert r["wins"] == r["seeds"], f"{task_id}: planner failed on seeds {r['failed_seeds']}"
        else:
            assert r["wins"] >= r["seeds"] // 2, f"{task_id}: scripted fighter won {r['wins']}/{r['seeds']}"


def _next_to_stairs(s):
    """The state with you on a floor cell west of the stairs (rooms are 5 wide: one exists)."""
    r, c = np.argwhere(np.asarray(s.terrain) == C.STAIRS)[0]
    west = int(s.terrain[r, c - 1]) == C.FLOOR
    return s.replace(pos=jnp.array([r, c - 1 if west else c + 1], jnp.int32)), (C.MOVE_E if west else C.MOVE_W)


def test_memento__intermediate_stairs_lead_to_a_fresh_level_and_only_the_last_pays():
    from glyphjax.render.text import render_text
    f2, short = glyphjax.make("minihack/memento-f2"), glyphjax.make("minihack/memento-short")
    step = jax.jit(f2.step)  # one program: memento-short runs on it with its own params
    reset, render = jax.jit(f2.reset), jax.jit(f2.render)
    s = reset(reset_key(3), f2.default_params()).replace(hp=jnp.int32(7))
    s, move = _next_to_stairs(s)
    first_map = np.asarray(s.terrain)
    s, tr = step(glyphjax.step_key(3, 0), s, jnp.int32(move), f2.default_params())
    assert float(tr.reward) == 0.0 and not bool(tr.terminated) and int(s.floor) == 1
    text = render_text(f2.card, render(s, f2.default_params()))
    assert text.message == "You descend the stairs to dungeon level 2."
    assert "Dlvl: 2 / 2" in text.hud and "HP: 7/12" in text.hud  # you keep your HP
    assert 1 <= int(s.pos[1]) <= 5 and int(s.terrain[s.pos[0], s.pos[1]]) == C.FLOOR  # in the first room
    stairs = np.argwhere(np.asarray(s.terrain) == C.STAIRS)
    assert len(stairs) == 1 and 13 <= stairs[0][1] <= 17  # in the third (last) room
    assert not np.array_equal(np.asarray(s.terrain), first_map)  # the stairs moved: a fresh level
    s, move = _next_to_stairs(s)
    s, tr = step(glyphjax.step_key(3, 1), s, jnp.int32(move), f2.default_params())
    assert float(tr.reward) == 1.0 and bool(tr.terminated)
    assert render_text(f2.card, render(s, f2.default_params())).message == "You descend the stairs."
    s, move = _next_to_stairs(reset(reset_key(3), short.default_params()))
    s, tr = step(glyphjax.step_key(3, 0), s, jnp.int32(move), short.default_params())
    assert float(tr.reward) == 1.0 and bool(tr.terminated)  # one floor: its stairs pay at once


def test_levels__mazewalk_45x19_stairs_within_the_step_budget():
    """Seeds 552 and 568 drew mazes whose stairs were more than the 200-step budget away (up to
    206 moves); such a maze is redrawn."""
    from glyphjax.core.grid import bfs_distances
    env = glyphjax.make("minihack/mazewalk-45x19")
    seeds = jnp.array([0, 1, 552, 568], jnp.uint32)
    s = jax.jit(jax.vmap(lambda k: env.reset(reset_key(k))))(seeds)
    for i in range(len(seeds)):
        terrain = s.terrain[i]
        src = jnp.zeros(terrain.shape, bool).at[s.pos[i, 0], s.pos[i, 1]].set(True)
        dist = bfs_distances(jnp.asarray(C.WALKABLE)[terrain], src, None, eight=True)
        d = int(dist[terrain == C.STAIRS].min())
        assert 0 < d <= env.card.max_steps, (int(seeds[i]), d)
