"""Qwen3 NNX model vs transformers (torch) on the tiny checkpoint; HF checkpoint IO."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch
from flax import nnx

from rl.models import hf_io
from rl.models.qwen3 import Qwen3Config, positions_from_mask


def _padded_batch(vocab: int, seed: int = 0):
    """Rows: full length, left-padded, right-padded, short left-padded."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(3, vocab, (4, 11))
    mask = np.ones((4, 11), np.int64)
    mask[1, :4] = 0
    mask[2, 7:] = 0
    mask[3, :9] = 0
    return ids, mask


def _hf_logits(ckpt, ids, mask, dtype=torch.float32):
    from transformers import AutoModelForCausalLM

    hf = AutoModelForCausalLM.from_pretrained(ckpt, dtype=dtype).eval()
    pos = np.maximum(np.cumsum(mask, -1) - 1, 0)  # real-token positions, computed independently
    with torch.no_grad():
        out = hf(input_ids=torch.tensor(ids), attention_mask=torch.tensor(mask), position_ids=torch.tensor(pos))
    return out.logits.float().numpy(), pos


@pytest.mark.parametrize("which", ["tiny_ckpt", "tiny_ckpt_untied"])
def test_qwen3__logits_match_transformers_on_padded_batch(which, request):
    ckpt = request.getfixturevalue(which)
    model = hf_io.load_model(ckpt)
    assert model.config.tie_word_embeddings == (which == "tiny_ckpt")
    ids, mask = _padded_batch(model.config.vocab_size)
    ref, pos = _hf_logits(ckpt, ids, mask)
    ours = np.asarray(model(jnp.asarray(ids), jnp.asarray(pos), jnp.asarray(mask)))
    assert np.array_equal(np.asarray(positions_from_mask(jnp.asarray(mask))), pos)
    real = mask.astype(bool)
    err = np.abs(ours - ref)[real]
    assert err.max() <= 1e-5, f"{which}: max |logit diff| {err.max():.2e} at real tokens (row, pos) " \
                              f"{np.argwhere(np.abs(ours - ref).max(-1) * real == err.max())}"
    assert np.isfinite(ours).all(), f"{which}: non-finite logits at padding positions"


def test_qwen3__config_reads_rope_theta_and_rejects_other_models(tiny_ckpt, tmp_path):
    raw = json.loads((tiny_ckpt / "config.json").read_text())
    cfg = Qwen3Config.from_json(tiny_ckpt)
    assert cfg.rope_theta == raw["rope_theta"] == 1_000_000.0
    assert (cfg.head_dim, cfg.num_key_value_heads, cfg.num_attention_heads) == (32, 2, 4)
    (tmp_path / "config.json").write_text(json.dumps({**raw, "model_type": "qwen3_moe"}))
    with pytest.raises(ValueError, match="qwen3_moe"):
        Qwen3Config.from_json(tmp_path)


def _tensors_equal_bitwise(a: dict, b: dict) -> list[str]:
    bad = [k for k in a if k not in b or a[k].dtype != b[k].dtype or a[k].shape != b[k].shape
           or a[k].tobytes() != b[k].tobytes()]
    return bad + [k for k in b if k not in a]


@pytest.mark.parametrize("shard_bytes", [5 * 2**30, 100_000])
def test_hf_io__save_load_round_trips_exactly(tiny_ckpt_untied, tmp_path, shard_bytes):
    model = hf_io.load_model(tiny_ckpt_untied)
    out = hf_io.save_model(model, tmp_path / "saved", max_shard_bytes=shard_bytes,
                           copy_tokenizer_from=tiny_ckpt_untied)
    sharded = (out / hf_io.INDEX_FILE).is_file()
    assert sharded == (shard_bytes < 1_000_000), f"shard_bytes={shard_bytes}: index present={sharded}"
    if sharded:
        assert len(hf_io.checkpoint_weight_files(out)) > 1
    again = hf_io.load_model(out)
    bad = _tensors_equal_bitwise(hf_io.model_tensors(model), hf_io.model_tensors(again))
    assert not bad, f"shard_bytes={shard_bytes}: tensors differ after save -> load: {bad[:5]}"
    # Also identical to the original checkpoint's tensors (written by transformers).
    bad = _tensors_equal_bitwise(hf_io.read_checkpoint_tensors(tiny_ckpt_untied), hf_io.model_tensors(again))
    assert not bad, f"shard_bytes={shard_bytes}: saved tensors differ from the transformers checkpoint: {bad[:5]}"
    assert again.config == model.config


