"""LocalPolicy: greedy parity with transformers `generate`, sampler log-probs vs a full forward pass,
per-row stopping, bucketing/compile bounds."""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np
import pytest
import torch
from flax import nnx

from rl.models import hf_io
from rl.models.qwen3 import positions_from_mask
from rl.policies.base import FINISH_LENGTH, FINISH_STOP, SamplingParams
from rl.policies.local import LocalPolicy

CONVERSATIONS = [
    [{"role": "user", "content": "Step 3. ☺ go"}],
    [{"role": "system", "content": "Rules: move the agent. Actions: UP, DOWN, LEFT, RIGHT."},
     {"role": "user", "content": "█░▒▓\n·@·#\nScore: 2. Choose an action."}],
    [{"role": "user", "content": "<action>LEFT</action>"}],
]


@pytest.fixture(scope="module")
def policy(tiny_ckpt):
    # Small buckets keep the compiled programs few and small on CPU.
    return LocalPolicy.from_pretrained(tiny_ckpt, batch_buckets=(4,), min_prompt_bucket=64, min_new_tokens_bucket=16)


@pytest.fixture(scope="module")
def hf_model(tiny_ckpt):
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(tiny_ckpt, dtype=torch.float32).eval()


def test_local_policy__greedy_equals_transformers_generate(policy, hf_model):
    out = policy.complete(CONVERSATIONS, SamplingParams(temperature=0.0, max_new_tokens=16))
    for i, c in enumerate(out):
        ids = torch.tensor([c.prompt_ids])
        ref = hf_model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=16, do_sample=False,
                                eos_token_id=list(policy.tokenizer.eos_token_ids), pad_token_id=0)
        ref_new = ref[0, ids.shape[1]:].tolist()
        assert c.completion_ids == ref_new, f"conversation {i}: ours {c.completion_ids} vs transformers {ref_new}"
        assert c.finish_reason == (FINISH_STOP if ref_new[-1] in policy.tokenizer.eos_token_ids else FINISH_LENGTH)


def _ref_sampling_logprobs(logits: np.ndarray, temperature: float, top_k: int, top_p: float) -> np.ndarray:
    """Plain numpy: temperature, keep the top-k, then the smallest top set with mass >= top_p."""
    x = logits.astype(np.float64) / temperature
    order = np.argsort(-x, kind="stable")
    if top_k > 0:
        order = order[:top_k]
    p = np.exp(x[order] - x[order].max())
    p /= p.sum()
    kept, mass = [], 0.0
    for idx, pi in zip(order, p):
        if mass >= top_p:
            break
        kept.append(idx)
        mass += pi
    out = np.full_like(x, -np.inf)
    z = x[kept] - x[kept].max()
    out[kept] = z - np.log(np.exp(z).sum())
    return out


_FORWARD: dict = {}


def _full_forward_logits(tiny_ckpt, prompt_ids, completion_ids, length: int = 96) -> np.ndarray:
    """Logits predicting each completion token, from one no-cache forward over prompt + completion
    (right-padded to `length` so one jitted program serves every sequence)."""
    if str(tiny_ckpt) not in _FORWARD:
        _FORWARD[str(tiny_ckpt)] = (hf_io.load_model(tiny_ckpt), nnx.jit(lambda m, i, p, a: m(i, p, a)))
    model, forward = _FORWARD[str(tiny_ckpt)]
    seq = list(prompt_ids) + list(completion_ids)
    assert len(seq) <= length
    ids = np.zeros((1, length), np.int32)
    ids[0, :len(seq)] = seq
    mask = jnp.asarray(np.arange(length)[None] < len(seq))
    logits = np.asarray(forward(model, jnp.asarray(ids), positions_from_mask(mask), mask))[0]
    n = len(prompt_ids)
    return logits[n - 1:n - 1 + len(completion_ids)]


