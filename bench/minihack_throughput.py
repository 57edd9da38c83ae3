"""MiniHack throughput at B = 4096 vs the GlyphBench reference and the `minihack` package (not a test).

    python bench/minihack_throughput.py --glyphbench-src /work/ref/glyphbench \\
        [--minihack-python /tmp/mhvenv/bin/python] [--batch 4096] [--repeats 3] [--no-compile]

Five representative tasks (a room, a corridor, a key room with a locked door, a river, a
corridor battle), every figure measured in this run:
- ours: one jitted `lax.scan` of B envs with uniformly random actions (`bench/env_throughput.glyphjax_steps`),
  auto-reset by `AutoReset.step_batch` with at most ceil(B * --reset-share) fresh levels per step
  (default 1/16, the bounded auto-reset RL rollouts use; a slot waiting for a reset place is not
  counted); `--reset-share 0` measures vmap(AutoReset.step), which generates a fresh level for
  every slot on every step (MiniHack's generator is most of that step's cost);
- the GlyphBench reference (`glyphbench/minihack-<task>-v0`, plain Python, one env, random
  actions, its `_step` without the text render; `bench/env_throughput.GLYPHBENCH_SCRIPT`) in a
  subprocess;
- the `minihack` package (MiniHack-<Task>-v0 on NLE, one env, random actions over its own action
  set, reset on episode end) in a subprocess of `--minihack-python` (default: this Python). minihack
  1.0.2 is not a project dependency: it installs on top of nle 1.3.0 (reference/dependencies.md),
  e.g. `python -m venv --system-site-packages V && V/bin/pip install --no-deps minihack==1.0.2`.
  Where it is not importable the table says so.
Ratios are per process CPU-second (the robust figure on a shared machine); walls are printed too.
Then the cold compile CPU-s (vmapped reset + step + render at B, `bench/compile_registry`) of
every MiniHack program: a task's compile is its program's, and the suite total is the sum over
the programs (all 63 ids share six).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import glyphjax  # noqa: E402
from compile_registry import program_compile_seconds  # noqa: E402
from env_throughput import GLYPHBENCH_SCRIPT, glyphbench_path, glyphjax_steps, machine  # noqa: E402

# (our id, GlyphBench id, minihack package id)
TASKS = (("minihack/room-15x15", "glyphbench/minihack-room-15x15-v0", "MiniHack-Room-15x15-v0"),
         ("minihack/corridor-r3", "glyphbench/minihack-corridor-r3-v0", "MiniHack-Corridor-R3-v0"),
         ("minihack/keyroom-s5", "glyphbench/minihack-keyroom-s5-v0", "MiniHack-KeyRoom-S5-v0"),
         ("minihack/river", "glyphbench/minihack-river-v0", "MiniHack-River-v0"),
         ("minihack/corridorbattle", "glyphbench/minihack-corridorbattle-v0", "MiniHack-CorridorBattle-v0"))

MINIHACK_SCRIPT = r"""
import json, statistics, sys, time, warnings
warnings.filterwarnings("ignore")
env_id, repeats, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
try:
    import gymnasium as gym
    import minihack  # noqa: F401  (registers MiniHack-*)
except ImportError as e:
    print(json.dumps({"error": f"minihack not installed in {sys.executable} ({e})"})); sys.exit(0)
import numpy as np
env = gym.make(env_id)
rng = np.random.default_rng(0)
n_act = env.action_space.n
walls, cpus = [], []
for rep in range(repeats):
    seed = rep
    env.reset(seed=seed)
    c = time.process_time(); t = time.perf_counter(); steps = 0
    while time.perf_counter() - t < seconds:
        _, _, term, trunc, _ = env.step(int(rng.integers(n_act)))
        steps += 1
        if term or trunc:
            seed += 1000; env.reset(seed=seed)
    walls.append(steps / (time.perf_counter() - t)); cpus.append(steps / max(time.process_time() - c, 1e-9))
