"""Constrained action decoding (LocalPolicy constrained_actions, rl/policies/local.py) and the
trainer's masked log-probs (rl/train_step.py): every completion is `<action>` + one legal name +
a stop token, the recorded log-probs are those of the masked, renormalised distribution (checked
against an uncached full forward pass), the trainer trains on exactly the sampled tokens and scores
them under the same masks, and a short run of the CPU Tic-Tac-Toe preset only plays legal moves."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from glyphjax.harness.parse import parse_action
from rl.models.qwen3 import positions_from_mask
from rl.policies.base import FINISH_STOP, SamplingParams
from rl.policies.local import LocalPolicy
from rl.train_step import Sample, StepConfig, TrainStep

CELLS = ("A1", "B1", "C1", "A2", "B2", "C2", "A3", "B3", "C3")
LEGAL = [list(CELLS), ["B2"], ["A1", "C3"], list(CELLS[:4]), ["C1", "C2", "C3"], ["A3", "B3"]]
CONVS = [[{"role": "user", "content": f"Board {i}: {'X.O' * i} your move"}] for i in range(len(LEGAL))]
T = 0.7


@pytest.fixture(scope="module")
def policy(tiny_ckpt):
    return LocalPolicy.from_pretrained(tiny_ckpt, batch_buckets=(8,), constrained_actions=True)


@pytest.fixture(scope="module")
def completions(policy):
    return policy.complete(CONVS, SamplingParams(temperature=T, max_new_tokens=8, seed=3), legal_actions=LEGAL)


def _full_logits(policy, ids):
    """Last-position logits of one token sequence through the model without a cache."""
    model = policy.model
    toks = jnp.asarray([ids], jnp.int32)
    mask = jnp.ones_like(toks, bool)
    return np.asarray(model(toks, positions_from_mask(mask), mask)[0, -1], np.float64)


def test_constrained__every_completion_is_one_legal_name_and_a_stop_token(policy, completions):
    eos = set(policy.tokenizer.eos_token_ids)
    prefix = policy.tokenizer.hf.encode("<action>", add_special_tokens=False)
    for c, legal in zip(completions, LEGAL):
        p = parse_action(c.text, CELLS)
        assert p.ok and CELLS[p.action] in legal, (c.text, legal)
        name = CELLS[p.action]
        assert c.completion_ids == policy.tokenizer.hf.encode(name, add_special_tokens=False) + [c.completion_ids[-1]]
        assert c.completion_ids[-1] in eos and c.finish_reason == FINISH_STOP
        assert c.prompt_ids[-len(prefix):] == prefix  # `<action>` is prompt, never a completion token
    assert all(c.allowed[0] == [policy.tokenizer.hf.encode("B2", add_special_tokens=False)[0]]
               for c, legal in zip(completions, LEGAL) if legal == ["B2"])
    assert completions[1].logprobs == pytest.approx([0.0, 0.0, 0.0], abs=1e-6)  # one legal move: no choice


def test_constrained__recorded_logprobs_are_the_masked_distribution_of_a_full_forward(policy, completions):
    """Per token: log_softmax(logits / T) over the recorded allowed set, with the logits of an
    uncached forward pass of prompt + the tokens before it; the allowed sets follow the trie."""
    tok = policy.tokenizer.hf
    eos = list(policy.tokenizer.eos_token_ids)
    for c, legal in zip(completions, LEGAL):
        names = [tok.encode(n, add_special_tokens=False) for n in legal]
        for k, (t, lp, allowed) in enumerate(zip(c.completion_ids, c.logprobs, c.allowed)):
            done = c.completion_ids[:k]
            want_allowed = sorted({n[k] for n in names if len(n) > k and n[:k] == done}
                                  | (set(eos) if done in names else set()))
            assert allowed == want_allowed
            x = _full_logits(policy, c.prompt_ids + done)[allowed] / T
            ref = x - np.log(np.exp(x - x.max()).sum()) - x.max()
            assert lp == pytest.approx(ref[allowed.index(t)], abs=2e-4)


def test_constrained__greedy_takes_the_best_legal_token_and_bad_settings_are_refused(policy):
    out = policy.complete(CONVS[:2], SamplingParams(temperature=0.0, max_new_tokens=8), legal_actions=LEGAL[:2])
    c = out[0]
    x = _full_logits(policy, c.prompt_ids)
    assert c.completion_ids[0] == max(c.allowed[0], key=lambda i: x[i])
    with pytest.raises(ValueError, match="top_k=0 and top_p=1"):
        policy.complete(CONVS[:1], SamplingParams(top_p=0.9), legal_actions=LEGAL[:1])
    with pytest.raises(ValueError, match="raise policy.max_new_tokens"):
        policy.complete(CONVS[:1], SamplingParams(max_new_tokens=2), legal_actions=LEGAL[:1])


def test_constrained__trainer_trains_exactly_the_sampled_tokens_under_the_same_masks(policy, completions):
    """build_batch puts exactly the completion ids at the trainable positions, and the trainer's
    log-probs there equal the sampler's masked ones (so on-policy p = q); without the masks they
    would be the full-vocabulary log-softmax, which is lower."""
    step = TrainStep(policy.model, StepConfig(loss="dppo", temperature=T, window=True))
    samples = [Sample(c.prompt_ids, c.completion_ids, c.logprobs, 1.0, i, c.allowed) for i, c in enumerate(completions)]
    batch = step.build(samples, micro_batch_size=8, bucket=64)
    m = batch["mask"] > 0
    assert sorted(batch["targets"][m].tolist()) == sorted(t for c in completions for t in c.completion_ids)
    assert sorted(batch["q"][m].tolist()) == pytest.approx(sorted(x for c in completions for x in c.logprobs), abs=1e-6)
    lp = step.logprobs(batch)
    assert np.max(np.abs(lp[m] - batch["q"][m])) < 2e-4
    free = step.logprobs({k: v for k, v in batch.items() if k != "allowed"})
    assert np.all(free[m] < lp[m] + 1e-6) and np.any(free[m] < lp[m] - 1e-3)
    with pytest.raises(ValueError, match="outside its allowed set"):
        Sample([1, 2], [5], [0.0], 1.0, 0, [[6, 7]])


def test_constrained__tictactoe_preset_trains_on_legal_moves_with_ordered_advantages(tmp_path):
    """Two updates of +experiment=gamesmith_ttt_cpu at a small size: no parse failure, no illegal
    move (replayed against env.legal), every trained completion is a cell name + stop, advantages
    within a (group, seat) increase with the return, and the trainer's masked log-probs match the
    sampler's (logp_mismatch ~ 0)."""
    import glyphjax
    from glyphjax.core.rollout import reset_key, step_key
    from rl.train_cli import compose
    from rl.trainer import Trainer

    cfg = compose(["+experiment=gamesmith_ttt_cpu", "rl.group_size=4", "rl.groups_per_update=2",
                   "rl.rollout_budget=16", "ckpt_every=0", "log.console=false"], tmp_path)
    tr = Trainer(cfg)
    tok = tr.tokenizer.hf
    names = {tuple(tok.encode(n, add_special_tokens=False)): n for n in CELLS}
    env = glyphjax.make("zerosum/tictactoe/base")
    legal_fn, step_fn = jax.jit(env.legal), jax.jit(env.step)
    for _ in range(2):
        groups = tr.next_groups()
        records = tr.collect(groups, update_seed=tr.update)
        samples, adv, recs = tr.samples_from(records, groups)
        assert samples and all(r.parse_failures == 0 for r in recs)
        for s in samples:
            assert tuple(s.completion_ids[:-1]) in names and s.completion_ids[-1] in tr.tokenizer.eos_token_ids
        for r in recs[:4]:  # replay: every joint action was legal for the seat to move
            state = env.reset(reset_key(r.seed))
            for t, a in enumerate(r.replay_actions):
                assert bool(legal_fn(state)[a]), (r.seed, t, a)
                state, _ = step_fn(step_key(r.seed, t), state, a)
        group_of = {(task, s): g for g, (task, seeds) in enumerate(groups) for s in seeds}
        by_group: dict = {}
        for i, r in enumerate(recs):
            by_group.setdefault((group_of[r.task, r.seed], r.seat), []).append(i)
        for idx in by_group.values():
            for i in idx:
                for j in idx:
                    if recs[i].episode_return > recs[j].episode_return:
                        assert adv[i] > adv[j]
        batch = tr.step.build(samples, 32, bucket=64)
        metrics = tr.step.step(batch)
        assert metrics["logp_mismatch"] < 1e-4
        tr.update += 1
        tr.push_weights()
