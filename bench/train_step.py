"""Benchmark: train-step throughput and memory against Tunix's GRPO learner, and where a training
iteration's time goes.

    python bench/train_step.py [--samples 32 --length 512 --micro 8 --steps 3] [--iteration-updates 3]

1. One optimizer update on the same work for both systems: `samples` sequences of `length` tokens
   (the first 3/4 prompt, the last 1/4 sampled completion, random ids), gradient accumulated over
   micro-batches of `micro` rows, then global-norm clip 1 + AdamW(0.9, 0.95), float32, on the same
   tiny Qwen3 shape (rl/tiny.py: 2 layers, hidden 64, MLP 128, 4 query / 2 KV heads of dim 32,
   vocab 1024, tied embeddings; 164,288 parameters in both implementations). Given the same
   weights (the tiny checkpoint, each library's own loader) the two models' logits agree to ~1e-5
   (printed as "same model").
   * glyphjax: `rl.train_step.TrainStep.step` (IPO loss; one jitted call: lax.scan over the
     micro-batches, then the optimizer update).
   * Tunix (PyPI google-tunix): the actor trainer its `GRPOLearner` trains with
     (`tunix.rl.trainer.Trainer`, a PeftTrainer) wired exactly as `GRPOLearner.__init__` wires it:
     loss `algo_core.grpo_loss_fn` (registered policy loss "grpo": PPO clip 0.2, beta 0 so no
     reference model, its default "sequence-mean-token-mean" aggregation, plus its entropy
     metric), `gen_model_input_fn` {train_example, algo_config}; gradient accumulation through its
     `TrainingConfig.gradient_accumulation_steps` (optax.MultiSteps). Timed: its jitted
     `train_step` (from `jit_train_and_eval_step`) called once per micro-batch on a
     `TrainExample` (prompt/completion ids and masks, advantages, old log-probs) = one update.
     Not timed: rollout generation, reward and advantage computation, metric logging (the parts
     of `GRPOLearner.train` that need a rollout engine).
   Each system runs in its own subprocess (same settings, one after the other in this run) so its
   peak RSS is its own; Tunix runs under $GLYPHJAX_TUNIX_PYTHON, else /tmp/tunix-venv/bin/python,
   else this python (make the venv with `python3 -m venv --system-site-packages /tmp/tunix-venv`
   and `pip install --no-deps google-tunix google-metrax clu tensorboardX jaxtyping sentencepiece
   perfetto wadler_lindig pandas`: the full dependency set would replace transformers/tokenizers).
   Figures: tokens/s (wall) and tokens per process-CPU-second of the timed updates (median), first
   update (compile + run) in wall and CPU seconds, process peak RSS and the RSS just before the
   first update, and XLA's memory analysis of the compiled step (temporaries).
2. One training iteration of rl/trainer.py (dummy/arrow-1, tiny model, action-token sampler, local
   weight push): the share of wall time in rollout, weight push and gradient step.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

TUNIX_VENV_PYTHON = "/tmp/tunix-venv/bin/python"
PAD_ID, EOS_ID = 1023, 1022  # outside the random ids 0..999, so Tunix's pad-derived masks are all ones


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _random_work(samples: int, length: int, seed: int = 0):
    """(prompt ids, completion ids, sampler log-probs, advantage) per sample; same for both systems."""
    rng = np.random.default_rng(seed)
    prompt = length * 3 // 4
    comp = length - prompt
    return [(rng.integers(0, 1000, prompt), rng.integers(0, 1000, comp),
             np.log(rng.uniform(1e-3, 1e-2, comp)), float(rng.normal())) for _ in range(samples)]


def _time_updates(update, steps: int) -> dict:
    """First update (compile + run) and `steps` more; wall and process-CPU seconds."""
    c0, t0 = time.process_time(), time.perf_counter()
    update()
    first_wall, first_cpu = time.perf_counter() - t0, time.process_time() - c0
    walls, cpus = [], []
    for _ in range(steps):
        c0, t0 = time.process_time(), time.perf_counter()
        update()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return {"first_update_s": first_wall, "first_update_cpu_s": first_cpu,
            "update_s": float(np.median(walls)), "update_cpu_s": float(np.median(cpus))}


def _rates(res: dict, tokens: int, rss_before: float) -> dict:
    """Throughput and the peak RSS of the timed updates (read before any further compilation)."""
    res["tokens_per_s"] = tokens / res["update_s"]
    res["tokens_per_cpu_s"] = tokens / res["update_cpu_s"]
    res["peak_rss_MiB"] = _rss_mib()
    res["rss_before_MiB"] = rss_before
    return res


def _memory(compiled) -> dict:
    try:
        ma = compiled.memory_analysis()
        return {"argument_MiB": ma.argument_size_in_bytes / 2**20, "temp_MiB": ma.temp_size_in_bytes / 2**20,
                "output_MiB": ma.output_size_in_bytes / 2**20}
    except Exception as e:  # backend-dependent
        return {"memory_analysis": f"unavailable ({type(e).__name__})"}


def run_ours(samples: int, length: int, steps: int, micro: int) -> dict:
    import jax
    from flax import nnx

    from rl.models.qwen3 import Qwen3Config, Qwen3ForCausalLM
    from rl.tiny import TINY_ARCH, TINY_VOCAB
    from rl.train_step import Sample, StepConfig, TrainStep
    model = Qwen3ForCausalLM(Qwen3Config(vocab_size=TINY_VOCAB, tie_word_embeddings=True, **TINY_ARCH),
                             rngs=nnx.Rngs(0))
    n_params = sum(int(x.size) for x in jax.tree.leaves(nnx.state(model, nnx.Param)))
    data = [Sample(p.tolist(), c.tolist(), q.tolist(), a) for p, c, q, a in _random_work(samples, length)]
    ts = TrainStep(model, StepConfig(loss="ipo", lr=1e-5))
    batch = ts.build(data, micro, bucket=64)
    rss_before = _rss_mib()
    last = {}
    res = _rates(_time_updates(lambda: last.update(ts.step(batch)), steps), samples * length, rss_before)
    res["loss"] = last["loss"]
    res.update(_memory(ts._step.lower(ts.params, ts.opt_state, jax.device_put(batch)).compile()))
    res.update(system="glyphjax", params=n_params, row_length=int(batch["inputs"].shape[-1]),
               timed="TrainStep.step: one jitted call (scan over micro-batches + clip + AdamW)")
    return res


def run_tunix(samples: int, length: int, steps: int, micro: int) -> dict:
    import importlib.metadata

    import jax
    import jax.numpy as jnp
    import optax
    from flax import nnx
    from tunix.models.qwen3 import model as tq
    from tunix.rl import algo_core
    from tunix.rl import trainer as rl_trainer
    from tunix.rl.grpo import grpo_learner
    from tunix.sft import peft_trainer

    from rl.tiny import TINY_ARCH, TINY_VOCAB
    if samples % micro:
        raise ValueError("--samples must be a multiple of --micro for the Tunix run (whole micro-batches)")
    a = TINY_ARCH
    cfg = tq.ModelConfig(num_layers=a["num_hidden_layers"], vocab_size=TINY_VOCAB, embed_dim=a["hidden_size"],
                         hidden_dim=a["intermediate_size"], num_heads=a["num_attention_heads"], head_dim=a["head_dim"],
                         num_kv_heads=a["num_key_value_heads"], rope_theta=int(a["rope_theta"]),
                         norm_eps=a["rms_norm_eps"], use_tied_embedding=True)
    model = tq.Qwen3(cfg, rngs=nnx.Rngs(0))
    n_params = sum(int(x.size) for x in jax.tree.leaves(nnx.state(model, nnx.Param)))
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-5, b1=0.9, b2=0.95, eps=1e-8, weight_decay=0.0))
    n_micro = samples // micro
    trainer = rl_trainer.Trainer(model, tx, peft_trainer.TrainingConfig(eval_every_n_steps=10**9,
                                                                        gradient_accumulation_steps=n_micro),
                                 custom_checkpoint_metadata_fn=lambda: {})
    algo = grpo_learner.GRPOConfig(num_generations=2, beta=0.0)
    algo.temperature = 1.0  # GRPOLearner copies the rollout temperature here
    # as GRPOLearner.__init__ does (pad/eos ids from its rollout engine; here fixed ids absent from the data)
    trainer.with_loss_fn(lambda model, train_example, algo_config: algo_core.grpo_loss_fn(
        model, train_example, algo_config=algo, pad_id=PAD_ID, eos_id=EOS_ID), has_aux=True)
    trainer.with_gen_model_input_fn(lambda x: {"train_example": x, "algo_config": algo})
    train_step, _ = trainer.jit_train_and_eval_step()
    work = _random_work(samples, length)
    examples = []
    for m in range(n_micro):
        rows = work[m * micro:(m + 1) * micro]
        prompt = jnp.asarray(np.stack([r[0] for r in rows]), jnp.int32)
        comp = jnp.asarray(np.stack([r[1] for r in rows]), jnp.int32)
        examples.append(grpo_learner.TrainExample(
            prompt_ids=prompt, prompt_mask=jnp.ones_like(prompt), completion_ids=comp,
            completion_mask=jnp.ones_like(comp), advantages=jnp.asarray([r[3] for r in rows], jnp.float32),
            ref_per_token_logps=None, old_per_token_logps=jnp.asarray(np.stack([r[2] for r in rows]), jnp.float32)))

    last = {}

    def update():
        out = None
        for ex in examples:
            out = train_step(ex)
        jax.block_until_ready(out)
        last["loss"] = float(out[0])
    rss_before = _rss_mib()
    res = _rates(_time_updates(update, steps), samples * length, rss_before)
    res["loss"] = last["loss"]
    jitted = trainer._jitted_train_step_fn.func  # functools.partial(nnx.jit(train_step), model, optimizer)
    res.update(_memory(jitted.lower(trainer.model, trainer.optimizer, examples[0]).compile()))
    res.update(system=f"tunix {importlib.metadata.version('google-tunix')}", params=n_params, row_length=length,
               micro_calls_per_update=n_micro,
               timed=f"tunix.rl.trainer.Trainer jitted train_step with grpo_loss_fn, {n_micro} calls "
                     f"(one per micro-batch; optax.MultiSteps applies the update on the last)")
    try:
        res["same_weights_max_logit_diff"] = tunix_matches_ours()
    except Exception as e:  # the timing stands without it; say why
        res["same_weights_max_logit_diff"] = f"check failed: {type(e).__name__}: {str(e)[:120]}"
    return res


def tunix_matches_ours() -> float:
    """Max |logit difference| between Tunix's Qwen3 and ours given the SAME weights (the tiny
    checkpoint, loaded by each library's own safetensors loader): both benchmark the same function."""
    import jax
    import jax.numpy as jnp
    from tunix.models.qwen3 import model as tq
    from tunix.models.qwen3 import params as tparams

    from rl.models.hf_io import load_model
    from rl.tiny import write_tiny_checkpoint
    ckpt = write_tiny_checkpoint(Path(tempfile.mkdtemp(prefix="glyphjax-bench-tiny-")), seed=0)
    ours = load_model(ckpt, dtype="float32")
    c = ours.config
    cfg = tq.ModelConfig(num_layers=c.num_hidden_layers, vocab_size=c.vocab_size, embed_dim=c.hidden_size,
                         hidden_dim=c.intermediate_size, num_heads=c.num_attention_heads, head_dim=c.head_dim,
                         num_kv_heads=c.num_key_value_heads, rope_theta=int(c.rope_theta), norm_eps=c.rms_norm_eps,
                         use_tied_embedding=c.tie_word_embeddings)
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]).reshape(1, 1), ("fsdp", "tp"))
    theirs = tparams.create_model_from_safe_tensors(str(ckpt), cfg, mesh=mesh)
    ids = jnp.asarray(np.random.default_rng(1).integers(0, c.vocab_size, (2, 64)), jnp.int32)
    pos = jnp.broadcast_to(jnp.arange(64, dtype=jnp.int32), ids.shape)
    causal = jnp.broadcast_to(jnp.tril(jnp.ones((64, 64), bool)), (2, 64, 64))
    return float(jnp.max(jnp.abs(ours(ids, pos) - theirs(ids, pos, None, causal)[0])))


