"""Against a REAL vLLM server (CPU build, fp32) serving the tiny checkpoint: one server per session.

The server's token ids must be the checkpoint tokenizer's, and its log-probs those of our JAX
Qwen3 model on the same tokens (|diff| <= 1e-3 in fp32), also after a weight reload. The server
serves an untied copy of the (tied) tiny checkpoint: the JAX model loads the tied original, so the
comparison also checks that untying leaves the function unchanged.

The trainer's weight push is checked end to end: one real update of the trainer, pushed by
`Trainer.push_weights`, then the server's prompt log-probs (vLLM `prompt_logprobs`, fixed tokens, no
sampling) equal the trainer's new ones. Tests that reload weights restore the original weights before
they return (and check it), so every test sees the seed-0 model whatever the order.
"""

from __future__ import annotations

import numpy as np
import pytest

import glyphjax
from glyphjax.harness.prompt import HarnessConfig
from rl.policies.base import SamplingParams
from rl.policies.vllm import VLLMPolicy
from rl.rollout import run_rollouts
from rl.trajectory import read_episodes

pytestmark = [pytest.mark.vllm, pytest.mark.xdist_group("vllm-server")]  # one server per session

CONVS = [
    [{"role": "system", "content": "You are playing a game on a grid."},
     {"role": "user", "content": "[Grid]\n·↑·\nChoose an action. <action>UP</action>"}],
    [{"role": "user", "content": "Step 3 of 512. Score: 2. Choose an action."}],
    [{"role": "system", "content": "Rules: move the agent."},
     {"role": "user", "content": "█░▒▓ wall snake apple"}],
]


@pytest.fixture(scope="module")
def policy(vllm_server):
    pol = VLLMPolicy(vllm_server.url, vllm_server.model, concurrency=4, timeout=120, retries=2)
    yield pol
    pol.close()


@pytest.fixture(scope="module")
def tokenizer(tiny_ckpt):
    from rl.tokenizer import load_tokenizer
    return load_tokenizer(tiny_ckpt)


def jax_completion_logprobs(model, prompt_ids, completion_ids, temperature=1.0) -> np.ndarray:
    """log p(completion token | prefix) under our JAX model, at the given temperature."""
    import jax
    import jax.numpy as jnp
    ids = jnp.asarray([list(prompt_ids) + list(completion_ids)], jnp.int32)
    positions = jnp.arange(ids.shape[1], dtype=jnp.int32)[None]
    logits = model(ids, positions)[0].astype(jnp.float32) / temperature
    logp = jax.nn.log_softmax(logits, axis=-1)
    start = len(prompt_ids) - 1
    rows = logp[start:start + len(completion_ids)]
    return np.asarray(rows[jnp.arange(len(completion_ids)), jnp.asarray(completion_ids)])


def test_server__serves_the_model_with_its_max_len(policy, vllm_server):
    assert policy.model == vllm_server.model == "tiny-qwen3"
    assert policy.max_model_len == vllm_server.max_model_len == 2048


def test_token_ids__are_the_checkpoint_tokenizers(policy, tokenizer, tiny_ckpt):
    outs = policy.complete(CONVS, SamplingParams(temperature=1.0, max_new_tokens=24, seed=1))
    counts = policy.count_tokens(CONVS)
    local = VLLMPolicy(policy.url, policy.model, tokenizer=str(tiny_ckpt))
    assert local.count_tokens(CONVS) == counts  # local chat template == the server's /tokenize
    for i, (conv, c) in enumerate(zip(CONVS, outs)):
        assert c.prompt_ids == tokenizer.encode_conversation(conv), f"conversation {i}"
        assert counts[i] == len(c.prompt_ids), f"conversation {i}"
        assert 1 <= len(c.completion_ids) <= 24 and len(c.logprobs) == len(c.completion_ids), f"conversation {i}"
        text = tokenizer.decode(c.completion_ids, skip_special_tokens=True)
        assert text.rstrip("\ufffd") == c.text.rstrip("\ufffd"), f"conversation {i}: {text!r} vs {c.text!r}"
        assert (c.finish_reason == "length") == (len(c.completion_ids) == 24 and
                                                 c.completion_ids[-1] not in tokenizer.eos_token_ids), f"conversation {i}"


@pytest.mark.parametrize("temperature", [1.0, 0.5])
def test_logprobs__equal_our_jax_model_within_1e3(policy, tiny_ckpt, temperature):
    from rl.models.hf_io import load_model
    model = load_model(tiny_ckpt, dtype="float32")
    outs = policy.complete(CONVS, SamplingParams(temperature=temperature, max_new_tokens=32, seed=7))
    for i, c in enumerate(outs):
        ours = jax_completion_logprobs(model, c.prompt_ids, c.completion_ids, temperature)
        np.testing.assert_allclose(np.asarray(c.logprobs), ours, atol=1e-3, rtol=0,
                                   err_msg=f"conversation {i}, temperature {temperature}")