@pytest.mark.parametrize("temperature,top_k,top_p", [(1.0, 0, 1.0), (0.7, 40, 0.85), (1.3, 0, 0.6), (0.9, 5, 1.0)])
def test_local_policy__logprobs_equal_full_forward_recomputation(policy, tiny_ckpt, temperature, top_k, top_p):
    sampling = SamplingParams(temperature=temperature, top_k=top_k, top_p=top_p, max_new_tokens=12, seed=3)
    out = policy.complete(CONVERSATIONS, sampling)
    for i, c in enumerate(out):
        assert len(c.logprobs) == len(c.completion_ids) > 0
        logits = _full_forward_logits(tiny_ckpt, c.prompt_ids, c.completion_ids)
        for t, (tok, lp) in enumerate(zip(c.completion_ids, c.logprobs)):
            ref = _ref_sampling_logprobs(logits[t], temperature, top_k, top_p)
            assert np.isfinite(ref[tok]), f"conv {i} step {t}: sampled token {tok} outside the top-k/top-p support"
            assert abs(lp - ref[tok]) <= 1e-5, f"conv {i} step {t} ({sampling}): reported {lp}, recomputed {ref[tok]}"


def test_local_policy__greedy_reports_plain_logprobs(policy, tiny_ckpt):
    c = policy.complete(CONVERSATIONS[:1], SamplingParams(temperature=0.0, max_new_tokens=8))[0]
    logits = _full_forward_logits(tiny_ckpt, c.prompt_ids, c.completion_ids)
    top = logits.max(-1, keepdims=True)
    ref = logits - top - np.log(np.exp(logits - top).sum(-1, keepdims=True))
    for t, tok in enumerate(c.completion_ids):
        assert tok == int(np.argmax(logits[t])), f"step {t}: greedy token is not the argmax"
        assert abs(c.logprobs[t] - ref[t, tok]) <= 1e-5, f"step {t}: {c.logprobs[t]} vs {ref[t, tok]}"


def test_local_policy__stops_each_row_at_its_own_stop_token(tiny_ckpt):
    base = LocalPolicy.from_pretrained(tiny_ckpt, batch_buckets=(4,), min_prompt_bucket=64, stop_token_ids=[])
    greedy = base.complete(CONVERSATIONS, SamplingParams(temperature=0.0, max_new_tokens=16))
    # Make the 4th greedy token of conversation 0 a stop token; rows stop at its first occurrence.
    stop = greedy[0].completion_ids[3]
    tok = base.tokenizer
    policy = LocalPolicy(hf_io.load_model(tiny_ckpt), tok, batch_buckets=(4,), min_prompt_bucket=64,
                         stop_token_ids=[stop])
    out = policy.complete(CONVERSATIONS, SamplingParams(temperature=0.0, max_new_tokens=16))
    for i, (g, c) in enumerate(zip(greedy, out)):
        ids = g.completion_ids
        expect = ids[:ids.index(stop) + 1] if stop in ids else ids
        assert c.completion_ids == expect, f"conversation {i}: {c.completion_ids} vs {expect}"
        assert c.finish_reason == (FINISH_STOP if stop in ids else FINISH_LENGTH), f"conversation {i}"
        assert len(c.logprobs) == len(c.completion_ids)
        assert c.text == tok.decode(expect[:-1] if stop in ids else expect)


def test_local_policy__batch_composition_and_chunking_do_not_change_greedy_output(tiny_ckpt, policy):
    """Left padding, batch padding and chunking above the largest bucket are invisible to each row;
    and varying batch/prompt sizes compile a bounded number of programs."""
    # A new-token bucket (32) no other test uses, so these programs are compiled here and counted.
    small = LocalPolicy.from_pretrained(tiny_ckpt, batch_buckets=(2, 4), min_prompt_bucket=64,
                                        min_new_tokens_bucket=32)
    sampling = SamplingParams(temperature=0.0, max_new_tokens=10)
    alone = [small.complete([c], sampling)[0].completion_ids for c in CONVERSATIONS]
    assert small.compile_count == 1, f"three single prompts of different lengths compiled {small.compile_count}"
    batches = [CONVERSATIONS, CONVERSATIONS[::-1] * 2, CONVERSATIONS[1:], CONVERSATIONS * 3]
    for b, convs in enumerate(batches):  # sizes 3, 6 (chunked 4+2), 2, 9 (4+4+1)
        got = [c.completion_ids for c in small.complete(convs, sampling)]
        want = [alone[CONVERSATIONS.index(c)] for c in convs]
        assert got == want, f"batch {b} (size {len(convs)}): outputs depend on batch composition"
    # Batch buckets {2, 4} x one prompt bucket x one new-token bucket: at most 2 programs, ever.
    assert small.compile_count == 2, f"compiled {small.compile_count} programs for 2 batch buckets"
    small.complete(CONVERSATIONS, SamplingParams(temperature=0.8, top_k=3, top_p=0.9, max_new_tokens=7, seed=5))
    assert small.compile_count == 2, "changing temperature/top-k/top-p/max_new_tokens (same bucket) recompiled"


