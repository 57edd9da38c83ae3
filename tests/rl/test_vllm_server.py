"""Against a REAL vLLM server (CPU build, fp32) serving the tiny checkpoint: one server per session.

The server's token ids must be the checkpoint tokenizer's, and its log-probs those of our JAX
Qwen3 model on the same tokens (|diff| <= 1e-3 in fp32), also after a weight reload. The server
serves an untied copy of the (tied) tiny checkpoint: the JAX model loads the tied original, so the
comparison also checks that untying leaves the function unchanged.
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
