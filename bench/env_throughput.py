"""Environment throughput: env steps/s with random actions and text observations/s.

    python bench/env_throughput.py                      # snake-easy, snake-hard + jumanji Snake-v1
    python bench/env_throughput.py --tasks 'classics/*' --batch 1 64 1024 4096
    python bench/env_throughput.py --glyphbench-src ~/src/glyphbench   # + the Python reference

For each task and batch size B: one jitted `lax.scan` of N auto-reset steps of B vmapped envs
with uniformly random actions (no rendering); compile time is measured apart (lower + compile).
Text observations/s: jitted vmapped `render` of B states, copied to the host and turned into
strings by `glyphjax.render_batch`. The peer (jumanji Snake-v1, 12x12) is stepped the same way
in the same run (AutoResetWrapper, vmapped, random actions in one scan). With `--glyphbench-src`
the GlyphBench reference Snake (plain Python, one env) runs in a subprocess importing it from
that checkout: `_step` (no text) and `step` (text). Figures are medians of `--repeats` runs.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.core.rollout import AutoReset

DEFAULT_TASKS = ["classics/snake-easy", "classics/snake-hard"]
DEFAULT_BATCH = [1, 64, 1024, 4096]
TARGET_STEPS = 200_000  # env steps per timed call (N = max(16, TARGET / B), capped at 1024)


def scan_length(b: int) -> int:
    return int(min(1024, max(16, TARGET_STEPS // b)))


def time_call(fn, args, repeats: int) -> tuple[float, float]:
    """Median (wall seconds, process CPU seconds) of fn(*args) (blocked until ready). CPU time
    is the robust figure on a shared machine: other processes do not inflate it."""
    walls, cpus = [], []
    for _ in range(repeats):
        c = time.process_time()
        t = time.perf_counter()
        jax.block_until_ready(fn(*args))
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus)


def compile_fn(fn, *args):
    """Compiled fn and its compile time in process CPU seconds (trace + lower + XLA compile):
    CPU time, not wall time, so a busy shared machine does not inflate it."""
    t = time.process_time()
    compiled = jax.jit(fn).lower(*args).compile()
    return compiled, time.process_time() - t


def glyphjax_steps(task: str, b: int, repeats: int, reset_share: float | None = None) -> dict:
    """reset_share: AutoReset.step_batch with at most ceil(share * B) fresh episodes per step
    (None: vmap(AutoReset.step), a fresh reset computed for every slot every step)."""
    env = glyphjax.make(task)
    wrapped = AutoReset(env)
    n_actions = env.card.num_actions
    n = scan_length(b)
    max_resets = None if reset_share is None else max(1, int(np.ceil(reset_share * b)))

    def run(state, key):
        def body(state, k):
            a = jax.random.randint(k, (b,), 0, n_actions, jnp.int32)
            if max_resets is None:
                state, tr, _ = jax.vmap(wrapped.step)(state, a)
            else:
                state, tr, _ = wrapped.step_batch(state, a, max_resets=max_resets)
            return state, tr.reward.sum()
        state, r = jax.lax.scan(body, state, jax.random.split(key, n))
        return state, r.sum()

    state = jax.vmap(wrapped.reset)(jnp.arange(b, dtype=jnp.uint32))
    key = jax.random.PRNGKey(0)
    compiled, compile_s = compile_fn(run, state, key)
    jax.block_until_ready(compiled(state, key))  # warm
    sec, cpu = time_call(compiled, (state, key), repeats)
    return {"steps_per_s": b * n / sec, "steps_per_cpu_s": b * n / cpu, "compile_s": compile_s}


def glyphjax_text(task: str, b: int, repeats: int) -> dict:
    env = glyphjax.make(task)
    card = env.card
    # states a few random steps into their episodes (so frames are not all the reset frame)
    wrapped = AutoReset(env)
    state = jax.vmap(wrapped.reset)(jnp.arange(b, dtype=jnp.uint32))
    step = jax.jit(jax.vmap(wrapped.step))
    for i in range(5):
        state, _, _ = step(state, jax.random.randint(jax.random.PRNGKey(i), (b,), 0, card.num_actions, jnp.int32))
    render = jax.jit(jax.vmap(lambda s: env.render(s.env_state)))
    jax.block_until_ready(render(state))

    def once():
        frames = jax.device_get(render(state))
        obs = glyphjax.render_batch(card, frames)
        return [o.render() for o in obs]
    once()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        texts = once()
        times.append(time.perf_counter() - t)
    assert len(texts) == b
    return {"text_obs_per_s": b / statistics.median(times)}


def jumanji_steps(b: int, repeats: int) -> dict | None:
    try:
        import jumanji
        from jumanji.wrappers import AutoResetWrapper
    except ImportError:
        return None
    env = AutoResetWrapper(jumanji.make("Snake-v1"))
    n = scan_length(b)
    n_actions = int(env.action_spec.num_values)

    def run(state, key):
        def body(state, k):
            a = jax.random.randint(k, (b,), 0, n_actions, jnp.int32)
            state, ts = jax.vmap(env.step)(state, a)
            return state, ts.reward.sum()
        state, r = jax.lax.scan(body, state, jax.random.split(key, n))
        return state, r.sum()

    state, _ = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(1), b))
    key = jax.random.PRNGKey(0)
    compiled, compile_s = compile_fn(run, state, key)
    jax.block_until_ready(compiled(state, key))
    sec, cpu = time_call(compiled, (state, key), repeats)
    return {"steps_per_s": b * n / sec, "steps_per_cpu_s": b * n / cpu, "compile_s": compile_s}


GLYPHBENCH_SCRIPT = r"""
import json, os, sys, time, statistics, types
sys.path.insert(0, sys.argv[1])
# a bare package object, so glyphbench/__init__.py (which needs the `verifiers` package for its
# RL integration) is not executed: only the game modules are imported
pkg = types.ModuleType("glyphbench"); pkg.__path__ = [os.path.join(sys.argv[1], "glyphbench")]
sys.modules["glyphbench"] = pkg
import numpy as np
from glyphbench.envs.classics.snake import SnakeEasyEnv, SnakeHardEnv
out = {}
for name, cls in (("classics/snake-easy", SnakeEasyEnv), ("classics/snake-hard", SnakeHardEnv)):
    env = cls()
    rng = np.random.default_rng(0)
    n_act = env.action_spec.n
    for mode in ("steps_per_s", "text_obs_per_s"):
        rates = []
        for rep in range(int(sys.argv[2])):
            env.reset(rep)
            t = time.perf_counter(); steps = 0; seed = rep
            while time.perf_counter() - t < 1.0:
                a = int(rng.integers(n_act))
                if mode == "steps_per_s":
                    env._turn += 1
                    _, _, term, trunc, _ = env._step(a)
                    trunc = trunc or env._turn >= env.max_turns
                else:
                    _, _, term, trunc, _ = env.step(a)
                steps += 1
                if term or trunc:
                    seed += 1000; env.reset(seed)
            rates.append(steps / (time.perf_counter() - t))
        out.setdefault(name, {})[mode] = statistics.median(rates)
