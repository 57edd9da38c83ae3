"""Arcade throughput: env steps/s of every arcade task at batch B, with gymnax's MinAtar games
stepped the same way in the same run for the games both have.

    python bench/arcade_throughput.py                                   # B = 4096, all arcade ids
    python bench/arcade_throughput.py --tasks 'miniatari/breakout' --batch 1024 --repeats 3
    python bench/arcade_throughput.py --gymnax-path /tmp/gymnax_pkgs     # gymnax outside the env
    python bench/arcade_throughput.py --glyphbench-src /work/ref/glyphbench  # + the reference's games

Ours: `env_throughput.glyphjax_steps` (one jitted scan of auto-reset steps of B vmapped envs,
uniformly random actions, no rendering). gymnax (MinAtar Breakout, SpaceInvaders, Freeway,
Asterix; their `step` auto-resets and also builds the observation tensor, which ours is not
asked to do here): the same scan of B vmapped steps. gymnax is imported from
its environment modules only (its package `__init__` imports plotting libraries it does not
declare). Figures are medians of --repeats timed calls, per wall second and per process
CPU-second (the robust figure on a shared machine); compile CPU-s is trace + lower + compile of
the scan, with the persistent compilation cache off (a cold compile). The last lines give the
number of tasks and compiled programs and the sum of their compile CPU-s.
With --glyphbench-src, the GlyphBench reference's Python game of the same name
(glyphbench/miniatari-<game>-v0, glyphbench/atari-<game>-v0) is stepped in the same run by
`env_throughput.glyphbench_rates`: one env in its own process, uniformly random actions, its
internal `_step` (no text render), reset on episode end; its steps per CPU-second and ours / its
are reported ("-" with the reason where the reference lacks the game or fails).
"""

from __future__ import annotations

import argparse
import os
import sys
import types

import jax

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from env_throughput import (compile_fn, glyphbench_path, glyphbench_rates, glyphjax_steps,  # noqa: E402
                            scan_length, time_call)

import glyphjax  # noqa: E402

# our game -> gymnax MinAtar module and class
GYMNAX = {"breakout": ("breakout", "MinBreakout"), "spaceinvaders": ("space_invaders", "MinSpaceInvaders"),
          "freeway": ("freeway", "MinFreeway"), "asterix": ("asterix", "MinAsterix")}


def load_gymnax(path: str | None):
    """gymnax's MinAtar modules (or None when gymnax is not found), without its package __init__."""
    if path:
        sys.path.insert(0, path)
    try:
        import importlib.util
        spec = importlib.util.find_spec("gymnax")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None
    root = list(spec.submodule_search_locations)[0]
    for name, sub in (("gymnax", root), ("gymnax.environments", os.path.join(root, "environments"))):
        module = types.ModuleType(name)
        module.__path__ = [sub]
        sys.modules.setdefault(name, module)
    import importlib
    return {g: getattr(importlib.import_module(f"gymnax.environments.minatar.{m}"), cls)
            for g, (m, cls) in GYMNAX.items()}


def gymnax_steps(env_cls, b: int, repeats: int) -> dict:
    """Steps/s of B vmapped gymnax envs with random actions in one scan (gymnax auto-resets)."""
    env = env_cls()
    params = env.default_params
    n = scan_length(b)

    def run(carry, key):
        def body(carry, k):
            obs, state = carry
            ka, ks = jax.random.split(k)
            a = jax.random.randint(ka, (b,), 0, env.num_actions)
            obs, state, reward, *_ = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(ks, b), state, a, params)
            return (obs, state), reward.sum()
        carry, r = jax.lax.scan(body, carry, jax.random.split(key, n))
        return carry, r.sum()

    carry = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(jax.random.PRNGKey(1), b), params)
    key = jax.random.PRNGKey(0)
    compiled, compile_s = compile_fn(run, carry, key)
    jax.block_until_ready(compiled(carry, key))
    sec, cpu = time_call(compiled, (carry, key), repeats)
    return {"steps_per_s": b * n / sec, "steps_per_cpu_s": b * n / cpu, "compile_s": compile_s}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", nargs="+", default=["miniatari/*", "atari/*"])
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--gymnax-path", default=None, help="a folder holding the gymnax package")
    ap.add_argument("--glyphbench-src", default=None, help="a GlyphBench checkout: step its games in the same run")
    ap.add_argument("--ref-timeout", type=float, default=120.0, help="seconds before a reference game is given up")
    args = ap.parse_args(argv)
    jax.config.update("jax_enable_compilation_cache", False)
    peers = load_gymnax(args.gymnax_path)
    gb_path = glyphbench_path(args.glyphbench_src) if args.glyphbench_src else None
    print(f"B = {args.batch}, {os.cpu_count()} CPUs, jax {jax.__version__}; "
          f"gymnax {'found' if peers else 'not found (no peer column)'}; "
          f"GlyphBench reference {gb_path or 'not given (no reference column)'}")
    print("| task | steps/s | steps/CPU-s | scan compile CPU-s | gymnax MinAtar steps/CPU-s | x gymnax (CPU) "
          "| reference steps/CPU-s | x reference (CPU) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    tasks = glyphjax.task_ids(args.tasks)
    compile_s, over, programs = 0.0, [], set()
    for task in tasks:
        ours = glyphjax_steps(task, args.batch, args.repeats)
        compile_s += ours["compile_s"]
        over += [task] if ours["compile_s"] > 5.0 else []
        programs.add(glyphjax.make(task).program)
        game = task.split("/", 1)[1]
        peer = gymnax_steps(peers[game], args.batch, args.repeats) if peers and game in peers and task.startswith("miniatari/") else None
        ref = glyphbench_rates(gb_path, task, args.repeats, timeout=args.ref_timeout) if gb_path else None
        cells = [f"{ours['steps_per_s']:,.0f}", f"{ours['steps_per_cpu_s']:,.0f}", f"{ours['compile_s']:.2f}"]
        cells += peer_cells(ours, peer["steps_per_cpu_s"] if peer else None)
        cells += (peer_cells(ours, ref.get("steps_per_cpu_s")) if ref and "error" not in ref
                  else [f"- ({ref['error']})" if ref else "-", "-"])
        print(f"| {task} | " + " | ".join(cells) + " |", flush=True)
    print(f"\n{len(tasks)} tasks, {len(programs)} compiled programs; scan compile CPU-s: total {compile_s:.1f}, "
          f"mean {compile_s / max(len(tasks), 1):.2f}; over 5 CPU-s: {', '.join(over) or 'none'}; load averages "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    return 0


def peer_cells(ours: dict, peer_per_cpu_s: float | None) -> list[str]:
    """[a peer's steps/CPU-s, ours / peer's] as table cells ("-" without a peer figure)."""
    if not peer_per_cpu_s:
        return ["-", "-"]
    return [f"{peer_per_cpu_s:,.0f}", f"{ours['steps_per_cpu_s'] / peer_per_cpu_s:.2f}"]


if __name__ == "__main__":
    sys.exit(main())