def tunix_python() -> tuple[str | None, str]:
    """An interpreter where `tunix` imports, or (None, why not)."""
    tried, last = [], "no such interpreter"
    for py in [os.environ.get("GLYPHJAX_TUNIX_PYTHON"), TUNIX_VENV_PYTHON, sys.executable]:
        if not py or py in tried:
            continue
        tried.append(py)
        if not Path(py).exists():
            continue
        check = subprocess.run([py, "-c", "from tunix.rl.grpo import grpo_learner"], capture_output=True, text=True)
        if check.returncode == 0:
            return py, ""
        last = (check.stderr.strip().splitlines() or ["?"])[-1]
    return None, f"tunix does not import under {', '.join(tried)}: {last}" if tried else "no python to try"


def run_in_subprocess(python: str, which: str, a) -> dict:
    """Run one system in a fresh process; returns its result dict or {"error": ...}."""
    cmd = [python, os.path.abspath(__file__), "--only", which, "--samples", str(a.samples), "--length",
           str(a.length), "--micro", str(a.micro), "--steps", str(a.steps)]
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return {"system": which, "error": f"exit {proc.returncode}: {tail[:200]}"}


def bench_iteration(updates: int) -> dict:
    from rl.train_cli import compose
    from rl.trainer import train
    out = tempfile.mkdtemp(prefix="glyphjax-bench-")
    cfg = compose(["rl.action_tokens=true", "rl.group_size=16", "rl.groups_per_update=1", "eval.every=0",
                   "harness=basic", "model.random_init_std=null", f"rl.rollout_budget={16 * (updates + 1)}",
                   "rl.lr=1e-3", "rl.micro_batch_size=16", "ckpt_every=0", "log.console=false"], out)
    recs = train(cfg)[1:]  # the first update includes compilation
    parts = {k: float(np.sum([r[f"time_{k}"] for r in recs])) for k in ("rollout", "push", "step")}
    total = sum(parts.values())
    return {"updates_timed": len(recs), **{f"{k}_s": v for k, v in parts.items()},
            **{f"{k}_share": v / total for k, v in parts.items()},
            "tokens_per_update": float(np.mean([r["prompt_tokens"] + r["completion_tokens"] for r in recs]))}


