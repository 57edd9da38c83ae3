"""Qwen3 dense decoder in Flax NNX, numerically matching Hugging Face `Qwen3ForCausalLM`.

One file, as in the Flax NNX examples: a config dataclass read from HF `config.json`, the modules,
and a `__call__` with an explicit KV cache. Module and parameter names mirror the HF checkpoint
(`model.layers.3.self_attn.q_proj.kernel` <-> `model.layers.3.self_attn.q_proj.weight`), so the
loader in `rl.models.hf_io` is a name map plus a transpose for linear kernels.

Parameters carry partition specs for a 2-axis mesh (see `docs/models.md`):
  * ``"data"``  -- the data / FSDP axis: batches are split along it and weights are sharded along it
    (each device holds a slice of every weight, gathered on use);
  * ``"model"`` -- the tensor-parallel axis: attention heads, MLP hidden units and the vocabulary are
    split along it.
Linear kernels are stored (in, out): q/k/v/gate/up and the untied lm_head are ``("data", "model")``,
o/down are ``("model", "data")``, the embedding table is ``("model", "data")`` and norms are
replicated. Build a sharded model with ``Qwen3ForCausalLM(config, rngs=..., mesh=mesh)`` (or
``hf_io.load_model(path, mesh=mesh)``); without a mesh the specs are kept as metadata only.

Attention masks: ``attention_mask[b, t]`` is 1 for real tokens and 0 for padding; a query attends to
the keys at the same or earlier *slots* (array index) that are real tokens. Rotary positions are
explicit (``positions[b, t]``), so left and right padding are both correct when positions count
real tokens only (``positions = cumsum(mask) - 1``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from typing import Any

import flax
import jax
import jax.numpy as jnp
from flax import nnx

DATA_AXIS = "data"
MODEL_AXIS = "model"
# Large finite negative for masked attention scores: a fully masked row (a padding query) gives a
# uniform, finite softmax instead of NaN.
_MASKED_SCORE = -1e30

_DTYPES = {"float32": jnp.float32, "bfloat16": jnp.bfloat16, "float16": jnp.float16}


@dataclasses.dataclass(frozen=True)
class Qwen3Config:
    """The architectural fields of a HF Qwen3 `config.json` (unknown keys kept in `extra_json`)."""

    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    rms_norm_eps: float = 1e-6
    rope_theta: float = 1_000_000.0
    tie_word_embeddings: bool = False
    attention_bias: bool = False
    max_position_embeddings: int = 40960
    dtype: str = "float32"  # the checkpoint's `torch_dtype` / `dtype`
    # Every other key of the original config.json (eos ids, initializer_range, ...), as a JSON
    # string so the dataclass stays hashable (NNX keeps it in the static graph definition).
    extra_json: str = "{}"

    @classmethod
    def from_hf_dict(cls, d: dict[str, Any], source: str = "config.json") -> "Qwen3Config":
        """Reads a HF config dict; raises ValueError naming `source` for unsupported variants."""
        model_type = d.get("model_type")
        if model_type != "qwen3":
            raise ValueError(f"{source}: model_type is {model_type!r}; only dense 'qwen3' checkpoints are supported")
        if d.get("hidden_act", "silu") != "silu":
            raise ValueError(f"{source}: hidden_act {d['hidden_act']!r} is not supported (Qwen3 uses 'silu')")
        if d.get("use_sliding_window", False):
            raise ValueError(f"{source}: sliding-window attention is not supported; set use_sliding_window=false")
        rope = d.get("rope_parameters") or d.get("rope_scaling") or {}
        rope_type = rope.get("rope_type", rope.get("type", "default"))
        if rope_type != "default":
            raise ValueError(f"{source}: rope_type {rope_type!r} is not supported (only plain RoPE)")
        rope_theta = d.get("rope_theta", rope.get("rope_theta"))
        missing = [k for k in ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
                               "num_attention_heads") if k not in d]
        if missing or rope_theta is None:
            raise ValueError(f"{source}: missing keys {missing + ([] if rope_theta is not None else ['rope_theta'])}")
        head_dim = d.get("head_dim") or d["hidden_size"] // d["num_attention_heads"]
        dtype = str(d.get("torch_dtype", d.get("dtype")) or "float32")
        if dtype not in _DTYPES:
            raise ValueError(f"{source}: dtype {dtype!r} is not one of {sorted(_DTYPES)}")
        known = {f.name for f in dataclasses.fields(cls)} | {"torch_dtype", "rope_parameters", "rope_scaling"}
        extra = {k: v for k, v in d.items() if k not in known}
        return cls(
            vocab_size=int(d["vocab_size"]),
            hidden_size=int(d["hidden_size"]),
            intermediate_size=int(d["intermediate_size"]),
            num_hidden_layers=int(d["num_hidden_layers"]),
            num_attention_heads=int(d["num_attention_heads"]),
            num_key_value_heads=int(d.get("num_key_value_heads") or d["num_attention_heads"]),
            head_dim=int(head_dim),
            rms_norm_eps=float(d.get("rms_norm_eps", 1e-6)),
            rope_theta=float(rope_theta),
            tie_word_embeddings=bool(d.get("tie_word_embeddings", False)),
            attention_bias=bool(d.get("attention_bias", False)),
            max_position_embeddings=int(d.get("max_position_embeddings", 40960)),
            dtype=dtype,
            extra_json=json.dumps(extra, sort_keys=True),
        )

    @classmethod
    def from_json(cls, path: str | os.PathLike) -> "Qwen3Config":
        """Reads `config.json` (a file, or a checkpoint directory containing one)."""
        path = os.fspath(path)
        if os.path.isdir(path):
            path = os.path.join(path, "config.json")
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{path} not found: a Hugging Face checkpoint directory needs a config.json")
        try:
            with open(path) as f:
                d = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path} is not valid JSON ({e}); re-export the checkpoint's config.json") from e
        return cls.from_hf_dict(d, source=path)

    def to_hf_dict(self) -> dict[str, Any]:
        """The config.json dict (HF + vLLM readable: rope_theta both top-level and in rope_parameters)."""
        d = json.loads(self.extra_json)
        d.update(
            model_type="qwen3",
            architectures=["Qwen3ForCausalLM"],
            vocab_size=self.vocab_size,
            hidden_size=self.hidden_size,
            intermediate_size=self.intermediate_size,
            num_hidden_layers=self.num_hidden_layers,
            num_attention_heads=self.num_attention_heads,
            num_key_value_heads=self.num_key_value_heads,
            head_dim=self.head_dim,
            rms_norm_eps=self.rms_norm_eps,
            rope_theta=self.rope_theta,
            rope_parameters={"rope_theta": self.rope_theta, "rope_type": "default"},
            tie_word_embeddings=self.tie_word_embeddings,
            attention_bias=self.attention_bias,
            max_position_embeddings=self.max_position_embeddings,
            hidden_act="silu",
            torch_dtype=self.dtype,
        )
        d.pop("dtype", None)
        return d

    @property
    def jax_dtype(self):
        return _DTYPES[self.dtype]


@flax.struct.dataclass
class KVCache:
    """Keys/values for every layer, in cache *slots* shared by the whole batch.

    `k`, `v`: [layers, batch, slots, kv_heads, head_dim]; `mask`: [batch, slots], True where the slot
    holds a real token; `end`: int32 scalar, number of slots written so far (the next call writes
    slots [end, end + T)).
    """

    k: jax.Array
    v: jax.Array
    mask: jax.Array
    end: jax.Array

    @property
    def max_len(self) -> int:
        return self.k.shape[2]


def _param(init, key, shape, dtype, spec):
    return nnx.Param(nnx.with_partitioning(init, spec)(key, shape, dtype))


class RMSNorm(nnx.Module):
    """y = w * x / sqrt(mean(x^2) + eps), statistics in float32 (as HF Qwen3RMSNorm)."""

    def __init__(self, dim: int, eps: float, dtype):
        self.weight = nnx.Param(nnx.with_partitioning(nnx.initializers.ones, (None,))(None, (dim,), dtype))
        self.eps = eps

    def __call__(self, x: jax.Array) -> jax.Array:
        in_dtype = x.dtype
        x32 = x.astype(jnp.float32)
        x32 = x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, axis=-1, keepdims=True) + self.eps)
        return self.weight[...] * x32.astype(in_dtype)


class Linear(nnx.Module):
    """x @ kernel (+ bias); kernel stored (in, out) with a partition spec."""

    def __init__(self, d_in: int, d_out: int, spec: tuple, *, bias: bool, dtype, rngs: nnx.Rngs, std: float):
        self.kernel = _param(nnx.initializers.normal(std), rngs.params(), (d_in, d_out), dtype, spec)
        self.bias = (nnx.Param(nnx.with_partitioning(nnx.initializers.zeros, (spec[1],))(None, (d_out,), dtype))
                     if bias else None)

    def __call__(self, x: jax.Array) -> jax.Array:
        y = jnp.einsum("...i,io->...o", x, self.kernel[...])
        if self.bias is not None:
            y = y + self.bias[...]
        return y


class Embedding(nnx.Module):
    def __init__(self, vocab: int, dim: int, *, dtype, rngs: nnx.Rngs, std: float):
        self.embedding = _param(nnx.initializers.normal(std), rngs.params(), (vocab, dim), dtype,
                                (MODEL_AXIS, DATA_AXIS))

    def __call__(self, ids: jax.Array) -> jax.Array:
        return jnp.take(self.embedding[...], ids, axis=0)


def rope_cos_sin(positions: jax.Array, head_dim: int, theta: float) -> tuple[jax.Array, jax.Array]:
    """cos/sin tables [..., head_dim] for `positions` (HF's default RoPE, float32)."""
    inv_freq = 1.0 / (theta ** (jnp.arange(0, head_dim, 2, dtype=jnp.float32) / head_dim))
    freqs = positions.astype(jnp.float32)[..., None] * inv_freq
    emb = jnp.concatenate([freqs, freqs], axis=-1)
    return jnp.cos(emb), jnp.sin(emb)


def apply_rope(x: jax.Array, cos: jax.Array, sin: jax.Array) -> jax.Array:
    """x: [B, T, heads, D]; cos/sin: [B, T, D]. Rotate-half convention (as HF)."""
    half = x.shape[-1] // 2
    rotated = jnp.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    cos = cos[:, :, None, :].astype(x.dtype)
    sin = sin[:, :, None, :].astype(x.dtype)
    return x * cos + rotated * sin


class Attention(nnx.Module):
    """Grouped-query attention with per-head q/k RMSNorm (Qwen3)."""

    def __init__(self, cfg: Qwen3Config, *, rngs: nnx.Rngs, std: float):
        dt = cfg.jax_dtype
        h, kv, d, e = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim, cfg.hidden_size
        col, row = (DATA_AXIS, MODEL_AXIS), (MODEL_AXIS, DATA_AXIS)
        b = cfg.attention_bias
        self.q_proj = Linear(e, h * d, col, bias=b, dtype=dt, rngs=rngs, std=std)
        self.k_proj = Linear(e, kv * d, col, bias=b, dtype=dt, rngs=rngs, std=std)
        self.v_proj = Linear(e, kv * d, col, bias=b, dtype=dt, rngs=rngs, std=std)
        self.o_proj = Linear(h * d, e, row, bias=b, dtype=dt, rngs=rngs, std=std)
        self.q_norm = RMSNorm(d, cfg.rms_norm_eps, dt)
        self.k_norm = RMSNorm(d, cfg.rms_norm_eps, dt)
        self.num_heads, self.num_kv_heads, self.head_dim = h, kv, d

    def __call__(self, x, cos, sin, key_mask, layer_cache):
        """x: [B, T, E]; key_mask: [B, T, S] (True = may attend); layer_cache: None or (k, v, layer, end)
        with the stacked cache k, v [L, B, S, KV, D]. Returns (out [B, T, E], updated (k, v) or None)."""
        bsz, t, _ = x.shape
        q = self.q_norm(self.q_proj(x).reshape(bsz, t, self.num_heads, self.head_dim))
        k = self.k_norm(self.k_proj(x).reshape(bsz, t, self.num_kv_heads, self.head_dim))
        v = self.v_proj(x).reshape(bsz, t, self.num_kv_heads, self.head_dim)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        new_kv = None
        if layer_cache is not None:
            cache_k, cache_v, layer, end = layer_cache  # stacked [L, B, S, KV, D]: update in place, then read
            cache_k = jax.lax.dynamic_update_slice(cache_k, k.astype(cache_k.dtype)[None], (layer, 0, end, 0, 0))
            cache_v = jax.lax.dynamic_update_slice(cache_v, v.astype(cache_v.dtype)[None], (layer, 0, end, 0, 0))
            new_kv = (cache_k, cache_v)
            k, v = cache_k[layer], cache_v[layer]
        groups = self.num_heads // self.num_kv_heads
        q = q.reshape(bsz, t, self.num_kv_heads, groups, self.head_dim)
        scores = jnp.einsum("btkgd,bskd->bkgts", q, k, preferred_element_type=jnp.float32)
        scores = scores * (self.head_dim ** -0.5)
        scores = jnp.where(key_mask[:, None, None, :, :], scores, _MASKED_SCORE)
        probs = jax.nn.softmax(scores, axis=-1).astype(v.dtype)
        out = jnp.einsum("bkgts,bskd->btkgd", probs, v)
        return self.o_proj(out.reshape(bsz, t, self.num_heads * self.head_dim)), new_kv


class MLP(nnx.Module):
    """SwiGLU: down(silu(gate(x)) * up(x))."""

    def __init__(self, cfg: Qwen3Config, *, rngs: nnx.Rngs, std: float):
        dt, e, f = cfg.jax_dtype, cfg.hidden_size, cfg.intermediate_size
        self.gate_proj = Linear(e, f, (DATA_AXIS, MODEL_AXIS), bias=False, dtype=dt, rngs=rngs, std=std)
        self.up_proj = Linear(e, f, (DATA_AXIS, MODEL_AXIS), bias=False, dtype=dt, rngs=rngs, std=std)
        self.down_proj = Linear(f, e, (MODEL_AXIS, DATA_AXIS), bias=False, dtype=dt, rngs=rngs, std=std)

    def __call__(self, x):
        return self.down_proj(jax.nn.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nnx.Module):
    def __init__(self, cfg: Qwen3Config, *, rngs: nnx.Rngs, std: float):
        self.self_attn = Attention(cfg, rngs=rngs, std=std)
        self.mlp = MLP(cfg, rngs=rngs, std=std)
        self.input_layernorm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps, cfg.jax_dtype)
        self.post_attention_layernorm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps, cfg.jax_dtype)

    def __call__(self, x, cos, sin, key_mask, layer_cache):
        h, new_kv = self.self_attn(self.input_layernorm(x), cos, sin, key_mask, layer_cache)
        x = x + h
        return x + self.mlp(self.post_attention_layernorm(x)), new_kv


