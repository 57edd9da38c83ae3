"""Benchmark: train-step throughput and memory, and where a training iteration's time goes.

    python bench/train_step.py [--samples 32 --length 512 --steps 3] [--iteration-updates 3]

1. Train step (rl/train_step.py) on the tiny Qwen3 (rl/tiny.py architecture, vocab 1024) with
   random samples: tokens/s (real, non-padding tokens), the compiled step's memory analysis
   (arguments + temporaries) and the process peak RSS.
2. One training iteration of rl/trainer.py (dummy/arrow-1, tiny model, local sampler): the share
   of wall time in rollout, weight push and gradient step (`time_*` fields of metrics.jsonl).
3. Peer: Tunix's GRPO learner (PyPI google-tunix) in the same run when it imports in this
   environment (`pip install google-tunix` in a throwaway venv with --system-site-packages so our
   jax is kept); otherwise the table says why it was not run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jax  # noqa: E402
import numpy as np  # noqa: E402
from flax import nnx  # noqa: E402

from rl.train_step import Sample, StepConfig, TrainStep  # noqa: E402


def tiny_model(seed: int = 0):
    from rl.models.qwen3 import Qwen3Config, Qwen3ForCausalLM
    from rl.tiny import TINY_ARCH, TINY_VOCAB
    cfg = Qwen3Config(vocab_size=TINY_VOCAB, tie_word_embeddings=True, **TINY_ARCH)
    return Qwen3ForCausalLM(cfg, rngs=nnx.Rngs(seed))


def bench_step(samples: int, length: int, steps: int, micro: int, dtype: str) -> dict:
    rng = np.random.default_rng(0)
    prompt = length * 3 // 4
    data = [Sample(rng.integers(0, 1000, prompt).tolist(), rng.integers(0, 1000, length - prompt).tolist(),
                   np.log(rng.uniform(1e-3, 1e-2, length - prompt)).tolist(), float(rng.normal()))
            for _ in range(samples)]
    ts = TrainStep(tiny_model(), StepConfig(loss="ipo", lr=1e-5, compute_dtype=dtype))
    batch = ts.build(data, micro, bucket=64)
    t0 = time.perf_counter()
    ts.step(batch)
    compile_s = time.perf_counter() - t0
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        ts.step(batch)
        times.append(time.perf_counter() - t0)
    mem = {}
    try:
        ma = ts._step.lower(ts.params, ts.opt_state, jax.device_put(batch)).compile().memory_analysis()
        mem = {"argument_MiB": ma.argument_size_in_bytes / 2**20, "temp_MiB": ma.temp_size_in_bytes / 2**20,
               "output_MiB": ma.output_size_in_bytes / 2**20}
    except Exception as e:  # memory analysis is backend-dependent
        mem = {"memory_analysis": f"unavailable ({type(e).__name__})"}
    tokens = samples * length
    step_s = float(np.median(times))
    return {"samples": samples, "length": length, "micro_batch": micro, "dtype": dtype, "compile_s": compile_s,
            "step_s": step_s, "tokens_per_s": tokens / step_s, "peak_rss_MiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            **mem}


def bench_iteration(updates: int) -> dict:
    from rl.train_cli import compose
    from rl.trainer import train
    out = tempfile.mkdtemp(prefix="glyphjax-bench-")
    cfg = compose(["rl.action_tokens=true", "rl.group_size=16", f"rl.rollout_budget={16 * (updates + 1)}",
                   "rl.lr=1e-3", "rl.micro_batch_size=16", "ckpt_every=0", "log.console=false"], out)
    recs = train(cfg)[1:]  # the first update includes compilation
    parts = {k: float(np.sum([r[f"time_{k}"] for r in recs])) for k in ("rollout", "push", "step")}
    total = sum(parts.values())
    return {"updates_timed": len(recs), **{f"{k}_s": v for k, v in parts.items()},
            **{f"{k}_share": v / total for k, v in parts.items()},
            "tokens_per_update": float(np.mean([r["prompt_tokens"] + r["completion_tokens"] for r in recs]))}


def bench_tunix() -> dict:
    try:
        import tunix  # noqa: F401
        from tunix.rl.grpo import grpo_learner  # noqa: F401
    except Exception as e:
        return {"tunix": f"not run: {type(e).__name__}: {str(e)[:120]}"}
    return {"tunix": "importable; GRPO learner benchmark not implemented (needs its rollout worker + "
                     "tokenizer wiring); see docs/training.md"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=32)
    ap.add_argument("--length", type=int, default=512)
    ap.add_argument("--micro", type=int, default=8)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--iteration-updates", type=int, default=3)
    a = ap.parse_args()
    print(f"# glyphjax train-step benchmark  {time.strftime('%Y-%m-%d %H:%M')}  {platform.node()}  "
          f"jax {jax.__version__} {jax.default_backend()} x{len(jax.devices())}  cpus {os.cpu_count()}  "
          f"load {os.getloadavg()[0]:.1f}")
    step = bench_step(a.samples, a.length, a.steps, a.micro, a.dtype)
    print("\n| system | tokens/s | step s | compile s | peak RSS MiB | temp MiB |\n|---|---|---|---|---|---|")
    print(f"| glyphjax TrainStep (tiny Qwen3, {a.samples}x{a.length}, micro {a.micro}, {a.dtype}) | "
          f"{step['tokens_per_s']:.0f} | {step['step_s']:.2f} | {step['compile_s']:.1f} | {step['peak_rss_MiB']:.0f} | "
          f"{step.get('temp_MiB', float('nan')):.1f} |")
    tun = bench_tunix()
    print(f"| Tunix GRPO learner | {tun['tunix']} | | | | |")
    if a.iteration_updates > 0:
        it = bench_iteration(a.iteration_updates)
        print("\n| iteration part | seconds | share |\n|---|---|---|")
        for k in ("rollout", "push", "step"):
            print(f"| {k} | {it[k + '_s']:.2f} | {100 * it[k + '_share']:.1f}% |")
        print(json.dumps({"step": step, "iteration": it, **tun}))
    else:
        print(json.dumps({"step": step, **tun}))


if __name__ == "__main__":
    main()