def _row(r: dict, label: str) -> str:
    if "error" in r:
        return f"| {label} | not run: {r['error']} | | | | | | | |"
    return (f"| {label} | {r['tokens_per_s']:,.0f} | {r['tokens_per_cpu_s']:,.0f} | {r['update_s']:.2f} | "
            f"{r['first_update_s']:.1f} / {r['first_update_cpu_s']:.1f} | {r['peak_rss_MiB']:.0f} | "
            f"{r['rss_before_MiB']:.0f} | {r.get('temp_MiB', float('nan')):.1f} | {r['params']:,} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=32)
    ap.add_argument("--length", type=int, default=512)
    ap.add_argument("--micro", type=int, default=8)
    ap.add_argument("--steps", type=int, default=3, help="timed updates after the first (median reported)")
    ap.add_argument("--iteration-updates", type=int, default=3)
    ap.add_argument("--only", choices=("ours", "tunix"), help="run one system in this process (used internally)")
    a = ap.parse_args()
    if a.only:
        fn = run_ours if a.only == "ours" else run_tunix
        print("RESULT " + json.dumps(fn(a.samples, a.length, a.steps, a.micro)), flush=True)
        return
    import jax
    load0 = os.getloadavg()
    print(f"# glyphjax train-step benchmark  {time.strftime('%Y-%m-%d %H:%M %Z')}  {platform.node()}  "
          f"jax {jax.__version__} {jax.default_backend()}  cpus {os.cpu_count()}  load {load0[0]:.1f}")
    ours = run_in_subprocess(sys.executable, "ours", a)
    py, why = tunix_python()
    tun = run_in_subprocess(py, "tunix", a) if py else {"system": "tunix", "error": why}
    load1 = os.getloadavg()
    print(f"\nOne update = {a.samples} samples x {a.length} tokens ({a.length * 3 // 4} prompt + "
          f"{a.length - a.length * 3 // 4} completion), micro-batches of {a.micro}, float32; median of {a.steps} "
          f"updates after the first; load average {load0[0]:.1f} -> {load1[0]:.1f}")
    print("\n| system | tokens/s | tokens/CPU-s | update s | first update s wall / CPU | peak RSS MiB | "
          "RSS before step MiB | XLA temp MiB | params |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(_row(ours, "glyphjax TrainStep (IPO)"))
    print(_row(tun, f"{tun.get('system', 'tunix')} GRPO learner step (grpo_loss_fn + optax)"))
    if "error" not in ours and "error" not in tun:
        print(f"\nglyphjax / Tunix: tokens/s x{ours['tokens_per_s'] / tun['tokens_per_s']:.2f}, "
              f"tokens/CPU-s x{ours['tokens_per_cpu_s'] / tun['tokens_per_cpu_s']:.2f}, "
              f"first update CPU-s x{ours['first_update_cpu_s'] / tun['first_update_cpu_s']:.2f}, "
              f"peak RSS x{ours['peak_rss_MiB'] / tun['peak_rss_MiB']:.2f} "
              f"(Tunix XLA temp is per micro-batch call: {tun.get('micro_calls_per_update')} calls per update)")
    for r in (ours, tun):
        if "timed" in r:
            print(f"- {r['system']}: timed {r['timed']}")
    diff = tun.get("same_weights_max_logit_diff")
    if diff is not None:
        print(f"- same model: Tunix's Qwen3 and ours, both loading the tiny checkpoint, differ in logits by at most "
              f"{diff:.1e}" if isinstance(diff, float) else f"- same model: {diff}")
    result = {"ours": ours, "tunix": tun, "load": [load0[0], load1[0]]}
    if a.iteration_updates > 0:
        it = bench_iteration(a.iteration_updates)
        print(f"\nTraining iteration (dummy/arrow-1, G=16, action-token sampler, local push), "
              f"{it['updates_timed']} updates after the first; load {os.getloadavg()[0]:.1f}\n"
              "\n| iteration part | seconds | share |\n|---|---|---|")
        for k in ("rollout", "push", "step"):
            print(f"| {k} | {it[k + '_s']:.2f} | {100 * it[k + '_share']:.1f}% |")
        result["iteration"] = it
    print(json.dumps(result))


if __name__ == "__main__":
    main()
