"""glyphjax-train with policy=vllm when the server dies mid-run (an in-process fake vLLM server,
tests/rl/fake_openai.py): a PolicyServerError that says where training stopped and how to go on,
checkpoints intact (they hold the weights the server last got), and resume=true continues the run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_openai import FakeOpenAIServer  # noqa: E402

from rl.policies.vllm import PolicyServerError  # noqa: E402
from rl.train_cli import compose  # noqa: E402
from rl.trainer import Trainer, train  # noqa: E402

G, UPDATES = 2, 2  # dummy/arrow-1: one turn per episode, so one chat request per rollout


def _cfg(url: str, out: Path, tiny_ckpt: Path, **over):
    items = {"policy": "vllm", "server.url": url, "model.path": str(tiny_ckpt), "model.dtype": "float32",
             "model.random_init_std": "null", "rl": "ipo", "rl.lr": "1e-3", "rl.group_size": G,
             "rl.groups_per_update": 1, "rl.rollout_budget": G * UPDATES, "rl.action_tokens": "false",
             "eval.every": 0, "harness": "basic",
             "policy.max_new_tokens": 16, "policy.retries": 1, "policy.backoff": 0.01, "ckpt_every": 1,
             "log.console": "false", **over}
    return compose([f"{k}={v}" for k, v in items.items()], out)


def _dies_after(requests: int):
    """A responder that answers UP until `requests` chat requests were served, then shuts the
    server down: every later connection is refused, as when the vLLM process dies."""
    state = {}

    def responder(body, n):
        if n >= requests:
            if "down" not in state:
                state["down"] = True
                state["srv"]._httpd.shutdown()
                state["srv"]._httpd.server_close()
            from fake_openai import Fault
            return Fault("drop")
        return "<action>UP</action>"
    srv = FakeOpenAIServer(responder)
    state["srv"] = srv
    srv._thread.start()
    return srv


def test_train_vllm__server_dies_mid_run__clear_error_checkpoint_intact_and_resume_finishes(tmp_path, tiny_ckpt):
    from rl.models.hf_io import model_tensors, read_checkpoint_tensors
    out = tmp_path / "run"
    srv = _dies_after(G)  # update 1 completes; the server dies in update 2's rollouts
    with pytest.raises(PolicyServerError) as err:
        train(_cfg(srv.url, out, tiny_ckpt))
    msg = str(err.value)
    for part in (f"training stopped with 1 of {UPDATES} updates done", "weight version 1", srv.url,
                 f"the last checkpoint is update 1 in {out / 'checkpoints'}", "resume=true"):
        assert part in msg, f"error message lacks {part!r}: {msg}"
    recs = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [(r["update"], r["weight_version"]) for r in recs] == [(1, 1)]

    # resume against a new server: the checkpoint holds exactly the weights the server last got
    with FakeOpenAIServer(lambda body, n: "<action>UP</action>") as srv2:
        trainer = Trainer(_cfg(srv2.url, out, tiny_ckpt, resume="true"))
        assert (trainer.update, trainer.weight_version) == (1, 1)
        pushed = read_checkpoint_tensors(out / "weights" / "current")  # written by the push of version 1
        restored = model_tensors(trainer.step.model())
        assert set(pushed) == set(restored) | {"lm_head.weight"}  # the push writes an untied copy
        for name, value in restored.items():
            np.testing.assert_array_equal(value, pushed[name], err_msg=f"checkpoint vs pushed weights: {name}")
        np.testing.assert_array_equal(pushed["lm_head.weight"], restored["model.embed_tokens.weight"])
        trainer.run()
        assert [p for p, _ in srv2.requests].count("/collective_rpc") == 2  # restore push + update 2
    recs = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [(r["update"], r["weight_version"]) for r in recs] == [(1, 1), (2, 2)]