print(json.dumps(out))
"""


def glyphbench_rates(src: str, repeats: int) -> dict:
    path = os.path.join(src, "src") if os.path.isdir(os.path.join(src, "src", "glyphbench")) else src
    if not os.path.isdir(os.path.join(path, "glyphbench")):
        raise SystemExit(f"--glyphbench-src {src}: no glyphbench package found there (expected "
                         f"{src}/src/glyphbench); point it at a checkout of the GlyphBench repository")
    p = subprocess.run([sys.executable, "-c", GLYPHBENCH_SCRIPT, path, str(repeats)],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise SystemExit(f"GlyphBench reference failed to run from {path}:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{cpu}, {os.cpu_count()} cores, load {load:.1f}, "
            f"jax {jax.__version__} ({jax.default_backend()})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", nargs="+", default=DEFAULT_TASKS, help="task ids or globs")
    ap.add_argument("--batch", nargs="+", type=int, default=DEFAULT_BATCH)
    ap.add_argument("--repeats", type=int, default=5, help="timed runs per figure (median)")
    ap.add_argument("--no-text", action="store_true", help="skip text observations/s")
    ap.add_argument("--no-peer", action="store_true", help="skip jumanji")
    ap.add_argument("--glyphbench-src", default=None, help="checkout of the GlyphBench reference")
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    ap.add_argument("--reset-share", type=float, default=None,
                    help="auto-reset at most this share of the batch per step (AutoReset.step_batch); "
                         "default: vmap(AutoReset.step), a fresh reset for every slot every step")
    args = ap.parse_args(argv)
    try:
        tasks = glyphjax.task_ids(args.tasks)
    except glyphjax.UnknownTaskError as e:
        print(f"env_throughput: error: {e}", file=sys.stderr)
        return 2
    from rich.console import Console
    from rich.table import Table
    console = Console(stderr=True)
    rows = {}
    peer = {}
    if not args.no_peer:
        for b in args.batch:
            with console.status(f"jumanji Snake-v1 B={b}"):
                r = jumanji_steps(b, args.repeats)
            if r is None:
                console.print("[yellow]jumanji not installed (pip install jumanji): no peer figures[/yellow]")
                break
            peer[b] = r
    for task in tasks:
        for b in args.batch:
            with console.status(f"{task} B={b}"):
                r = glyphjax_steps(task, b, args.repeats, args.reset_share)
                if not args.no_text:
                    r.update(glyphjax_text(task, b, args.repeats))
            rows[(task, b)] = r
    gb = glyphbench_rates(args.glyphbench_src, args.repeats) if args.glyphbench_src else {}

    table = Table(title=f"env throughput ({datetime.date.today()}; {machine()})", title_justify="left")
    for col in ("task", "B", "steps/s", "steps/cpu-s", "compile cpu-s", "x jumanji (wall)",
                "x jumanji (cpu)", "text obs/s"):
        table.add_column(col, justify="left" if col == "task" else "right")
    for (task, b), r in rows.items():
        ratio = f"{r['steps_per_s'] / peer[b]['steps_per_s']:.2f}x" if b in peer else "-"
        ratio_cpu = f"{r['steps_per_cpu_s'] / peer[b]['steps_per_cpu_s']:.2f}x" if b in peer else "-"
        table.add_row(task, str(b), f"{r['steps_per_s']:,.0f}", f"{r['steps_per_cpu_s']:,.0f}",
                      f"{r['compile_s']:.2f}", ratio, ratio_cpu,
                      f"{r['text_obs_per_s']:,.0f}" if "text_obs_per_s" in r else "-")
    for b, r in peer.items():
        table.add_row("jumanji Snake-v1 (peer)", str(b), f"{r['steps_per_s']:,.0f}", f"{r['steps_per_cpu_s']:,.0f}",
                      f"{r['compile_s']:.2f}", "1.00x", "1.00x", "-")
    for task, r in gb.items():
        table.add_row(f"GlyphBench {task} (Python)", "1", f"{r['steps_per_s']:,.0f}", "-", "-", "-", "-",
                      f"{r['text_obs_per_s']:,.0f}")
    Console(width=170).print(table)
    if args.json:
        doc = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "machine": machine(), "repeats": args.repeats,
               "glyphjax": [{"task": t, "batch": b, **r} for (t, b), r in rows.items()],
               "jumanji_snake_v1": [{"batch": b, **r} for b, r in peer.items()],
               "glyphbench": gb}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