def test_hf_io__saved_checkpoint_loads_in_transformers(tiny_ckpt, tmp_path):
    model = hf_io.load_model(tiny_ckpt)
    out = hf_io.save_model(model, tmp_path / "saved", copy_tokenizer_from=tiny_ckpt)
    ids, mask = _padded_batch(model.config.vocab_size, seed=1)
    ref_orig, pos = _hf_logits(tiny_ckpt, ids, mask)
    ref_saved, _ = _hf_logits(out, ids, mask)
    real = mask.astype(bool)
    assert np.array_equal(ref_orig[real], ref_saved[real]), "transformers logits changed after our save"
    assert json.loads((out / "config.json").read_text())["rope_theta"] == 1_000_000.0


def test_hf_io__bf16_checkpoint_loads(tiny_ckpt, tmp_path):
    from transformers import AutoModelForCausalLM

    hf = AutoModelForCausalLM.from_pretrained(tiny_ckpt, dtype=torch.bfloat16)
    hf.save_pretrained(tmp_path / "bf16")
    model = hf_io.load_model(tmp_path / "bf16")
    assert model.config.dtype == "bfloat16"
    emb = np.asarray(model.model.embed_tokens.embedding[...])
    assert emb.dtype == jnp.bfloat16
    ref_bits = hf.model.embed_tokens.weight.detach().view(torch.int16).numpy()
    assert np.array_equal(emb.view(np.int16), ref_bits), "bf16 embedding bits differ from the torch checkpoint"
    q = np.asarray(model.model.layers[1].self_attn.q_proj.kernel[...]).T
    assert np.array_equal(q.view(np.int16), hf.model.layers[1].self_attn.q_proj.weight.detach().view(torch.int16).numpy())
    # bf16 forward stays close to the fp32 reference (bf16 rounding only).
    ids, mask = _padded_batch(model.config.vocab_size)
    ref, pos = _hf_logits(tiny_ckpt, ids, mask)
    ours = np.asarray(model(jnp.asarray(ids), jnp.asarray(pos), jnp.asarray(mask)))
    real = mask.astype(bool)
    assert np.abs(ours - ref)[real].max() < 0.25, "bf16 logits far from the fp32 reference"
    # ... and the same checkpoint loaded as fp32 is the exact upcast of the bf16 weights.
    up = hf_io.load_model(tmp_path / "bf16", dtype="float32")
    assert np.array_equal(np.asarray(up.model.embed_tokens.embedding[...]), emb.astype(np.float32))


def test_hf_io__missing_config_names_the_file(tiny_ckpt, tmp_path):
    bad = tmp_path / "no_config"
    bad.mkdir()
    (bad / "model.safetensors").write_bytes((tiny_ckpt / "model.safetensors").read_bytes())
    with pytest.raises(FileNotFoundError, match=str(bad / "config.json")):
        hf_io.load_model(bad)