def test_rollout__real_server_episodes_complete_and_replay(policy, tokenizer, tmp_path):
    out = tmp_path / "traj.jsonl"
    episodes = [("dummy/arrow-4", s) for s in range(3)] + [("dummy/arrow-1", 5)]
    recs = run_rollouts(policy, episodes, HarnessConfig(history=1), SamplingParams(max_new_tokens=24, seed=3),
                        str(out))
    assert [(r.task, r.seed) for r in read_episodes(out)] == sorted(
        episodes, key=lambda e: (e[0] != "dummy/arrow-1",))  # arrow-1 finishes first
    for rec in recs:
        where = f"{rec.task} seed {rec.seed}"
        assert rec.length == int(rec.task[-1]) and rec.terminated, where
        _, trans = glyphjax.replay(glyphjax.make(rec.task), rec.seed, rec.actions)
        np.testing.assert_array_equal(trans.reward, np.asarray(rec.rewards, np.float32), err_msg=where)
        assert rec.episode_return == sum(rec.rewards), where
        assert rec.parse_failures == sum(t.parse_status != "ok" for t in rec.turns), where
        for turn in rec.turns:
            assert len(turn.prompt_ids) + 24 <= policy.max_model_len, where
            assert len(turn.logprobs) == len(turn.completion_ids) >= 1, where
            assert tokenizer.decode(turn.completion_ids, skip_special_tokens=True).rstrip("\ufffd") == \
                turn.completion.rstrip("\ufffd"), f"{where} turn {turn.t}"


def test_reload_weights__server_then_matches_the_new_checkpoint(policy, tiny_ckpt, tmp_path):
    from rl.models.hf_io import load_model
    from rl.tiny import write_tiny_checkpoint
    from rl.vllm_server import untied_copy
    other = write_tiny_checkpoint(tmp_path / "seed1", seed=1)
    new_model, old_model = load_model(other, dtype="float32"), load_model(tiny_ckpt, dtype="float32")
    other = untied_copy(other, tmp_path / "seed1-untied")
    original = untied_copy(tiny_ckpt, tmp_path / "seed0-untied")
    sampling = SamplingParams(max_new_tokens=16, seed=11)
    try:
        policy.pause()
        policy.reload_weights(str(other))
        policy.resume()
        (c,) = policy.complete(CONVS[:1], sampling)
        np.testing.assert_allclose(c.logprobs, jax_completion_logprobs(new_model, c.prompt_ids, c.completion_ids),
                                   atol=1e-3, rtol=0, err_msg="after reloading seed-1 weights")
        assert not np.allclose(c.logprobs, jax_completion_logprobs(old_model, c.prompt_ids, c.completion_ids),
                               atol=1e-3), "the reload changed nothing"
    finally:
        policy.pause()
        policy.reload_weights(str(original))
        policy.resume()
    (c,) = policy.complete(CONVS[:1], sampling)
    np.testing.assert_allclose(c.logprobs, jax_completion_logprobs(old_model, c.prompt_ids, c.completion_ids),
                               atol=1e-3, rtol=0, err_msg="after reloading the original weights")


