"""Throughput of the local JAX sampler (rl.policies.local) on the tiny Qwen3, with transformers as peer.

For each batch size: prefill tokens/s (one forward over [batch, prompt] filling the KV cache) and
decode tokens/s (generated tokens / (generate time - prefill time), no early stop), after a warm-up
call that compiles. The peer is transformers `generate` (torch, CPU, greedy, same checkpoint,
same lengths; its "prefill" is a single forward over the prompt batch).

    python3 bench/local_sampler.py [--batches 1 16 64] [--prompt 128] [--new 128] [--ckpt DIR]
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time

import jax
import jax.numpy as jnp
import numpy as np

from rl.models.qwen3 import positions_from_mask
from rl.policies.base import SamplingParams
from rl.policies.local import LocalPolicy


def _best_of(n: int, fn) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def bench_jax(ckpt, batch: int, prompt: int, new: int, repeats: int) -> tuple[float, float]:
    policy = LocalPolicy.from_pretrained(ckpt, batch_buckets=(batch,), min_prompt_bucket=prompt,
                                         min_new_tokens_bucket=new, stop_token_ids=[])  # no early stop
    rng = np.random.default_rng(0)
    prompts = [list(rng.integers(3, 800, prompt)) for _ in range(batch)]
    sampling = SamplingParams(temperature=1.0, max_new_tokens=new)
    model = policy.model

    @jax.jit
    def prefill(tokens, mask):
        cache = model.init_cache(batch, prompt + new)
        hidden, cache = model.hidden_states(tokens, positions_from_mask(mask), mask, cache)
        return model.logits(hidden[:, -1]), cache

    tokens = jnp.asarray(np.asarray(prompts, np.int32))
    mask = jnp.ones((batch, prompt), bool)
    jax.block_until_ready(prefill(tokens, mask))
    t_prefill = _best_of(repeats, lambda: jax.block_until_ready(prefill(tokens, mask)))
    policy.generate_ids(prompts, sampling)  # compile
    t_total = _best_of(repeats, lambda: policy.generate_ids(prompts, sampling))
    assert policy.compile_count == 1
    return batch * prompt / t_prefill, batch * new / max(t_total - t_prefill, 1e-9)


def bench_torch(ckpt, batch: int, prompt: int, new: int, repeats: int) -> tuple[float, float]:
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(ckpt, dtype=torch.float32).eval()
    ids = torch.tensor(np.random.default_rng(0).integers(3, 800, (batch, prompt)))
    attn = torch.ones_like(ids)
    with torch.no_grad():
        t_prefill = _best_of(repeats, lambda: model(input_ids=ids, attention_mask=attn))
        gen = lambda: model.generate(ids, attention_mask=attn, max_new_tokens=new, min_new_tokens=new,
                                     do_sample=False, pad_token_id=0)
        gen()
        t_total = _best_of(repeats, gen)
    return batch * prompt / t_prefill, batch * new / max(t_total - t_prefill, 1e-9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--prompt", type=int, default=128)
    parser.add_argument("--new", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--ckpt", default=None, help="checkpoint dir (default: build the tiny one in a temp dir)")
    parser.add_argument("--no-peer", action="store_true", help="skip the transformers peer")
    args = parser.parse_args()
    if args.ckpt is None:
        from rl.tiny import write_tiny_checkpoint

        args.ckpt = str(write_tiny_checkpoint(tempfile.mkdtemp(prefix="tiny-qwen3-")))
    print(f"# local sampler, tiny Qwen3, prompt {args.prompt}, new {args.new}; jax {jax.__version__} on "
          f"{jax.devices()[0].platform} ({platform.processor() or platform.machine()}), best of {args.repeats}")
    print(f"{'impl':<14}{'batch':>6}{'prefill tok/s':>16}{'decode tok/s':>15}")
    for b in args.batches:
        p, d = bench_jax(args.ckpt, b, args.prompt, args.new, args.repeats)
        print(f"{'glyphjax-jax':<14}{b:>6}{p:>16,.0f}{d:>15,.0f}", flush=True)
        if not args.no_peer:
            p, d = bench_torch(args.ckpt, b, args.prompt, args.new, args.repeats)
            print(f"{'transformers':<14}{b:>6}{p:>16,.0f}{d:>15,.0f}", flush=True)


if __name__ == "__main__":
    main()