def test_local_policy__same_seed_same_samples_and_calls_differ(tiny_ckpt):
    a = LocalPolicy.from_pretrained(tiny_ckpt, batch_buckets=(4,))
    b = LocalPolicy.from_pretrained(tiny_ckpt, batch_buckets=(4,))
    s = SamplingParams(temperature=1.0, max_new_tokens=12, seed=11)
    first_a = [c.completion_ids for c in a.complete(CONVERSATIONS, s)]
    assert first_a == [c.completion_ids for c in b.complete(CONVERSATIONS, s)], "same seed, different samples"
    second_a = [c.completion_ids for c in a.complete(CONVERSATIONS, s)]
    assert second_a != first_a, "two calls with the same seed repeated the same samples"


def test_local_policy__prompt_beyond_context_is_a_clear_error(policy):
    too_long = [{"role": "user", "content": "UP " * 5000}]
    with pytest.raises(ValueError, match="context"):
        policy.complete([too_long], SamplingParams(max_new_tokens=4))


def test_local_policy__update_model_swaps_weights_without_recompiling(policy, tiny_ckpt):
    sampling = SamplingParams(temperature=0.0, max_new_tokens=8)
    before = [c.completion_ids for c in policy.complete(CONVERSATIONS, sampling)]
    compiles = policy.compile_count
    original = policy.model
    changed = hf_io.load_model(tiny_ckpt)
    changed.model.layers[1].mlp.down_proj.kernel[...] = -changed.model.layers[1].mlp.down_proj.kernel[...] * 3
    try:
        policy.update_model(changed)
        after = [c.completion_ids for c in policy.complete(CONVERSATIONS, sampling)]
        fresh = LocalPolicy(changed, policy.tokenizer, batch_buckets=(4,), min_prompt_bucket=64)
        assert after == [c.completion_ids for c in fresh.complete(CONVERSATIONS, sampling)], \
            "updated policy differs from a fresh policy on the new weights"
        assert after != before, "new weights did not change greedy output"
        assert policy.compile_count == compiles, "update_model caused a recompile"
    finally:
        policy.update_model(original)
    untied = hf_io.model_from_tensors(  # a different architecture is refused
        dataclasses.replace(original.config, tie_word_embeddings=False),
        {**hf_io.model_tensors(original), "lm_head.weight": hf_io.model_tensors(original)["model.embed_tokens.weight"]})
    with pytest.raises(ValueError, match="same architecture"):
        policy.update_model(untied)


def test_local_policy__chunked_prefill_of_a_long_prompt_equals_a_full_forward(tiny_ckpt):
    import rl.policies.local as local
    # > PREFILL_CHUNK tokens, so the prompt bucket (power of two) is prefilled in several chunks
    prompt = [int(x) for x in np.random.default_rng(7).integers(10, 800, size=local.PREFILL_CHUNK + 100)]
    pol = LocalPolicy.from_pretrained(tiny_ckpt, batch_buckets=(1,), min_prompt_bucket=64, min_new_tokens_bucket=4,
                                      stop_token_ids=[])
    g = pol.generate_ids([prompt], SamplingParams(temperature=0.0, max_new_tokens=3))[0]
    assert len(g.completion_ids) == 3
    logits = _full_forward_logits(tiny_ckpt, prompt, g.completion_ids, length=512)
    top = logits.max(-1, keepdims=True)
    ref = logits - top - np.log(np.exp(logits - top).sum(-1, keepdims=True))
    for t, tok in enumerate(g.completion_ids):
        assert tok == int(np.argmax(logits[t])), f"step {t}: greedy token after a chunked prefill is not the argmax"
        assert abs(g.logprobs[t] - ref[t, tok]) <= 1e-4, f"step {t}: {g.logprobs[t]} vs {ref[t, tok]}"