print(json.dumps({"steps_per_s": statistics.median(walls), "steps_per_cpu_s": statistics.median(cpus)}))
"""


def subprocess_rates(argv: list[str], timeout: float) -> dict:
    """Run a measuring script; its last stdout line is a JSON dict of figures (or {"error": ...})."""
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"no result within {timeout:.0f} s"}
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0 or not lines:
        err = [ln for ln in p.stderr.strip().splitlines() if ln.strip()]
        return {"error": (err[-1].strip() if err else f"exit code {p.returncode}")[:120]}
    return json.loads(lines[-1])


def fmt(x, spec=",.0f"):
    return "-" if x is None else format(x, spec)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--glyphbench-src", default=None, help="checkout of the GlyphBench reference")
    ap.add_argument("--minihack-python", default=sys.executable,
                    help="a Python where `import minihack` works (default: this one)")
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per figure (median)")
    ap.add_argument("--seconds", type=float, default=2.0, help="seconds per timed run of a Python env")
    ap.add_argument("--reset-share", type=float, default=0.0625,
                    help="fresh levels per step as a share of B (AutoReset.step_batch); 0: vmap(AutoReset.step)")
    ap.add_argument("--no-compile", action="store_true", help="skip the compile table")
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    if args.batch < 1 or args.repeats < 1 or args.seconds <= 0:
        ap.error("--batch, --repeats and --seconds must be positive")
    if not 0.0 <= args.reset_share <= 1.0:
        ap.error(f"--reset-share {args.reset_share}: a share of the batch in [0, 1] (0: a reset for every slot)")
    share = args.reset_share or None
    gb_path = glyphbench_path(args.glyphbench_src) if args.glyphbench_src else None
    started = datetime.datetime.now(datetime.timezone.utc)
    print(f"# MiniHack random-play throughput, {started:%Y-%m-%d %H:%M} UTC; {machine()}")
    runner = (f"AutoReset.step_batch, <= {max(1, int(-(-args.batch * share // 1)))} resets/step" if share
              else "vmap(AutoReset.step), a reset for every slot every step")
    print(f"# ours: B={args.batch}, {runner}, in one scan; reference and minihack: one Python env, "
          f"{args.repeats} x {args.seconds:.0f} s; medians")
    rows = []
    for ours_id, gb_id, mh_id in TASKS:
        r = {"task": ours_id, "load": os.getloadavg()[0]}
        r["ours"] = glyphjax_steps(ours_id, args.batch, args.repeats, share)
        r["glyphbench"] = (subprocess_rates([sys.executable, "-c", GLYPHBENCH_SCRIPT, gb_path, gb_id,
                                             str(args.repeats), str(args.seconds)], 300)
                           if gb_path else {"error": "no --glyphbench-src"})
        r["minihack"] = subprocess_rates([args.minihack_python, "-c", MINIHACK_SCRIPT, mh_id,
                                          str(args.repeats), str(args.seconds)], 300)
        rows.append(r)
        print(f"# {ours_id} done (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)

    print("\n| task | ours steps/CPU-s | ours steps/s | GlyphBench steps/CPU-s | x GlyphBench (CPU) "
          "| minihack steps/CPU-s | x minihack (CPU) | x GlyphBench (wall) | load |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        o, g, m = r["ours"], r["glyphbench"], r["minihack"]
        ratio = lambda p, k="steps_per_cpu_s": (f"{o[k] / p[k]:.1f}x" if k in p else "-")  # noqa: E731
        print(f"| {r['task']} | {fmt(o['steps_per_cpu_s'])} | {fmt(o['steps_per_s'])} | "
              f"{fmt(g.get('steps_per_cpu_s'))} | {ratio(g)} | {fmt(m.get('steps_per_cpu_s'))} | {ratio(m)} | "
              f"{ratio(g, 'steps_per_s')} | {r['load']:.1f} |")
    for r in rows:
        for peer in ("glyphbench", "minihack"):
            if "error" in r[peer]:
                print(f"- {r['task']}: {peer}: {r[peer]['error']}")

    compile_rows = {}
    if not args.no_compile:
        progs = glyphjax.programs("minihack/*")
        print(f"\n# cold compile CPU-s of vmapped reset + step + render, B={args.batch} "
              f"({len(progs)} programs for {sum(map(len, progs.values()))} ids)")
        print("| program (first id) | ids | reset | step | render | total | <= 5 s |\n|---|---:|---:|---:|---:|---:|:-:|")
        for first, ids in progs.items():
            c = program_compile_seconds(first, args.batch)
            compile_rows[first] = {"ids": ids, **c}
            tot = sum(c.values())
            print(f"| {first} | {len(ids)} | {c['reset']:.2f} | {c['step']:.2f} | {c['render']:.2f} | {tot:.2f} | "
                  f"{'yes' if tot <= 5.0 else '**no**'} |", flush=True)
        total = sum(sum(v for k, v in c.items() if k != "ids") for c in compile_rows.values())
        print(f"suite total: {total:.1f} CPU-s for {len(progs)} programs (load {os.getloadavg()[0]:.1f})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"date": started.isoformat(timespec="seconds"), "machine": machine(),
                       "batch": args.batch, "rows": rows, "compile": compile_rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
