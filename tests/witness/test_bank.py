"""The shipped level bank and the registered games: splits, curriculum audit, stored solutions
replayed through the JAX engine, a from-scratch re-check of the filters on a sample of levels,
and the split guard of training configs."""

from __future__ import annotations

import collections
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.rollout import rollout, stack_params
from glyphjax.witness import forge
from glyphjax.witness.bank import curriculum_levels, load_bank, origins, unbuilt_games
from glyphjax.witness.extend import probe_sigma
from glyphjax.witness.games import GAMES, check_training_ids, curriculum
from glyphjax.witness.reference import violations

IDS = [g.task_id for g in GAMES]
BUILT = [g for g in GAMES if g.name in load_bank()]


def test_splits__22_train_8_val_17_test_declared_and_registered_as_witness_split_game():
    unbuilt = set(unbuilt_games())
    assert glyphjax.task_ids("witness/*") == sorted(g.task_id for g in GAMES if g.name not in unbuilt)
    assert set(load_bank()) == {g.name for g in GAMES} - unbuilt
    sizes = collections.Counter(t.split("/")[1] for t in IDS)
    assert sizes == {"train": 22, "val": 8, "test": 17}
    train_prims = {p for g in GAMES if g.split == "train" for p in g.primitives}
    for g in GAMES:
        if g.split == "test":  # test rules are never used in training
            assert set(g.primitives) - train_prims, g.task_id
    subsets = collections.Counter(g.subset for g in GAMES if g.split == "val")
    assert subsets == {"composition": 4, "novel": 4}
    for g in GAMES:
        if g.subset == "composition":
            assert set(g.primitives) <= train_prims
            assert all(set(g.primitives) != set(t.primitives) for t in GAMES if t.split == "train")
        if g.subset == "novel":
            assert set(g.primitives) - train_prims


def test_bank__every_game_follows_its_curriculum_and_introduces_before_it_requires():
    bank = load_bank()
    for g in BUILT:
        levels, slots = bank[g.name], curriculum(g, curriculum_levels())
        assert levels, f"{g.task_id} has no levels"
        k, introduced = 0, set()  # the levels are the curriculum's slots in order (a slot may be unfilled)
        for i, lv in enumerate(levels):
            while k < len(slots) and set(slots[k].rules) != set(lv.rules):
                if slots[k].phase == "introduce":
                    introduced |= set(slots[k].rules)  # an unfilled introduce slot still orders the rules
                k += 1
            assert k < len(slots), f"{g.task_id} level {i + 1} ({lv.rules}) matches no remaining slot"
            if slots[k].phase == "introduce":
                introduced |= set(lv.rules)
            assert set(lv.rules) <= introduced, f"{g.task_id} level {i + 1} requires an unintroduced rule"
            k += 1
        if len(levels) == len(slots):  # a game with unfilled slots (see the forge log) may end early
            assert set(levels[-1].rules) == set(g.primitives), f"{g.task_id}: the last level is not a full reinforce"


def test_bank__stored_solutions_replay_to_accepted_confirms_in_exactly_the_optimal_count():
    envs = [glyphjax.make(g.task_id) for g in BUILT]
    params = stack_params(envs)
    res = rollout(envs[0], envs[0].scripted_policy, jnp.zeros(len(envs), jnp.uint32), params,
                  batched_params=True, keep_state=True)
    state = jax.device_get(res.final_state)
    for i, env in enumerate(envs):
        n = int(env.default_params().n_levels)
        ref = np.asarray(env.default_params().levels.ref)[:n]
        assert state.solved[i, :n].all(), f"{env.card.id}: solved {state.solved[i, :n]}"
        np.testing.assert_array_equal(state.actions_at_solve[i, :n], ref, err_msg=env.card.id)
        assert res.returns[i] == pytest.approx(1.0, abs=1e-5), env.card.id
    for name, levels in load_bank().items():  # the reference twin accepts every stored path
        for k, lv in enumerate(levels):
            path = [lv.start]
            for d in lv.solution:
                dr, dc = ((-1, 0), (1, 0), (0, -1), (0, 1))[d]
                path.append((path[-1][0] + dr, path[-1][1] + dc))
            assert violations(lv, path) == set() and lv.at(*path[-1]) == "E", f"{name} level {k + 1}"


def _sample(n: int):
    levels = [(name, k, lv) for name, lvs in load_bank().items() for k, lv in enumerate(lvs)]
    return [levels[i] for i in np.random.default_rng(7).choice(len(levels), size=n, replace=False)]


def test_bank__sampled_levels_pass_every_filter_from_scratch():
    all_hashes = collections.Counter(lv.canonical_hash() for lvs in load_bank().values() for lv in lvs)
    assert max(all_hashes.values()) == 1, "two shipped levels share a canonical hash"
    sample = _sample(10)
    for name, k, lv in sample:
        failed, sol = forge.first_failed_filter(dataclasses.replace(lv, solution=()), set())
        assert failed is None, f"{name} level {k + 1} fails the {failed} filter"
        assert len(sol) == len(lv.solution), f"{name} level {k + 1}: optimum {len(sol)} vs stored {len(lv.solution)}"
    sigmas = [probe_sigma(origins()[name][k]) for name, k, _ in sample[:4]]
    wins = forge.random_win_counts([lv for _, _, lv in sample[:4]], forge.RANDOM_EPISODES, sigmas)
    assert max(wins) <= forge.RANDOM_MAX_WINS, f"random play wins {wins} of {forge.RANDOM_EPISODES}"


def test_filters__each_rejects_a_crafted_failing_level():
    from glyphjax.witness.layout import Level
    assert not forge.structure_ok(Level(board=("S#", "#E"), rules=("walls",)))  # exit unreachable
    assert forge.first_failed_filter(Level(board=("SE.", "..."), rules=("hexagon",)), set())[0] == "depth"
    unneeded = Level(board=("S..H", "....", "...E", "...."), rules=("hexagon", "triangles"))
    assert forge.first_failed_filter(unneeded, set())[0] == "necessity"  # no triangle on the board
    greedy = Level(board=("S...", "...H", "....", "...E"), rules=("hexagon",))  # on the greedy way
    assert forge.first_failed_filter(greedy, set())[0] == "greedy"
    name, k, lv = _sample(1)[0]
    clean = dataclasses.replace(lv, solution=())
    assert forge.first_failed_filter(clean, {lv.canonical_hash()})[0] == "dedupe"


def test_split_guard__training_configs_refuse_val_and_test_games():
    check_training_ids(["witness/train/hexagon-a", "classics/snake-easy"])
    with pytest.raises(ValueError, match="test split"):
        check_training_ids(["witness/train/hexagon-a", "witness/test/polyomino"])
    with pytest.raises(ValueError, match="val split"):
        check_training_ids(["witness/val/stars"])
    from rl.trainer import ConfigError, validate
    from omegaconf import OmegaConf
    cfg = OmegaConf.create({"rl": {"loss": "dppo", "group_size": 8, "groups_per_update": 1, "rollout_budget": 8, "lr": 1e-4},
                            "tasks": {"ids": ["witness/test/*"]}})
    with pytest.raises(ConfigError, match="test split"):
        validate(cfg)
