"""Rollout overhead per turn: env step + render + prompt building + parsing, as a share of the turn.

    python bench/rollout_overhead.py                          # local JAX sampler (tiny checkpoint)
    python bench/rollout_overhead.py --vllm-url http://127.0.0.1:8000 [--model NAME]
    python bench/rollout_overhead.py --launch-vllm            # start a vLLM server on the tiny model

The engine's own work per turn (render, prompt, parse, step, write) is timed by `run_rollouts`
(`timings=`); the policy call is the rest. The first run of each configuration is a warm-up
(compiles the env and the sampler) and is not counted.
"""

from __future__ import annotations

import argparse
import platform
import time

from glyphjax.harness.prompt import HarnessConfig
from rl.policies.base import SamplingParams
from rl.rollout import run_rollouts

ENGINE_PHASES = ("render", "prompt", "guard", "parse", "step", "write")


def measure(policy, episodes, sampling, harness, max_turns, repeats):
    run_rollouts(policy, episodes, harness, sampling, max_turns=max_turns)  # warm-up (compiles)
    timings: dict[str, float] = {}
    start = time.perf_counter()
    for _ in range(repeats):
        run_rollouts(policy, episodes, harness, sampling, max_turns=max_turns, timings=timings)
    wall = time.perf_counter() - start
    turns = timings["turns"]
    engine = sum(timings.get(p, 0.0) for p in ENGINE_PHASES)
    return {"turns": turns, "wall_per_turn_ms": 1e3 * wall / turns,
            "engine_per_turn_ms": 1e3 * engine / turns,
            "policy_per_turn_ms": 1e3 * timings.get("policy", 0.0) / turns,
            "share": engine / wall, **{f"{p}_ms": 1e3 * timings.get(p, 0.0) / turns for p in ENGINE_PHASES}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=16, help="episodes per task in the batch")
    ap.add_argument("--tasks", default="dummy/arrow-4,classics/snake-easy")
    ap.add_argument("--max-turns", type=int, default=4)
    ap.add_argument("--max-new-tokens", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--vllm-url", default=None)
    ap.add_argument("--model", default=None, help="served model name (vllm) / checkpoint dir (local)")
    ap.add_argument("--launch-vllm", action="store_true", help="start a vLLM server on the checkpoint")
    ap.add_argument("--skip-local", action="store_true")
    args = ap.parse_args()

    from rl.tiny import resolve_model_path
    ckpt = resolve_model_path(args.model if args.model and not args.vllm_url else None)
    tasks = args.tasks.split(",")
    episodes = [(t, s) for t in tasks for s in range(args.batch)]
    sampling = SamplingParams(temperature=1.0, max_new_tokens=args.max_new_tokens, seed=0)
    harness = HarnessConfig(history=1)
    rows = []
    if not args.skip_local:
        from rl.policies.local import load_local_policy
        local = load_local_policy(ckpt)
        rows.append(("local (JAX, tiny)", measure(local, episodes, sampling, harness, args.max_turns,
                                                  args.repeats)))
        print(f"local sampler programs compiled (warm-up included): {getattr(local, 'compile_count', '?')}")
    server = None
    url = args.vllm_url
    if args.launch_vllm and not url:
        from rl.vllm_server import launch_vllm_server
        server = launch_vllm_server(ckpt, served_model_name="tiny-qwen3", max_model_len=2048)
        url = server.url
    try:
        if url:
            from rl.policies.vllm import VLLMPolicy
            name = args.model if args.vllm_url else None
            pol = VLLMPolicy(url, name)
            rows.append((f"vllm ({pol.model}), /tokenize", measure(pol, episodes, sampling, harness,
                                                                   args.max_turns, args.repeats)))
            pol = VLLMPolicy(url, name, tokenizer=str(ckpt))
            rows.append((f"vllm ({pol.model}), local tok", measure(pol, episodes, sampling, harness,
                                                                   args.max_turns, args.repeats)))
    finally:
        if server is not None:
            server.stop()

    print(f"# rollout overhead: {len(episodes)} episodes ({', '.join(tasks)}), history 1, "
          f"max_new_tokens {args.max_new_tokens}, {platform.machine()} {platform.node()}")
    print(f"{'backend':30} {'turns':>5} {'turn ms':>9} {'policy ms':>9} {'engine ms':>9} {'share':>6}  "
          + " ".join(f"{p:>7}" for p in ENGINE_PHASES))
    for name, r in rows:
        print(f"{name:30} {r['turns']:5d} {r['wall_per_turn_ms']:9.1f} {r['policy_per_turn_ms']:9.1f} "
              f"{r['engine_per_turn_ms']:9.1f} {100 * r['share']:5.1f}%  "
              + " ".join(f"{r[p + '_ms']:7.2f}" for p in ENGINE_PHASES))


if __name__ == "__main__":
    main()
