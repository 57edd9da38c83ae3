"""Multitask mixtures (rl/mixture.py): weighted group draws, the quota rule over the registry, and
a toy run whose log shows the draws and held-out seeds disjoint from every training seed."""

from __future__ import annotations

import json

import numpy as np
import pytest

import glyphjax
from rl.mixture import draw_groups, mixture_tasks, task_weights


def test_task_weights__most_specific_glob_wins_and_unmatched_tasks_weigh_one():
    w = task_weights(["classics/snake-easy", "classics/2048", "minigrid/empty-5x5"],
                     {"classics/*": 3.0, "classics/snake-*": 6.0})
    np.testing.assert_allclose(w, [0.6, 0.3, 0.1])
    # a preset's catch-all does not shadow a pattern added after it; equal specificity: first wins
    np.testing.assert_allclose(task_weights(["a/x", "b/x"], {"*": 1.0, "a/*": 3.0}), [0.75, 0.25])
    np.testing.assert_allclose(task_weights(["a/x"], {"a/?": 2.0, "?/x": 5.0, "*": 0.0}), [1.0])
    with pytest.raises(ValueError, match="every task at weight 0"):
        task_weights(["a"], {"*": 0})


def test_draw_groups__each_updates_groups_follow_the_weights():
    tasks = ["a", "b", "c", "d"]
    p = task_weights(tasks, {"a": 1, "b": 2, "c": 5, "d": 0})
    draws = [t for u in range(4000) for t in draw_groups(tasks, p, 8, seed=7, update=u)]
    freq = np.array([draws.count(t) for t in tasks]) / len(draws)
    np.testing.assert_allclose(freq, [1 / 8, 2 / 8, 5 / 8, 0], atol=0.015)
    assert draw_groups(tasks, p, 8, 7, 3) == draw_groups(tasks, p, 8, 7, 3) != draw_groups(tasks, p, 8, 7, 4)


def test_mixture_tasks__quota_of_evenly_spaced_single_seat_ids_per_suite():
    single = sorted(t for t in glyphjax.task_ids(suite="classics", track="standard")
                    if glyphjax.make(t).card.num_players == 1)
    ids, short = mixture_tasks({"classics": 3, "nosuchsuite": 4})
    assert len(ids) == 3 and set(ids) <= set(single) and ids[0] == single[0] and len(set(ids)) == 3
    assert short == {"nosuchsuite": 4}
    assert mixture_tasks({"dummy": 50})[0] == sorted(glyphjax.task_ids(suite="dummy"))


def test_multitask_toy_run__log_shows_the_draws_and_heldout_seeds_never_overlap_training(tmp_path):
    from eval.mixture_curves import curves, draw, read_metrics
    from rl.train_cli import compose
    from rl.trainer import train
    cfg = compose(["+experiment=multitask100_toy", "rl.rollout_budget=8", "rl.groups_per_update=2", "rl.max_turns=1",
                   "eval.every=1", "seed=5"], out_dir=tmp_path)
    cfg.tasks.mixture = {"dummy": 2}  # the arrow tasks: the cheapest mixture of two
    cfg.rl.task_weights = {"dummy/arrow-4": 3.0}
    train(cfg)
    records = read_metrics(tmp_path)
    ids = ["dummy/arrow-1", "dummy/arrow-4"]
    trains = [r for r in records if r["kind"] == "train"]
    evals = [r for r in records if r["kind"] == "eval"]
    assert [r["tasks"] for r in trains] == [draw_groups(ids, task_weights(ids, {"dummy/arrow-4": 3.0}), 2, 5, u)
                                           for u in range(2)]
    train_seeds = {(t, s) for r in trains for t, sd in zip(r["tasks"], r["seeds"]) for s in sd}
    heldout = {(t, s) for r in evals for t in r["per_task"] for s in r["seeds"]}
    assert len(evals) == 3 and heldout and not train_seeds & heldout
    assert not {s for _, s in train_seeds} & {s for _, s in heldout}
    assert all(r["per_suite"].keys() == {"dummy"} for r in evals)
    c = curves(records, window=4)
    assert set(c["train"]) <= set(ids) and c["heldout"]["updates"] == [0, 1, 2]
    assert draw(c, tmp_path / "curves.png").stat().st_size > 0
    json.dumps(c)  # the curves are plain data (written beside the figure by the CLI)


def test_mixture100__selects_the_papers_100_single_seat_tasks_by_suite_quota():
    import collections

    import yaml

    from rl.hydra_cli import CONF_DIR
    quota = yaml.safe_load(open(f"{CONF_DIR}/tasks/mixture100.yaml"))["mixture"]
    assert sum(quota.values()) == 100
    ids, short = mixture_tasks(quota)
    assert short == {}, f"suites short of their quota: {short}"
    assert len(set(ids)) == 100
    assert collections.Counter(t.split("/")[0] for t in ids) == collections.Counter(quota)
    assert all(glyphjax.make(t).card.track == glyphjax.STANDARD for t in ids)