class Qwen3Backbone(nnx.Module):
    """Embedding, decoder layers and the final norm (HF `Qwen3Model`)."""

    def __init__(self, cfg: Qwen3Config, *, rngs: nnx.Rngs, std: float):
        self.embed_tokens = Embedding(cfg.vocab_size, cfg.hidden_size, dtype=cfg.jax_dtype, rngs=rngs, std=std)
        self.layers = nnx.List([DecoderLayer(cfg, rngs=rngs, std=std) for _ in range(cfg.num_hidden_layers)])
        self.norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps, cfg.jax_dtype)


@contextlib.contextmanager
def _mesh_context(mesh):
    """Creates variables sharded on `mesh`, or (mesh=None) keeps the specs as metadata only."""
    if mesh is None:
        with nnx.use_eager_sharding(False):
            yield
    else:
        set_mesh = getattr(jax, "set_mesh", None) or jax.sharding.use_mesh
        with set_mesh(mesh):
            yield


class Qwen3ForCausalLM(nnx.Module):
    """The Qwen3 causal LM. `model(input_ids, positions, attention_mask)` -> float32 logits.

    With ``cache=`` (from `init_cache`) it returns ``(logits, new_cache)`` and writes the new tokens'
    keys/values at slots ``[cache.end, cache.end + T)``; use that for prefill + decode.
    """

    def __init__(self, config: Qwen3Config, *, rngs: nnx.Rngs, mesh: jax.sharding.Mesh | None = None,
                 init_std: float = 0.02):
        self.config = config
        with _mesh_context(mesh):
            self.model = Qwen3Backbone(config, rngs=rngs, std=init_std)
            self.lm_head = (None if config.tie_word_embeddings else
                            Linear(config.hidden_size, config.vocab_size, (DATA_AXIS, MODEL_AXIS), bias=False,
                                   dtype=config.jax_dtype, rngs=rngs, std=init_std))

    def init_cache(self, batch_size: int, max_len: int, dtype=None) -> KVCache:
        """An empty cache with `max_len` slots (prompt + new tokens) for `batch_size` rows."""
        c = self.config
        shape = (c.num_hidden_layers, batch_size, max_len, c.num_key_value_heads, c.head_dim)
        dtype = dtype or c.jax_dtype
        return KVCache(k=jnp.zeros(shape, dtype), v=jnp.zeros(shape, dtype),
                       mask=jnp.zeros((batch_size, max_len), bool), end=jnp.zeros((), jnp.int32))

    def hidden_states(self, input_ids: jax.Array, positions: jax.Array, attention_mask: jax.Array | None = None,
                      cache: KVCache | None = None) -> tuple[jax.Array, KVCache | None]:
        """Final-norm hidden states [B, T, E] (and the updated cache when one is given)."""
        bsz, t = input_ids.shape
        tok_mask = (jnp.ones((bsz, t), bool) if attention_mask is None else attention_mask.astype(bool))
        if cache is None:
            idx = jnp.arange(t)
            key_mask = (idx[None, :] <= idx[:, None])[None] & tok_mask[:, None, :]
        else:
            slots = jnp.arange(cache.max_len)
            new_mask = jax.lax.dynamic_update_slice(cache.mask, tok_mask, (0, cache.end))
            query_slot = cache.end + jnp.arange(t)
            key_mask = (slots[None, :] <= query_slot[:, None])[None] & new_mask[:, None, :]
        cos, sin = rope_cos_sin(positions, self.config.head_dim, self.config.rope_theta)
        x = self.model.embed_tokens(input_ids)
        cache_k = cache_v = None
        if cache is not None:
            cache_k, cache_v = cache.k, cache.v
        for i, layer in enumerate(self.model.layers):
            layer_cache = None if cache is None else (cache_k, cache_v, i, cache.end)
            x, new_kv = layer(x, cos, sin, key_mask, layer_cache)
            if new_kv is not None:
                cache_k, cache_v = new_kv
        x = self.model.norm(x)
        if cache is None:
            return x, None
        return x, KVCache(k=cache_k, v=cache_v, mask=new_mask, end=cache.end + t)

    def logits(self, hidden: jax.Array) -> jax.Array:
        """Vocabulary logits (float32) from final hidden states [..., E]."""
        if self.lm_head is None:
            w = self.model.embed_tokens.embedding[...]
            return jnp.einsum("...e,ve->...v", hidden, w, preferred_element_type=jnp.float32)
        return jnp.einsum("...e,ev->...v", hidden, self.lm_head.kernel[...], preferred_element_type=jnp.float32)

    def __call__(self, input_ids: jax.Array, positions: jax.Array, attention_mask: jax.Array | None = None,
                 cache: KVCache | None = None):
        """input_ids, positions, attention_mask: [B, T]. Returns logits [B, T, V] (no cache) or
        (logits, new_cache)."""
        hidden, new_cache = self.hidden_states(input_ids, positions, attention_mask, cache)
        logits = self.logits(hidden)
        return logits if cache is None else (logits, new_cache)


def positions_from_mask(attention_mask: jax.Array) -> jax.Array:
    """Rotary positions that count real tokens only: cumsum(mask) - 1, clipped at 0 (left/right pad)."""
    m = attention_mask.astype(jnp.int32)
    return jnp.maximum(jnp.cumsum(m, axis=-1) - 1, 0)