@pytest.mark.parametrize("damage", ["truncated", "garbage_header", "empty"])
def test_hf_io__corrupt_safetensors_names_the_file(tiny_ckpt, tmp_path, damage):
    bad = tmp_path / damage
    bad.mkdir()
    (bad / "config.json").write_text((tiny_ckpt / "config.json").read_text())
    raw = (tiny_ckpt / "model.safetensors").read_bytes()
    data = {"truncated": raw[: len(raw) // 2], "garbage_header": b"\x10\x00\x00\x00\x00\x00\x00\x00{not json!!!!!!}",
            "empty": b""}[damage]
    (bad / "model.safetensors").write_bytes(data)
    with pytest.raises(hf_io.CheckpointError, match=str(bad / "model.safetensors")):
        hf_io.load_model(bad)


def test_hf_io__missing_tensor_is_named(tiny_ckpt, tmp_path):
    bad = tmp_path / "missing"
    bad.mkdir()
    (bad / "config.json").write_text((tiny_ckpt / "config.json").read_text())
    tensors = dict(hf_io.read_checkpoint_tensors(tiny_ckpt))
    del tensors["model.layers.1.mlp.up_proj.weight"]
    hf_io.write_safetensors(bad / "model.safetensors", tensors)
    with pytest.raises(hf_io.CheckpointError, match="model.layers.1.mlp.up_proj.weight"):
        hf_io.load_model(bad)


def test_qwen3__params_carry_data_model_partition_specs(tiny_ckpt_untied):
    specs = dict(hf_io.iter_param_specs(hf_io.load_model(tiny_ckpt_untied)))
    assert specs["model.layers.0.self_attn.q_proj.weight"] == ("data", "model")
    assert specs["model.layers.0.self_attn.o_proj.weight"] == ("model", "data")
    assert specs["model.layers.0.mlp.down_proj.weight"] == ("model", "data")
    assert specs["model.embed_tokens.weight"] == ("model", "data")
    assert specs["lm_head.weight"] == ("data", "model")
    assert specs["model.norm.weight"] == (None,)
    assert set(specs) == set(hf_io.read_checkpoint_tensors(tiny_ckpt_untied))


def test_qwen3__sharded_on_a_2x2_cpu_mesh_matches_single_device(tiny_ckpt_untied):
    """Loads onto a (data=2, model=2) mesh of faked CPU devices in a subprocess; jit'd logits equal."""
    code = textwrap.dedent(f"""
        import jax, jax.numpy as jnp, numpy as np
        from jax.sharding import AxisType, PartitionSpec as P
        from rl.models import hf_io
        from rl.models.qwen3 import positions_from_mask
        assert len(jax.devices()) == 4, jax.devices()
        mesh = jax.make_mesh((2, 2), ("data", "model"), axis_types=(AxisType.Auto, AxisType.Auto))
        sharded = hf_io.load_model({str(tiny_ckpt_untied)!r}, mesh=mesh)
        plain = hf_io.load_model({str(tiny_ckpt_untied)!r})
        k = sharded.model.layers[0].self_attn.q_proj.kernel[...]
        assert k.sharding.spec == P("data", "model"), k.sharding
        assert len(k.addressable_shards) == 4 and k.addressable_shards[0].data.shape == (32, 64)
        ids = jnp.asarray(np.random.default_rng(0).integers(3, 500, (4, 8)))
        mask = jnp.ones((4, 8), bool).at[1, :3].set(False)
        pos = positions_from_mask(mask)
        from flax import nnx
        fwd = nnx.jit(lambda m, i, p, a: m(i, p, a))
        a = np.asarray(fwd(sharded, ids, pos, mask)); b = np.asarray(plain(ids, pos, mask))
        err = np.abs(a - b)[np.asarray(mask)].max()
        assert err < 1e-5, err
        print("OK", err)
    """)
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4", "JAX_PLATFORMS": "cpu"}
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and "OK" in res.stdout, f"sharded run failed:\n{res.stdout}\n{res.stderr[-3000:]}"


def test_qwen3__kv_cache_prefill_and_decode_match_full_forward(tiny_ckpt):
    model = hf_io.load_model(tiny_ckpt)
    ids, mask = _padded_batch(model.config.vocab_size, seed=2)
    ids, mask = jnp.asarray(ids), jnp.asarray(mask).astype(bool)
    pos = positions_from_mask(mask)
    full = np.asarray(model(ids, pos, mask))
    cache = model.init_cache(ids.shape[0], 16)
    first, cache = model(ids[:, :6], pos[:, :6], mask[:, :6], cache=cache)
    steps = [first]
    for t in range(6, ids.shape[1]):  # one token at a time
        step_logits, cache = model(ids[:, t:t + 1], pos[:, t:t + 1], mask[:, t:t + 1], cache=cache)
        steps.append(step_logits)
    cached = np.concatenate([np.asarray(s) for s in steps], axis=1)
    real = np.asarray(mask)
    err = np.abs(cached - full)[real].max()
    assert err <= 1e-5, f"cached decode differs from the full forward by {err:.2e}"
    assert int(cache.end) == ids.shape[1] and np.array_equal(np.asarray(cache.mask[:, :11]), real)


def test_tiny__checkpoint_is_deterministic_and_cached(tiny_ckpt, tmp_path):
    from rl.tiny import tiny_checkpoint

    built = tiny_checkpoint(tmp_path / "cache", seed=0)
    for name in ("model.safetensors", "tokenizer.json", "config.json", "tokenizer_config.json"):
        assert (built / name).read_bytes() == (tiny_ckpt / name).read_bytes(), f"seed 0 rebuild differs in {name}"
    stamp = (built / "model.safetensors").stat().st_mtime_ns
    assert tiny_checkpoint(tmp_path / "cache", seed=0) == built
    assert (built / "model.safetensors").stat().st_mtime_ns == stamp, "cached checkpoint was rebuilt"
    cfg = json.loads((built / "config.json").read_text())
    assert cfg["head_dim"] >= 32 and cfg["rope_theta"] == 1_000_000.0 and cfg["torch_dtype"] == "float32"
    assert cfg["eos_token_id"] == json.loads((built / "generation_config.json").read_text())["eos_token_id"]
