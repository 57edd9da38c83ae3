"""WITNESS RL end to end on a CPU (`+experiment=witness_rl_toy`, the tiny random model): episodes
through the WITNESS harness spend exactly rl.call_budget calls, the GRPO advantage of an episode
reaches every one of its calls, held-out evaluation runs on the validation game, and checkpoint
selection keeps the best validation weights (ties keep the earlier ones)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from rl import checkpoint as ckpt
from rl.train_cli import compose
from rl.trainer import ConfigError, Trainer, validate


def test_witness_rl_toy__calls_budget_broadcast_advantage_and_validation_checkpoint(tmp_path):
    tr = Trainer(compose(["+experiment=witness_rl_toy", "log.console=false"], tmp_path))
    groups = tr.next_groups()
    assert len(groups) == 1 and groups[0][0].startswith("witness/train/") and len(groups[0][1]) == 4
    records = tr.collect(groups, update_seed=0)
    assert len(records) == 4 and all(r.harness == "witness" for r in records)
    for r in records:  # the tiny model never finishes a game: every episode ends on its 2nd call
        assert not r.terminated and sum(1 for t in r.turns if t.completion_ids) == 2, r.task
    # outcome rewards 1, 0, 0.5, 0.5 in one group: (R - 0.5) / population std sqrt(0.125)
    returns = [1.0, 0.0, 0.5, 0.5]
    crafted = [dataclasses.replace(r, episode_return=x) for r, x in zip(records, returns)]
    samples, adv, _ = tr.samples_from(crafted, groups)
    assert list(adv) == pytest.approx([2 ** 0.5, -2 ** 0.5, 0.0, 0.0], abs=1e-4)
    assert len(samples) == 8  # every call of every episode is trained on, with its episode's advantage
    for s in samples:
        assert s.advantage == pytest.approx(adv[s.episode])

    out = tr.run()
    evals = [r for r in out if r["kind"] == "eval"]
    assert len(evals) == 2 and all(list(e["per_task"]) == ["witness/val/stars"] for e in evals)
    first_best = max(range(2), key=lambda i: (evals[i]["return_mean"], -i))  # the earliest best
    assert evals[-1]["best_update"] == evals[first_best]["update"]
    best_dir = str(tmp_path / "best")
    assert ckpt.latest_step(best_dir) == evals[first_best]["update"]
    tr.update = 7
    assert tr._select(evals[first_best]["return_mean"] + 0.5) == {
        "best_update": 7, "best_return_mean": evals[first_best]["return_mean"] + 0.5}
    tr.update = 8
    assert tr._select(0.0)["best_update"] == 7 and ckpt.latest_step(best_dir) == 7
    lines = [json.loads(x) for x in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [x["kind"] for x in lines] == ["eval", "train", "eval"]


def test_witness_rl__selecting_checkpoints_on_test_games_is_refused_naming_the_split(tmp_path):
    cfg = compose(["+experiment=witness_rl_toy", "eval.tasks=[witness/test/polyomino]"], tmp_path)
    with pytest.raises(ConfigError, match="eval.tasks: .*test split"):
        validate(cfg)


def test_witness_rl__resume_restores_the_best_held_out_score_and_keeps_better_best_weights(tmp_path):
    """eval.select's best survives a kill: a best found after the last checkpoint (kept only in
    <out_dir>/best) is restored, so a worse held-out score after resuming leaves it there."""
    tr = Trainer(compose(["+experiment=witness_rl_toy", "log.console=false"], tmp_path))
    tr.update = 2
    tr._select(0.3)
    tr.save()  # checkpoint at update 2, best (0.3, 2)
    tr.update = 3
    tr._select(0.9)  # a better best after the last checkpoint; then the run is killed
    best_dir = str(tmp_path / "best")
    assert ckpt.latest_step(best_dir) == 3

    resumed = Trainer(compose(["+experiment=witness_rl_toy", "log.console=false", "resume=true"], tmp_path))
    assert resumed.update == 2 and resumed.best == (0.9, 3)
    resumed.update = 3
    assert resumed._select(0.5) == {"best_update": 3, "best_return_mean": 0.9}
    assert ckpt.latest_step(best_dir) == 3  # the better weights stay

    import shutil
    shutil.rmtree(best_dir)  # without <out_dir>/best the checkpoint's own best is restored
    again = Trainer(compose(["+experiment=witness_rl_toy", "log.console=false", "resume=true"], tmp_path))
    assert again.best == (0.3, 2)
    assert again._select(0.2) == {"best_update": 2, "best_return_mean": 0.3}
