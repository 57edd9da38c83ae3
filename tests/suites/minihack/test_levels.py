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


def test_tasks__59_ids_on_five_programs():
    ids = glyphjax.task_ids("minihack/*")
    assert len(ids) == 59
    assert len(PROGRAMS) == 5
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
