"""`local` policy: the JAX Qwen3 model with a jitted, batched KV-cache sampler.

`LocalPolicy.complete(conversations, SamplingParams) -> list[Completion]`:
conversations are tokenised by the checkpoint's chat template, left-padded into a bucketed
[batch, prompt] array, prefilled in one forward pass, then decoded one token per step inside a
`lax.while_loop` that stops when every row has emitted a stop token or `max_new_tokens` is reached.

Sampling distribution (what `Completion.logprobs` reports, one value per completion token):
  logits / temperature -> top-k (keep the k largest) -> top-p (keep the smallest top set whose mass
  >= top_p, computed after top-k, as vLLM) -> softmax. Tokens are drawn from it and their log-prob
  under it is reported. temperature == 0 is greedy (argmax); there the sampling distribution is a
  point mass, so we report instead the model's plain log-softmax (temperature 1, no filtering) of the
  chosen token, which is what a trainer compares against.

Compiled programs are bounded: batch rounds up to `batch_buckets`, the prompt length and
`max_new_tokens` round up to powers of two (with minimums); temperature/top-p/top-k/max-new-tokens
and the seed are traced values. `compile_count` counts the programs built (also logged at INFO).
Randomness: the key of the n-th `complete` call is fold_in(PRNGKey(seed), n), so a run is
reproducible given its sequence of calls.

Constrained actions (`constrained_actions=True`, `policy.constrained_actions`; ours, for toy runs
where free text from a small model is almost never a legal move): the rollout engine then passes
each conversation's legal action names (`complete(..., legal_actions=[[name, ...], ...])`, from
`env.legal` of the seat to move). The assistant turn is prefilled with `<action>` (part of the
prompt ids, never trained) and the completion is one legal name's tokens followed by a stop token,
decoded through a token trie of the legal names (rl/policies/action_trie.py): at every step the
logits are restricted to the tokens that continue some legal name (or, where a whole name ends,
the stop tokens) and renormalised, `log_softmax(logits / T)` over that set. The token is drawn from
that masked distribution, and its log-prob under it is what `Completion.logprobs` reports;
`Completion.allowed` records each step's allowed set so the trainer can score the same tokens under
the same masks (rl/train_step.py). The text is `<action>NAME</action>`. Top-k/top-p are not
applied under the constraint (a setting other than off is refused); temperature 0 takes the
argmax of the allowed tokens and reports the masked log-softmax at temperature 1.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
from pathlib import Path
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from rl.models.qwen3 import Qwen3ForCausalLM, positions_from_mask
from rl.policies.action_trie import ActionTrie
from rl.policies.base import FINISH_LENGTH, FINISH_STOP, Completion, Conversation, SamplingParams
from rl.tokenizer import ChatTokenizer

log = logging.getLogger(__name__)

DEFAULT_BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
# Prompt tokens per prefill call (prompt buckets are powers of two >= 64, so chunks divide them).
PREFILL_CHUNK = 256


def _next_pow2(n: int, minimum: int) -> int:
    n = max(int(n), int(minimum), 1)
    return 1 << (n - 1).bit_length()


def sampling_logprobs(logits: jax.Array, temperature: jax.Array, top_k: jax.Array, top_p: jax.Array) -> jax.Array:
    """Log-probs [B, V] of the sampling distribution (temperature, then top-k, then top-p);
    -inf outside its support. temperature <= 0 is treated as 1 here (greedy is handled by the caller)."""
    vocab = logits.shape[-1]
    t = jnp.where(temperature > 0, temperature, 1.0)
    x = logits.astype(jnp.float32) / t
    sorted_desc = -jnp.sort(-x, axis=-1)
    k = jnp.where(top_k > 0, jnp.minimum(top_k, vocab), vocab)
    rank = jnp.arange(vocab)
    sorted_kept = jnp.where(rank[None, :] < k, sorted_desc, -jnp.inf)
    p_sorted = jax.nn.softmax(sorted_kept, axis=-1)
    mass_before = jnp.cumsum(p_sorted, axis=-1) - p_sorted
    keep_sorted = (rank[None, :] < k) & ((mass_before < top_p) | (rank[None, :] == 0))
    n_keep = jnp.sum(keep_sorted, axis=-1, keepdims=True)
    threshold = jnp.take_along_axis(sorted_desc, n_keep - 1, axis=-1)
    x = jnp.where(x >= threshold, x, -jnp.inf)
    return jax.nn.log_softmax(x, axis=-1)


def sample_tokens(key: jax.Array, logits: jax.Array, temperature, top_k, top_p) -> tuple[jax.Array, jax.Array]:
    """(token [B], log-prob [B]) under the sampling distribution (see module docstring for greedy)."""
    filtered = (top_k > 0) | (top_p < 1.0)  # the vocabulary sort only when top-k/top-p is on
    logp = jax.lax.cond(filtered, lambda x: sampling_logprobs(x, temperature, top_k, top_p),
                        lambda x: jax.nn.log_softmax(x.astype(jnp.float32) / jnp.where(temperature > 0, temperature,
                                                                                         1.0), axis=-1), logits)
    sampled = jax.random.categorical(key, logp, axis=-1)
    greedy = jnp.argmax(logits, axis=-1)
    tokens = jnp.where(temperature > 0, sampled, greedy).astype(jnp.int32)
    plain = jax.nn.log_softmax(logits.astype(jnp.float32), axis=-1)
    lp = jnp.where(temperature > 0, jnp.take_along_axis(logp, tokens[:, None], axis=-1)[:, 0],
                   jnp.take_along_axis(plain, tokens[:, None], axis=-1)[:, 0])
    return tokens, lp


# Every trace of the sampler program, (batch, prompt, new) per entry: one entry = one compile.
# The program is shared by every LocalPolicy with the same architecture (graphdef is a static arg).
_TRACES: list[tuple[int, int, int]] = []


@functools.partial(jax.jit, static_argnames=("graphdef", "new_bucket", "pad_id"))
def _generate_program(graphdef, state, tokens, mask, active, stop_ids, max_new, temperature, top_k, top_p, key,
                      *, new_bucket: int, pad_id: int):
    """Prefill + while_loop decode. Returns (tokens [B, N], logprobs [B, N], lengths [B], hit_stop [B])."""
    _TRACES.append((tokens.shape[0], tokens.shape[1], new_bucket))
    log.info("LocalPolicy: compiling sampler for batch=%d prompt=%d new=%d (program #%d in this process)",
             tokens.shape[0], tokens.shape[1], new_bucket, len(_TRACES))
    model = nnx.merge(graphdef, state)
    bsz, plen = tokens.shape
    cache = model.init_cache(bsz, plen + new_bucket)
    positions = positions_from_mask(mask)
    # Chunked prefill: the attention scores of one call are [B, heads, T, slots] float32; for a
    # whole 2k-token prompt that is ~1 GB per layer and memory-bound on CPU (16 x 2048 prompts:
    # 16 s unchunked vs 8 s in 256-token chunks). Chunks write the cache in order, so the result
    # is the same as one call.
    chunk = min(plen, PREFILL_CHUNK)
    for c in range(0, plen, chunk):
        hidden, cache = model.hidden_states(tokens[:, c:c + chunk], positions[:, c:c + chunk], mask[:, c:c + chunk],
                                            cache)
    logits = model.logits(hidden[:, -1])
    next_pos = jnp.sum(mask, axis=-1).astype(jnp.int32)
    out_tokens = jnp.full((bsz, new_bucket), pad_id, jnp.int32)
    out_lp = jnp.zeros((bsz, new_bucket), jnp.float32)
    carry = (jnp.int32(0), logits, cache, next_pos, ~active, jnp.zeros(bsz, bool), jnp.zeros(bsz, jnp.int32),
             out_tokens, out_lp)

    def cond(c):
        step, _, _, _, done, *_ = c
        return (step < max_new) & ~jnp.all(done)

    def body(c):
        step, logits, cache, pos, done, hit_stop, lengths, out_tokens, out_lp = c
        tok, lp = sample_tokens(jax.random.fold_in(key, step), logits, temperature, top_k, top_p)
        live = ~done
        tok = jnp.where(live, tok, pad_id)
        out_tokens = jax.lax.dynamic_update_slice(out_tokens, tok[:, None], (0, step))
        out_lp = jax.lax.dynamic_update_slice(out_lp, jnp.where(live, lp, 0.0)[:, None], (0, step))
        lengths = lengths + live.astype(jnp.int32)
        is_stop = live & jnp.any(tok[:, None] == stop_ids[None, :], axis=-1)
        hit_stop = hit_stop | is_stop
        hidden, cache = model.hidden_states(tok[:, None], pos[:, None], live[:, None], cache)
        logits = model.logits(hidden[:, 0])
        return (step + 1, logits, cache, pos + 1, done | is_stop, hit_stop, lengths, out_tokens, out_lp)

    _, _, _, _, _, hit_stop, lengths, out_tokens, out_lp = jax.lax.while_loop(cond, body, carry)
    return out_tokens, out_lp, lengths, hit_stop


@functools.partial(jax.jit, static_argnames=("graphdef", "cache_len"))
def _prefill_program(graphdef, state, tokens, mask, *, cache_len: int):
    """Constrained decoding, step 0: the prompt through the model -> (last logits, cache, next position)."""
    model = nnx.merge(graphdef, state)
    cache = model.init_cache(tokens.shape[0], cache_len)
    positions = positions_from_mask(mask)
    chunk = min(tokens.shape[1], PREFILL_CHUNK)  # chunked as in _generate_program
    for c in range(0, tokens.shape[1], chunk):
        hidden, cache = model.hidden_states(tokens[:, c:c + chunk], positions[:, c:c + chunk], mask[:, c:c + chunk],
                                            cache)
    return model.logits(hidden[:, -1]), cache, jnp.sum(mask, axis=-1).astype(jnp.int32)


@functools.partial(jax.jit, static_argnames=("graphdef",))
def _decode_program(graphdef, state, tok, pos, live, cache):
    """Constrained decoding: one token per row through the cache -> (next logits, cache)."""
    model = nnx.merge(graphdef, state)
    hidden, cache = model.hidden_states(tok[:, None], pos[:, None], live[:, None], cache)
    return model.logits(hidden[:, 0]), cache


@jax.jit
def _masked_pick(logits, idx, temperature, key):
    """Draw one of each row's allowed tokens `idx` [B, A] (-1 = padding) from the masked,
    renormalised distribution log_softmax(logits / T) over them -> (token [B], its log-prob [B]).
    temperature 0: the argmax, with the masked log-softmax at temperature 1."""
    valid = idx >= 0
    raw = jnp.take_along_axis(logits.astype(jnp.float32), jnp.maximum(idx, 0), axis=-1)
    raw = jnp.where(valid, raw, -jnp.inf)
    lp = jax.nn.log_softmax(raw / jnp.where(temperature > 0, temperature, 1.0), axis=-1)
    j = jnp.where(temperature > 0, jax.random.categorical(key, lp, axis=-1), jnp.argmax(raw, axis=-1))
    picked = jnp.take_along_axis(lp, j[:, None], axis=-1)[:, 0]
    return jnp.take_along_axis(idx, j[:, None], axis=-1)[:, 0], picked


@dataclasses.dataclass
class Generation:
    """Raw sampler output for one prompt."""

    completion_ids: list[int]
    logprobs: list[float]
    finish_reason: str


class LocalPolicy:
    """Batched sampler over a `Qwen3ForCausalLM` and a `ChatTokenizer` (see the module docstring)."""

    name = "local"
    accepts_images = False  # a text-only model: harness.obs_format=pixels is refused

    def __init__(self, model: Qwen3ForCausalLM, tokenizer: ChatTokenizer, *,
                 batch_buckets: Sequence[int] = DEFAULT_BATCH_BUCKETS, min_prompt_bucket: int = 64,
                 min_new_tokens_bucket: int = 16, stop_token_ids: Sequence[int] | None = None,
                 constrained_actions: bool = False):
        """stop_token_ids: ids that end a row (default: the tokenizer's eos ids; [] = never stop early).
        constrained_actions: ask the rollout engine for each turn's legal action names and decode one
        of them (see the module docstring)."""
        if not batch_buckets or any(b < 1 for b in batch_buckets):
            raise ValueError(f"batch_buckets must be positive integers, got {batch_buckets!r}")
        self.tokenizer = tokenizer
        self.config = model.config
        self.batch_buckets = tuple(sorted(int(b) for b in batch_buckets))
        self.min_prompt_bucket = int(min_prompt_bucket)
        self.min_new_tokens_bucket = int(min_new_tokens_bucket)
        self._graphdef, self._state = nnx.split(model)
        self.stop_token_ids = tuple(int(i) for i in (tokenizer.eos_token_ids if stop_token_ids is None
                                                     else stop_token_ids))
        self._stop_ids = jnp.asarray(self.stop_token_ids, jnp.int32).reshape(-1)
        self._compiles = 0
        self._calls = 0
        self.constrained_actions = bool(constrained_actions)
        self._tries: dict[tuple[str, ...], tuple[ActionTrie, dict[tuple[int, ...], str]]] = {}
        self._action_prefix: list[int] | None = None

    # -- construction ----------------------------------------------------------------------------

    @classmethod
    def from_pretrained(cls, path: str | os.PathLike, *, dtype: str | None = None, mesh=None,
                        **kwargs) -> "LocalPolicy":
        """Loads model (rl.models.hf_io) and tokenizer from one HF checkpoint directory."""
        from rl.models.hf_io import load_model

        return cls(load_model(path, dtype=dtype, mesh=mesh), ChatTokenizer.from_pretrained(path), **kwargs)

    @classmethod
    def from_config(cls, policy_cfg, model_path: str | os.PathLike | None = None, *, seed: int = 0) -> "LocalPolicy":
        """From `conf/policy/local.yaml` (a mapping) and a model path (None = the tiny checkpoint)."""
        from rl.tiny import resolve_model_path

        get = policy_cfg.get
        return cls.from_pretrained(resolve_model_path(model_path, seed=seed), dtype=get("dtype"),
                                   batch_buckets=tuple(get("batch_buckets") or DEFAULT_BATCH_BUCKETS),
                                   min_prompt_bucket=int(get("min_prompt_bucket") or 64),
                                   min_new_tokens_bucket=int(get("min_new_tokens_bucket") or 16),
                                   constrained_actions=bool(get("constrained_actions") or False))

    def update_model(self, model: Qwen3ForCausalLM) -> None:
        """Swap in new weights (same architecture) without recompiling, e.g. after a trainer step."""
        graphdef, state = nnx.split(model)
        if graphdef != self._graphdef:  # e.g. built elsewhere with other sharding metadata: match by values
            ours = list(nnx.to_flat_state(self._state))
            theirs = dict(nnx.to_flat_state(state))

            def sig(v):
                x = v.get_value()
                return tuple(x.shape), str(x.dtype)

            if set(theirs) != {p for p, _ in ours} or any(sig(v) != sig(theirs[p]) for p, v in ours):
                raise ValueError("update_model needs a model with the same architecture and dtypes as the policy's "
                                 "(same config.json and dtype)")
            state = nnx.from_flat_state([(p, v.replace(value=theirs[p].get_value())) for p, v in ours])
        self._state = state

    @property
    def call_index(self) -> int:
        """How many `complete`/`generate_ids` calls drew keys so far (the RNG stream position).
        Save it with a run checkpoint and set it back on resume to continue the same samples."""
        return self._calls

    @call_index.setter
    def call_index(self, value: int) -> None:
        self._calls = int(value)

    @property
    def model(self) -> Qwen3ForCausalLM:
        return nnx.merge(self._graphdef, self._state)

    @property
    def compile_count(self) -> int:
        """Number of sampler programs this policy's calls compiled (one per new bucket shape; a
        program already compiled for an identical architecture in this process is reused)."""
        return self._compiles

    # -- host side -------------------------------------------------------------------------------

    def _batch_bucket(self, n: int) -> int:
        for b in self.batch_buckets:
            if b >= n:
                return b
        return self.batch_buckets[-1]

    def generate_ids(self, prompts: Sequence[Sequence[int]], sampling: SamplingParams) -> list[Generation]:
        """Samples a completion for each prompt (token ids); chunks batches above the largest bucket."""
        if not prompts:
            return []
        if any(len(p) == 0 for p in prompts):
            raise ValueError("every prompt needs at least one token (got an empty prompt)")
        limit = self.config.max_position_embeddings
        longest = max(len(p) for p in prompts)
        max_new = min(int(sampling.max_new_tokens), limit - longest)
        if max_new < 1:
            raise ValueError(f"a prompt of {longest} tokens leaves no room to generate within the model's "
                             f"context ({limit} tokens); shorten the prompt (e.g. a smaller history window)")
        key = jax.random.fold_in(jax.random.PRNGKey(sampling.seed), self._calls)
        self._calls += 1
        out: list[Generation] = []
        chunk = self.batch_buckets[-1]
        for c, start in enumerate(range(0, len(prompts), chunk)):
            out.extend(self._generate_chunk(prompts[start:start + chunk], sampling, max_new,
                                            jax.random.fold_in(key, c)))
        return out

    def _generate_chunk(self, prompts, sampling: SamplingParams, max_new: int, key) -> list[Generation]:
        n = len(prompts)
        bsz = self._batch_bucket(n)
        plen = _next_pow2(max(len(p) for p in prompts), self.min_prompt_bucket)
        new_bucket = _next_pow2(max_new, self.min_new_tokens_bucket)
        tokens = np.full((bsz, plen), self.tokenizer.pad_token_id, np.int32)
        mask = np.zeros((bsz, plen), bool)
        for i, p in enumerate(prompts):  # left padding: every prompt ends at column plen - 1
            tokens[i, plen - len(p):] = p
            mask[i, plen - len(p):] = True
        active = np.arange(bsz) < n
        traces = len(_TRACES)
        out_tokens, out_lp, lengths, hit_eos = _generate_program(
            self._graphdef, self._state, jnp.asarray(tokens), jnp.asarray(mask), jnp.asarray(active),
            self._stop_ids, jnp.int32(max_new), jnp.float32(sampling.temperature), jnp.int32(sampling.top_k),
            jnp.float32(sampling.top_p), key, new_bucket=new_bucket, pad_id=int(self.tokenizer.pad_token_id))
        self._compiles += len(_TRACES) - traces
        out_tokens, out_lp, lengths, hit_eos = jax.device_get((out_tokens, out_lp, lengths, hit_eos))
        return [Generation(completion_ids=[int(t) for t in out_tokens[i, :lengths[i]]],
                           logprobs=[float(x) for x in out_lp[i, :lengths[i]]],
                           finish_reason=FINISH_STOP if hit_eos[i] else FINISH_LENGTH) for i in range(n)]

    def _text(self, g: Generation) -> str:
        ids = g.completion_ids[:-1] if g.finish_reason == FINISH_STOP else g.completion_ids
        return self.tokenizer.decode(ids)

    def complete(self, conversations: Sequence[Conversation], sampling: SamplingParams,
                 legal_actions: Sequence[Sequence[str]] | None = None) -> list[Completion]:
        """Chat-template each conversation, sample, and return completions with ids and log-probs.
        With `legal_actions` (one list of names per conversation): constrained decoding of one legal
        name each (module docstring)."""
        if any(not isinstance(m["content"], str) for c in conversations for m in c):
            raise ValueError("the local JAX policy is text-only: it cannot read image messages "
                             "(harness.obs_format=pixels); use policy=vllm with a vision model, or "
                             "harness.obs_format=glyph|native_text")
        if legal_actions is not None:
            return self._complete_constrained(conversations, sampling, legal_actions)
        prompts = self.tokenizer.encode_conversations(conversations)
        gens = self.generate_ids(prompts, sampling)
        return [Completion(text=self._text(g), prompt_ids=list(p),
                           completion_ids=g.completion_ids, logprobs=g.logprobs, finish_reason=g.finish_reason)
                for p, g in zip(prompts, gens)]


    # -- constrained actions ---------------------------------------------------------------------

    def _trie(self, names: Sequence[str]) -> tuple[ActionTrie, dict[tuple[int, ...], str]]:
        """The token trie of these legal names (cached per name set) and token sequence -> name."""
        key = tuple(names)
        if key not in self._tries:
            if not key:
                raise ValueError("constrained decoding got a turn with no legal action")
            if not self.stop_token_ids:
                raise ValueError("constrained decoding ends each name with a stop token; this policy has none")
            seqs = {tuple(self.tokenizer.hf.encode(n, add_special_tokens=False)): n for n in key}
            if len(seqs) != len(set(key)):
                raise ValueError(f"two legal action names of {list(key)} tokenize to the same ids")
            trie = ActionTrie(list(seqs), self.config.vocab_size, self.stop_token_ids)
            self._tries[key] = (trie, seqs)
        return self._tries[key]

    def _complete_constrained(self, conversations, sampling: SamplingParams,
                              legal_actions: Sequence[Sequence[str]]) -> list[Completion]:
        if len(legal_actions) != len(conversations):
            raise ValueError(f"legal_actions has {len(legal_actions)} entries for {len(conversations)} conversations")
        if sampling.top_k > 0 or sampling.top_p < 1.0:
            raise ValueError("constrained action decoding applies temperature only; set top_k=0 and top_p=1 "
                             f"(got top_k={sampling.top_k}, top_p={sampling.top_p})")
        if self._action_prefix is None:
            self._action_prefix = self.tokenizer.hf.encode("<action>", add_special_tokens=False)
        prompts = [list(p) + self._action_prefix for p in self.tokenizer.encode_conversations(conversations)]
        tries = [self._trie(names) for names in legal_actions]
        depth = max(len(seq) for _, seqs in tries for seq in seqs) + 1  # the longest name and its stop token
        if depth > sampling.max_new_tokens:
            raise ValueError(f"the longest legal action name takes {depth} tokens with its stop token, more than "
                             f"max_new_tokens={sampling.max_new_tokens}; raise policy.max_new_tokens")
        limit = self.config.max_position_embeddings
        if max(len(p) for p in prompts) + depth > limit:
            raise ValueError(f"a prompt of {max(len(p) for p in prompts)} tokens leaves no room for an action name "
                             f"within the model's context ({limit} tokens)")
        key = jax.random.fold_in(jax.random.PRNGKey(sampling.seed), self._calls)
        self._calls += 1
        out: list[Completion] = []
        chunk = self.batch_buckets[-1]
        for c, start in enumerate(range(0, len(prompts), chunk)):
            out.extend(self._constrained_chunk(prompts[start:start + chunk], tries[start:start + chunk], depth,
                                               sampling, jax.random.fold_in(key, c)))
        return out

    def _constrained_chunk(self, prompts, tries, depth: int, sampling: SamplingParams, key) -> list[Completion]:
        n = len(prompts)
        bsz = self._batch_bucket(n)
        plen = _next_pow2(max(len(p) for p in prompts), self.min_prompt_bucket)
        pad = int(self.tokenizer.pad_token_id)
        tokens = np.full((bsz, plen), pad, np.int32)
        mask = np.zeros((bsz, plen), bool)
        for i, p in enumerate(prompts):
            tokens[i, plen - len(p):] = p
            mask[i, plen - len(p):] = True
        mask[n:, -1] = True  # padding rows hold one token so their (unused) attention is defined
        logits, cache, pos = _prefill_program(self._graphdef, self._state, jnp.asarray(tokens), jnp.asarray(mask),
                                              cache_len=plen + _next_pow2(depth, 8))
        nodes = [0] * n
        ids: list[list[int]] = [[] for _ in range(n)]
        lps: list[list[float]] = [[] for _ in range(n)]
        allowed: list[list[list[int]]] = [[] for _ in range(n)]
        temperature = jnp.float32(sampling.temperature)
        for step in range(depth):
            live = [i for i in range(n) if nodes[i] >= 0]
            if not live:
                break
            width = _next_pow2(max(len(tries[i][0].next_tokens(nodes[i])) for i in live), 16)  # few compiles
            idx = np.full((bsz, width), -1, np.int32)
            idx[:, 0] = pad  # finished and padding rows draw a dummy token, never recorded
            for i in live:
                nxt = tries[i][0].next_tokens(nodes[i])
                idx[i, :len(nxt)] = nxt
                idx[i, len(nxt):] = -1
            tok, lp = jax.device_get(_masked_pick(logits, jnp.asarray(idx), temperature,
                                                  jax.random.fold_in(key, step)))
            for i in live:
                t = int(tok[i])
                ids[i].append(t)
                lps[i].append(float(lp[i]))
                allowed[i].append(tries[i][0].next_tokens(nodes[i]))
                nodes[i] = tries[i][0].step(nodes[i], t)
            if all(nodes[i] < 0 for i in range(n)):
                break
            is_live = np.zeros(bsz, bool)
            is_live[[i for i in range(n) if nodes[i] >= 0]] = True
            logits, cache = _decode_program(self._graphdef, self._state, jnp.asarray(np.where(is_live, tok, pad)),
                                            pos, jnp.asarray(is_live), cache)
            pos = pos + 1
        out = []
        for i in range(n):
            name = tries[i][1][tuple(ids[i][:-1])]
            out.append(Completion(text=f"<action>{name}</action>", prompt_ids=list(prompts[i]), completion_ids=ids[i],
                                  logprobs=lps[i], finish_reason=FINISH_STOP, allowed=allowed[i]))
        return out


def load_local_policy(path: str | os.PathLike | Path | None = None, **kwargs) -> LocalPolicy:
    """A `LocalPolicy` for checkpoint `path` (None = the tiny checkpoint, built on first use)."""
    from rl.tiny import resolve_model_path

    return LocalPolicy.from_pretrained(resolve_model_path(path), **kwargs)
