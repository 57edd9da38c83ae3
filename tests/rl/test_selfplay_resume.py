"""A killed self-play run resumes exactly (issue 14): Tic-Tac-Toe self-play with groups drawn
over (variant, seat), adaptive Crab (its moments and lagged kappa live in the checkpoint) and the
state-value term, through the constrained local sampler. Killed after update 2 of 3 and resumed,
update 3 draws the same groups and seeds, plays the same games, and ends with the same parameters
and optimizer state as the uninterrupted run."""

from __future__ import annotations

import jax
import numpy as np

from rl.train_cli import compose
from rl.trainer import Trainer, train


def _cfg(out, **over):
    items = {"rl.opponent": "self", "rl.group_size": 2, "rl.groups_per_update": 2, "rl.rollout_budget": 12,
             "rl.advantage_kwargs.kappa": "adaptive", "ckpt_every": 1, "log.console": "false", **over}
    return compose(["+experiment=gamesmith_ttt_cpu"] + [f"{k}={v}" for k, v in items.items()], out)


def test_selfplay_resume__killed_run_resumes_to_the_same_batch_and_parameters(tmp_path):
    full = train(_cfg(tmp_path / "full"))
    cut = train(_cfg(tmp_path / "cut", stop_after=2))
    assert [r["update"] for r in cut] == [1, 2]
    resumed = train(_cfg(tmp_path / "cut", resume="true"))
    assert [r["update"] for r in resumed] == [3]
    a, b = full[2], resumed[0]
    assert sorted(set(a["return_by_seat"])) == ["0", "1"]  # self-play: both seats trained
    for key in ("tasks", "seeds", "group_seats", "encodings", "returns", "seats", "kappa_used", "sigma2_hat",
                "loss", "grad_norm", "samples", "completion_tokens"):
        assert a[key] == b[key], f"update 3 differs in {key}: uninterrupted {a[key]} vs resumed {b[key]}"
    ta = Trainer(_cfg(tmp_path / "full", resume="true"))
    tb = Trainer(_cfg(tmp_path / "cut", resume="true"))
    assert ta.update == tb.update == 3 and ta.estimator.state_dict() == tb.estimator.state_dict()
    for x, y in zip(jax.tree.leaves((ta.step.params, ta.step.opt_state)), jax.tree.leaves((tb.step.params,
                                                                                           tb.step.opt_state))):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