def server_prompt_logprobs(url: str, model: str, token_ids: list[int]) -> np.ndarray:
    """The server's log p(token_t | tokens_<t) for t >= 1 of a fixed token sequence (vLLM's
    `prompt_logprobs` on /v1/completions with a token-id prompt; no sampling involved)."""
    import json
    import urllib.request
    body = {"model": model, "prompt": list(token_ids), "max_tokens": 1, "temperature": 1.0, "prompt_logprobs": 0}
    req = urllib.request.Request(url + "/v1/completions", data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        entries = json.loads(r.read())["choices"][0]["prompt_logprobs"]
    assert entries[0] is None and len(entries) == len(token_ids), "prompt_logprobs: one entry per prompt token"
    return np.array([e[str(t)]["logprob"] for e, t in zip(entries[1:], token_ids[1:])])


def test_trainer_update_then_push__server_logprobs_are_the_trainers_new_ones(vllm_server, tiny_ckpt, tmp_path):
    """One real update of rl.train_step.TrainStep (inside rl.trainer.Trainer, policy=vllm), pushed with
    the trainer's own `push_weights` (untied safetensors, pause, reload_weights, resume): the server's
    log-probs on fixed token sequences then equal the trainer's NEW log-probs (<= 1e-3) and differ from
    the OLD ones. Restores the served weights afterwards (checked), so test order does not matter."""
    import json
    from rl.train_cli import compose
    from rl.train_step import Sample, build_batch
    from rl.trainer import Trainer
    from rl.vllm_server import untied_copy
    cfg = compose(["policy=vllm", f"server.url={vllm_server.url}", f"server.model={vllm_server.model}",
                   f"model.path={tiny_ckpt}", "model.dtype=float32", "model.random_init_std=null", "rl=ipo",
                   "rl.lr=1e-3", "rl.group_size=2", "rl.groups_per_update=1", "rl.rollout_budget=2",
                   "rl.action_tokens=false", "eval.every=0", "harness=basic", "ckpt_every=0", "log.console=false"],
                  tmp_path / "run")
    trainer = Trainer(cfg)
    original = untied_copy(tiny_ckpt, tmp_path / "seed0-untied")
    try:
        # Fixed sequences: the server's own completions (old weights) of two prompts, advantages +1 / -1.
        comps = trainer.policy.complete(CONVS[:2], SamplingParams(temperature=1.0, max_new_tokens=16))
        samples = [Sample(c.prompt_ids, c.completion_ids, c.logprobs, adv) for c, adv in zip(comps, (1.0, -1.0))]
        batch = trainer.step.build(samples, micro_batch_size=2)
        old = trainer.step.logprobs(batch)
        m = batch["mask"] > 0
        np.testing.assert_allclose(old[m], batch["q"][m], atol=1e-3, rtol=0,
                                   err_msg="before the update: trainer vs sampler log-probs (old weights)")
        metrics = trainer.step.step(batch)
        assert metrics["trainable_tokens"] == sum(len(c.completion_ids) for c in comps) and metrics["grad_norm"] > 0
        new = trainer.step.logprobs(batch)
        moved = np.abs(new[m] - old[m])
        assert moved.mean() > 1e-2, f"the update barely moved the log-probs (mean |change| {moved.mean():.2e})"

        trainer.update += 1  # as Trainer.train_update does between the step and the push
        trainer.push_weights()  # the trainer's own vLLM push
        assert trainer.weight_version == 1
        written = json.loads((tmp_path / "run" / "weights" / "current" / "glyphjax_weight_version.json").read_text())
        assert written == {"version": 1, "update": 1}
        exported = json.loads((tmp_path / "run" / "weights" / "current" / "config.json").read_text())
        assert exported["tie_word_embeddings"] is False, "the vLLM export must be untied (vLLM 0.32 lm_head reload)"

        for r in range(2):  # batch rows are sorted by length: find each sample's row by its tokens
            toks = list(samples[r].prompt_ids) + list(samples[r].completion_ids)
            row = next(i for i in range(batch["inputs"].shape[1])
                       if list(batch["inputs"][0, i, :len(toks) - 1]) == toks[:-1])
            served = server_prompt_logprobs(vllm_server.url, vllm_server.model, toks)
            p = len(samples[r].prompt_ids)
            served_c = served[p - 1:]  # the completion tokens' log-probs
            on = batch["mask"][0, row] > 0  # the completion tokens, in whichever layout the trainer built
            trainer_new, trainer_old = new[0, row][on], old[0, row][on]
            np.testing.assert_allclose(served_c, trainer_new, atol=1e-3, rtol=0,
                                       err_msg=f"sample {r} (advantage {samples[r].advantage:+}): server after the "
                                               f"push vs the trainer's new log-probs")
            assert np.max(np.abs(served_c - trainer_old)) > 1e-3, f"sample {r}: server still serves the old weights"
            # the whole sequence (prompt tokens too) follows the new weights
            full = build_batch(samples, micro_batch_size=2, rows_multiple=trainer.step.rows_multiple)  # every position
            full_new = trainer.step.logprobs(full)[0, row, :len(toks) - 1]
            np.testing.assert_allclose(served, full_new, atol=1e-3, rtol=0, err_msg=f"sample {r}: all positions")

        # what the trainer trains on next: sampled tokens' log-probs from the updated server
        fresh = trainer.policy.complete(CONVS[:1], SamplingParams(temperature=1.0, max_new_tokens=16))[0]
        fb = trainer.step.build([Sample(fresh.prompt_ids, fresh.completion_ids, fresh.logprobs, 0.0)], 1)
        fm = fb["mask"] > 0
        np.testing.assert_allclose(fb["q"][fm], trainer.step.logprobs(fb)[fm], atol=1e-3, rtol=0,
                                   err_msg="sampled-token log-probs after the push vs the trainer's")
    finally:
        trainer.policy.pause()
        trainer.policy.reload_weights(str(original))
        trainer.policy.resume()
        trainer.policy.close()
    toks = list(samples[0].prompt_ids) + list(samples[0].completion_ids)
    p = len(samples[0].prompt_ids)
    np.testing.assert_allclose(server_prompt_logprobs(vllm_server.url, vllm_server.model, toks)[p - 1:],
                               np.asarray(samples[0].logprobs), atol=1e-3, rtol=0,
                               err_msg="after restoring the original weights")


def test_batch_of_long_prompts__completes_with_chunked_prefill(policy):
    """12 prompts of ~1,500 tokens exceed the scheduler's per-step token budget, so their prefill is
    chunked: the engine must survive it (seeded requests crashed vLLM 0.32 CPU here)."""
    long = "█░▒▓·@#$%&*+~ wall snake apple key door goal " * 40
    convs = [[{"role": "user", "content": f"{i} {long}"}] for i in range(12)]
    sizes = policy.count_tokens(convs)
    assert sum(sizes) > 8192 and max(sizes) + 8 <= policy.max_model_len, sizes
    outs = policy.complete(convs, SamplingParams(max_new_tokens=8))
    assert [len(c.prompt_ids) for c in outs] == sizes
    assert all(1 <= len(c.completion_ids) == len(c.logprobs) <= 8 for c in outs)
