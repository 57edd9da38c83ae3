"""Distillation (rl.mode=sft, rl/sft.py, rl/teacher.py): teacher records from a narrated bot,
the student's prompts rebuilt exactly, a fixed batch schedule, the CE loss (exact, and falling
on a fixed batch), and a killed distillation run resuming to the same parameters."""

from __future__ import annotations

import json

import jax
import numpy as np
import pytest

from glyphjax.harness.prompt import HarnessConfig
from rl import sft
from rl.policies.base import Completion
from rl.rollout import run_rollouts
from rl.teacher import bot_player, write_teacher

TASK = "zerosum/tictactoe/base"


class Recorder:
    """Text policy that plays the first empty cell and remembers every conversation it was sent."""

    name = "recorder"

    def __init__(self):
        self.seen: list[list[dict]] = []

    def complete(self, conversations, sampling):
        out = []
        for conv in conversations:
            self.seen.append(conv)
            grid = conv[-1]["content"].rsplit("[Grid]\n", 1)[1].split("\n\n")[0].replace("\n", "")
            cell = grid.index("·")
            name = "ABC"[cell % 3] + str(cell // 3 + 1)
            out.append(Completion(f"<action>{name}</action>", [1], [2], [-0.1], "stop"))
        return out


def test_conversation__rebuilds_exactly_the_prompt_the_policy_was_sent():
    pol = Recorder()
    recs = run_rollouts(pol, [(TASK, 3)], HarnessConfig(history=2))
    by_turn = sorted(((r.turns[k].t, sft.conversation(r, k)) for r in recs for k in range(len(r.turns))), key=lambda x: x[0])
    assert [c for _, c in by_turn] == pol.seen  # every turn, both seats, with their history windows
    assert any(r.turns[-1].history_shown == 2 for r in recs)


def test_teacher__narrated_bot_records_every_seat_with_text_and_legal_actions(tmp_path):
    out = tmp_path / "teacher.jsonl"
    recs = write_teacher([TASK], range(4), "random", str(out))
    assert len(recs) == 8 and sorted({r.seat for r in recs}) == [0, 1]
    lines = out.read_text().splitlines()
    assert len(lines) == 8
    for r in recs:
        assert r.policy == "random-teacher" and r.returns is not None and r.returns[0] == -r.returns[1]
        for t in r.turns:
            assert t.completion.endswith(f"<action>{t.action_name}</action>") and sft.usable(t)
    assert sft.count_samples(sft.read_teacher([out])) == sum(len(r.turns) for r in recs)
    with pytest.raises(ValueError, match="unknown bot 'oracle'"):
        bot_player(TASK, "oracle")


def test_schedule__each_epoch_visits_every_sample_once_in_a_seeded_order():
    s = sft.Schedule(10, 4, 2, seed=5)
    assert s.per_epoch == 3 and s.num_updates == 6
    epoch0 = np.concatenate([s.indices(u) for u in range(3)])
    epoch1 = np.concatenate([s.indices(u) for u in range(3, 6)])
    assert sorted(epoch0) == list(range(10)) == sorted(epoch1)
    assert not np.array_equal(epoch0, epoch1)
    assert np.array_equal(sft.Schedule(10, 4, 2, seed=5).indices(4), s.indices(4))
    with pytest.raises(ValueError, match="no usable teacher turn"):
        sft.Schedule(0, 4, 1, 0)


def _cfg(out, data, **over):
    from rl.train_cli import compose
    items = {"tasks.ids": "[dummy/arrow-1]", "rl.mode": "sft", "rl.sft.data": f"[{data}]", "rl.sft.epochs": 3,
             "rl.sft.batch_size": 16, "rl.lr": "1e-2", "eval.every": 0, "rl.micro_batch_size": 16,
             "ckpt_every": 1, "log.console": "false", **over}
    return compose([f"{k}={v}" for k, v in items.items()], out)


def test_sft__runs_the_schedule_and_a_killed_run_resumes_to_the_same_parameters(tmp_path):
    from rl.trainer import train
    data = tmp_path / "arrow_teacher.jsonl"
    write_teacher(["dummy/arrow-1"], range(32), "scripted", str(data))
    full = train(_cfg(tmp_path / "full", data))
    assert [r["kind"] for r in full] == ["sft"] * 6  # 32 turns / 16 per update x 3 epochs
    assert full[0]["loss"] == pytest.approx(np.log(4), abs=0.02)  # a fresh student: uniform over 4 actions
    first = train(_cfg(tmp_path / "cut", data, stop_after=4))  # "killed" after 4 updates (checkpointed)
    assert len(first) == 4
    resumed = train(_cfg(tmp_path / "cut", data, resume="true"))
    assert [r["update"] for r in resumed] == [5, 6]
    # same batches (epoch 2's permutation) and same parameters: the losses agree to the bit
    assert [r["loss"] for r in resumed] == [r["loss"] for r in full[4:]]


def test_sft_loss__is_the_mean_cross_entropy_of_the_completion_tokens_and_descends():
    from rl.train_step import StepConfig, TrainStep
    from tests.rl.test_train_step import random_samples, tiny_model
    samples = random_samples(6)
    ts = TrainStep(tiny_model(), StepConfig(loss="sft", lr=1e-2))
    batch = ts.build(samples, 6, bucket=16)
    logp = np.asarray(ts.logprobs(batch))
    expected = -float((logp * batch["mask"]).sum() / batch["mask"].sum())
    losses = [float(ts.step(batch)["loss"]) for _ in range(15)]
    assert losses[0] == pytest.approx(expected, rel=1e-5)  # the sampler log-probs and advantages play no part
    assert losses[-1] < 0.5 * losses[0]


def test_sft__config_errors_name_the_key(tmp_path):
    from rl.trainer import ConfigError, validate
    from rl.train_cli import compose
    with pytest.raises(ConfigError, match=r"rl.sft.data=\[FILE.jsonl"):
        validate(compose(["rl.mode=sft"], tmp_path))
    with pytest.raises(ConfigError, match="is not a file"):
        validate(compose(["rl.mode=sft", f"rl.sft.data=[{tmp_path / 'missing.jsonl'}]"], tmp_path))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"not": "a record"}) + "\n")
    with pytest.raises(ConfigError, match="not an episode record"):
        validate(compose(["rl.mode=sft", f"rl.sft.data=[{bad}]"], tmp_path))
    with pytest.raises(ConfigError, match="unknown rl.mode"):
        validate(compose(["rl.mode=distil"], tmp_path))
