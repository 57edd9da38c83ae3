"""Self-play iteration time of the toy GameSmith preset, split into rollout / train step / push,
and rollout turns per second, with the local JAX sampler and (optionally) a vLLM server.

    python bench/selfplay_iteration.py --updates 4                 # local sampler (tiny model)
    python bench/selfplay_iteration.py --updates 4 --launch-vllm   # also a CPU vLLM server (tiny model)

Each backend runs `+experiment=gamesmith_selfplay_toy` (any extra `key=value` overrides after
`--`) for `--updates` updates; the first update compiles (env programs, sampler, train step) and
is reported apart. The split comes from the trainer's own per-update timings (`time_rollout`,
`time_step`, `time_push` in metrics.jsonl); turns are the text turns of the update's records.
Medians over the remaining updates are printed as one table.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import tempfile

COLUMNS = ("time_rollout", "time_step", "time_push")


def run_backend(overrides: list[str], updates: int) -> dict:
    """Train `updates` updates of the toy preset; the first update's and the median later timings."""
    from rl.train_cli import compose
    from rl.trainer import Trainer
    out = tempfile.mkdtemp(prefix="selfplay-bench-")
    g, k = 4, 2
    cfg = compose(["+experiment=gamesmith_selfplay_toy", f"rl.rollout_budget={g * k * updates}", "log.console=false",
                   *overrides], out)
    trainer = Trainer(cfg)
    recs = [trainer.train_update() for _ in range(updates)]
    rows = []
    for r in recs:
        turns = len(r["returns"]) * r["length_mean"]
        rows.append({**{c: r[c] for c in COLUMNS}, "turns_per_s": turns / r["time_rollout"], "turns": turns})
    later = rows[1:] or rows
    return {"first": rows[0], "median": {c: statistics.median(x[c] for x in later) for c in rows[0]},
            "updates": len(later)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--updates", type=int, default=4, help="updates per backend (the first is the compile)")
    ap.add_argument("--launch-vllm", action="store_true", help="also start a CPU vLLM server on the tiny model")
    ap.add_argument("overrides", nargs="*", help="extra key=value overrides of the toy preset")
    args = ap.parse_args()
    results = {"local": run_backend(args.overrides, args.updates)}
    if args.launch_vllm:
        from rl.tiny import tiny_checkpoint
        from rl.vllm_server import launch_vllm_server, untied_copy
        tiny = tiny_checkpoint()
        served = untied_copy(tiny, tiny.parent / "tiny-qwen3-served-untied")
        server = launch_vllm_server(served, served_model_name="tiny-qwen3", max_model_len=2048)
        try:
            results["vllm"] = run_backend([*args.overrides, "policy=vllm", f"server.url={server.url}",
                                           "server.model=tiny-qwen3", f"model.path={served}",
                                           "model.random_init_std=null"], args.updates)
        finally:
            server.stop()
    print(f"self-play iteration, gamesmith_selfplay_toy (G=4 x 2 groups, tiny model), {platform.processor() or platform.machine()}")
    print(f"{'backend':8} {'phase':8} {'rollout s':>10} {'train s':>8} {'push s':>8} {'turns':>6} {'turns/s':>8}")
    for name, res in results.items():
        for label, row in (("first", res["first"]), (f"median{res['updates']}", res["median"])):
            print(f"{name:8} {label:8} {row['time_rollout']:10.2f} {row['time_step']:8.2f} {row['time_push']:8.2f} "
                  f"{row['turns']:6.0f} {row['turns_per_s']:8.1f}")


if __name__ == "__main__":
    main()
