"""Environment throughput: env steps/s with random actions and text observations/s.

    python bench/env_throughput.py                      # snake-easy, snake-hard + jumanji Snake-v1
    python bench/env_throughput.py --tasks 'classics/*' --batch 1 64 1024 4096
    python bench/env_throughput.py --glyphbench-src ~/src/glyphbench   # + the Python reference

For each task and batch size B: one jitted `lax.scan` of N auto-reset steps of B vmapped envs
with uniformly random actions (no rendering); compile time is measured apart (lower + compile).
Steps counted are live env steps: with --reset-share, a finished slot that waits for a reset place
is frozen and not counted (`live_share` = counted / (B * N)).
Text observations/s: jitted vmapped `render` of B states packed into one array, copied to the
host and turned into strings by `glyphjax.observation_strings` (`observation_text` at B = 1); and
whole turns: at B = 1 one episode (`glyphjax.core.packed.EpisodeStepper`: fused step + render, one
copy, text), at B > 1 one jitted call of B auto-reset steps (at most B/16 resets a step) + render, one copy,
text. The peer (jumanji Snake-v1, 12x12) is stepped the same way
in the same run (AutoResetWrapper, vmapped, random actions in one scan). With `--glyphbench-src`
the GlyphBench reference's Python env for every Classics and MiniGrid task in --tasks (its
registry id glyphbench/<suite>-<name>-v0) runs, one env with random actions and a reset on episode end, in
its own subprocess with a time cap (a crash or hang gives '-' and the reason): `_step` (no text)
and `step` (text); a second table compares ours at the largest B and at B=1 with it, per
CPU-second and wall. Figures are medians of `--repeats` runs.

    python bench/env_throughput.py --tasks 'classics/*' --batch 4096 --no-peer --no-text \\
        --reset-share 0.0625 --glyphbench-src /tmp/glyphbench --json out.json
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


def glyphjax_steps(task: str, b: int, repeats: int, reset_share: float | None = None,
                   reset_chunk: int | None = None) -> dict:
    """reset_share: AutoReset.step_batch with at most ceil(share * B) fresh episodes per step
    (None: vmap(AutoReset.step), a fresh reset computed for every slot every step); reset_chunk:
    generate them that many at a time, stopping after the last finished slot."""
    env = glyphjax.make(task)
    wrapped = AutoReset(env)
    n_actions = env.card.num_actions
    n = scan_length(b)
    max_resets = None if reset_share is None else max(1, int(np.ceil(reset_share * b)))

    def run(state, key):
        def body(state, k):
            a = jax.random.randint(k, (b,), 0, n_actions, jnp.int32)
            live = (~state.env_state.done).sum()  # a slot frozen waiting for a reset place is no step
            if max_resets is None:
                state, tr, _ = jax.vmap(wrapped.step)(state, a)
            else:
                state, tr, _ = wrapped.step_batch(state, a, max_resets=max_resets, reset_chunk=reset_chunk)
            return state, (tr.reward.sum(), live)
        state, (r, live) = jax.lax.scan(body, state, jax.random.split(key, n))
        return r.sum(), live.sum()

    state = jax.vmap(wrapped.reset)(jnp.arange(b, dtype=jnp.uint32))
    key = jax.random.PRNGKey(0)
    compiled, compile_s = compile_fn(run, state, key)
    live = int(jax.device_get(compiled(state, key))[1])  # warm; the same count on every call
    sec, cpu = time_call(compiled, (state, key), repeats)
    return {"steps_per_s": live / sec, "steps_per_cpu_s": live / cpu, "compile_s": compile_s,
            "live_share": live / (b * n)}


def timed_loop(fn, repeats: int, min_seconds: float = 0.2) -> tuple[float, float]:
    """Median (wall, CPU) seconds per call of fn(): each repeat calls it until `min_seconds` of
    CPU time passed, so a ~50 us call is not timed one at a time."""
    walls, cpus = [], []
    for _ in range(repeats):
        n, c, t = 0, time.process_time(), time.perf_counter()
        while time.process_time() - c < min_seconds:
            fn()
            n += 1
        walls.append((time.perf_counter() - t) / n)
        cpus.append((time.process_time() - c) / n)
    return statistics.median(walls), statistics.median(cpus)


def glyphjax_text(task: str, b: int, repeats: int) -> dict:
    """Text observations/s of B stepped states: jitted vmapped render packed into one array
    (`glyphjax.core.packed`), one device copy, `observation_strings` (`observation_text` at B = 1);
    and whole turns (step + render, one copy, text): at B = 1 one episode
    (`EpisodeStepper`: fused step + render + pack), at B > 1 one jitted call of B auto-reset steps
    (random actions, at most B/16 resets a step) + render + pack, one copy, `observation_strings`."""
    from glyphjax.core.packed import EpisodeStepper, frame_layout, pack_frame, unpack_frames
    env = glyphjax.make(task)
    card = env.card
    # states a few random steps into their episodes (so frames are not all the reset frame)
    wrapped = AutoReset(env)
    state = jax.vmap(wrapped.reset)(jnp.arange(b, dtype=jnp.uint32))
    step = jax.jit(jax.vmap(wrapped.step))
    for i in range(5):
        state, _, _ = step(state, jax.random.randint(jax.random.PRNGKey(i), (b,), 0, card.num_actions, jnp.int32))
    layout = frame_layout(env)
    if b == 1:
        one = jax.tree.map(lambda x: x[0], state.env_state)
        render = jax.jit(lambda s: pack_frame(env.render(s)))

        def once():
            return glyphjax.observation_text(card, unpack_frames(np.asarray(render(one)), layout))
    else:
        render = jax.jit(jax.vmap(lambda s: pack_frame(env.render(s.env_state))))

        def once():
            return glyphjax.observation_strings(card, unpack_frames(np.asarray(render(state)), layout))
    once()
    wall, cpu = timed_loop(once, repeats)
    out = {"text_obs_per_s": b / wall, "text_obs_per_cpu_s": b / cpu}
    rng = np.random.default_rng(0)
    if b == 1:
        episode = [EpisodeStepper(env, 0)]

        def turn():
            if episode[0].done:
                episode[0] = EpisodeStepper(env, int(rng.integers(1 << 20)))
            episode[0].step(int(rng.integers(card.num_actions)))
            return glyphjax.observation_text(card, episode[0].frame)
    else:
        def fused(state, actions):  # the frame each slot's own step ends on; B/16 resets a step at most
            state, _, frame = wrapped.step_batch(state, actions, max_resets=max(1, b // 16))
            return state, jax.vmap(pack_frame)(frame)
        fused = jax.jit(fused)
        batch = [state]

        def turn():
            batch[0], packed = fused(batch[0], rng.integers(0, card.num_actions, b, dtype=np.int32))
            return glyphjax.observation_strings(card, unpack_frames(np.asarray(packed), layout))
    turn()
    wall, cpu = timed_loop(turn, repeats)
    out.update(turn_obs_per_s=b / wall, turn_obs_per_cpu_s=b / cpu)
    return out


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
src, env_id, repeats, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
sys.path.insert(0, src)
# a bare package object, so glyphbench/__init__.py (which needs the `verifiers` package for its
# RL integration) is not executed: only the core and the env's suite modules are imported
pkg = types.ModuleType("glyphbench"); pkg.__path__ = [os.path.join(src, "glyphbench")]
sys.modules["glyphbench"] = pkg
import importlib
import numpy as np
importlib.import_module("glyphbench.envs." + env_id.split("/")[1].split("-")[0])  # registers the suite's envs
from glyphbench.core.registry import make_env
env = make_env(env_id)
rng = np.random.default_rng(0)
n_act = env.action_spec.n
out = {}
for mode in ("steps", "text_obs"):
    walls, cpus = [], []
    for rep in range(repeats):
        seed = rep
        def reset(seed):
            if mode == "text_obs":
                env.reset(seed)  # public reset: renders the text observation
            else:  # BaseGlyphEnv.reset without the render
                env._rng = np.random.default_rng(seed); env._turn = 0; env._reset(seed)
        reset(seed)
        c = time.process_time(); t = time.perf_counter(); steps = 0
        while time.perf_counter() - t < seconds:
            a = int(rng.integers(n_act))
            if mode == "steps":  # BaseGlyphEnv.step without the text render
                env._turn += 1
                _, _, term, trunc, _ = env._step(a)
                trunc = trunc or env._turn >= env.max_turns
            else:
                _, _, term, trunc, _ = env.step(a)
            steps += 1
            if term or trunc:
                seed += 1000; reset(seed)
        walls.append(steps / (time.perf_counter() - t)); cpus.append(steps / max(time.process_time() - c, 1e-9))
    out[mode + "_per_s"] = statistics.median(walls); out[mode + "_per_cpu_s"] = statistics.median(cpus)
print(json.dumps(out))
"""


def glyphbench_path(src: str) -> str:
    path = os.path.join(src, "src") if os.path.isdir(os.path.join(src, "src", "glyphbench")) else src
    if not os.path.isdir(os.path.join(path, "glyphbench", "envs", "classics")):
        raise SystemExit(f"--glyphbench-src {src}: no glyphbench package found there (expected "
                         f"{src}/src/glyphbench/envs/classics); point it at a checkout of the GlyphBench "
                         f"repository (github.com/roger-creus/glyphbench)")
    return path


def glyphbench_id(task: str) -> str | None:
    """Our classics/<name>, minigrid/<name>, miniatari/<game> and atari/<game> are the reference's
    glyphbench/<suite>-<name>-v0 (same names in both registries), procgen/<game> (easy) its
    glyphbench/procgen-<game>-v0 (it has no hard mode); None for other tasks (not run against the
    reference here)."""
    suite, _, name = task.partition("/")
    if suite == "procgen":
        return None if name.endswith("-hard") else f"glyphbench/procgen-{name}-v0"
    return f"glyphbench/{suite}-{name}-v0" if suite in ("classics", "minigrid", "miniatari", "atari") else None


def glyphbench_rates(path: str, task: str, repeats: int, seconds: float = 1.0,
                     timeout: float = 120.0) -> dict:
    """The reference's env for `task` (plain Python, one env, random actions, reset on episode
    end) in its own subprocess: steps/s with its internal `_step` (no text) and text obs/s with
    its public `step` (renders). A crash, a hang past `timeout` s or a task the reference lacks
    gives {"error": reason} instead of figures."""
    env_id = glyphbench_id(task)
    if env_id is None:
        return {"error": "no reference env"}
    try:
        p = subprocess.run([sys.executable, "-c", GLYPHBENCH_SCRIPT, path, env_id, str(repeats), str(seconds)],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"no result within {timeout:.0f} s (hang or very slow reset)"}
    if p.returncode != 0:
        lines = [ln for ln in p.stderr.strip().splitlines() if ln.strip()]
        reason = lines[-1].strip() if lines else f"exit code {p.returncode}"
        if "unknown env_id" in reason:
            reason = f"not in the reference registry ({env_id})"
        return {"error": reason[:120]}
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


def fmt(x, spec=",.0f"):
    return "-" if x is None else format(x, spec)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", nargs="+", default=DEFAULT_TASKS, help="task ids or globs")
    ap.add_argument("--batch", nargs="+", type=int, default=DEFAULT_BATCH)
    ap.add_argument("--repeats", type=int, default=5, help="timed runs per figure (median)")
    ap.add_argument("--no-text", action="store_true", help="skip text observations/s")
    ap.add_argument("--no-peer", action="store_true", help="skip jumanji")
    ap.add_argument("--glyphbench-src", default=None,
                    help="checkout of the GlyphBench reference: its Python env for every Classics task "
                         "in --tasks runs in the same run (adds B=1 to --batch)")
    ap.add_argument("--ref-timeout", type=float, default=120.0,
                    help="seconds before a reference env's subprocess is given up ('-' in the table)")
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file (after every task)")
    ap.add_argument("--reset-share", type=float, default=None,
                    help="auto-reset at most this share of the batch per step (AutoReset.step_batch); "
                         "default: vmap(AutoReset.step), a fresh reset for every slot every step")
    ap.add_argument("--reset-chunk", type=int, default=None,
                    help="with --reset-share: generate fresh episodes this many at a time, only as many "
                         "chunks as slots finished (AutoReset.step_batch reset_chunk)")
    ap.add_argument("--sync-dispatch", action="store_true",
                    help="run every jitted call inline on the calling thread (JAX config "
                         "jax_cpu_enable_async_dispatch=False, env JAX_CPU_ENABLE_ASYNC_DISPATCH=0): "
                         "measures what CPU async dispatch costs a B = 1 call")
    args = ap.parse_args(argv)
    if args.sync_dispatch:  # before any array exists: the CPU client reads it when it is created
        jax.config.update("jax_cpu_enable_async_dispatch", False)
    try:
        tasks = glyphjax.task_ids(args.tasks)
    except glyphjax.UnknownTaskError as e:
        print(f"env_throughput: error: {e}", file=sys.stderr)
        return 2
    gb_path = glyphbench_path(args.glyphbench_src) if args.glyphbench_src else None
    batches = sorted(set(args.batch) | ({1} if gb_path else set()))
    from rich.console import Console
    from rich.table import Table
    console = Console(stderr=True)
    rows, peer, gb = {}, {}, {}
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")

    def save():
        if args.json:
            doc = {"date": started, "machine": machine(), "repeats": args.repeats,
                   "reset_share": args.reset_share, "reset_chunk": args.reset_chunk,
                   "async_dispatch": not args.sync_dispatch, "argv": sys.argv[1:] if argv is None else list(argv),
                   "loadavg_end": list(os.getloadavg()),
                   "glyphjax": [{"task": t, "batch": b, **r} for (t, b), r in rows.items()],
                   "jumanji_snake_v1": [{"batch": b, **r} for b, r in peer.items()],
                   "glyphbench": gb}
            with open(args.json, "w") as f:
                json.dump(doc, f, indent=1)

    if not args.no_peer:
        for b in batches:
            with console.status(f"jumanji Snake-v1 B={b}"):
                r = jumanji_steps(b, args.repeats)
            if r is None:
                console.print("[yellow]jumanji not installed (pip install jumanji): no peer figures[/yellow]")
                break
            peer[b] = r
    for task in tasks:
        for b in batches:
            with console.status(f"{task} B={b}"):
                try:
                    r = glyphjax_steps(task, b, args.repeats, args.reset_share, args.reset_chunk)
                    if not args.no_text:
                        r.update(glyphjax_text(task, b, args.repeats))
                except Exception as e:  # one broken task must not lose the other figures
                    r = {"error": f"{type(e).__name__}: {e}"[:120]}
                r["loadavg"] = os.getloadavg()[0]
            rows[(task, b)] = r
        if gb_path:
            with console.status(f"GlyphBench reference {task}"):
                gb[task] = glyphbench_rates(gb_path, task, args.repeats, timeout=args.ref_timeout)
                gb[task]["loadavg"] = os.getloadavg()[0]
        console.print(f"{task}: done (load {os.getloadavg()[0]:.1f})")
        save()

    table = Table(title=f"env throughput ({datetime.date.today()}; {machine()})", title_justify="left")
    for col in ("task", "B", "steps/s", "steps/cpu-s", "compile cpu-s", "x jumanji (wall)",
                "x jumanji (cpu)", "text obs/s", "text obs/cpu-s", "live share"):
        table.add_column(col, justify="left" if col == "task" else "right")
    for (task, b), r in rows.items():
        if "error" in r:
            table.add_row(task, str(b), "-", "-", "-", "-", "-", "-", "-", r["error"])
            continue
        ratio = f"{r['steps_per_s'] / peer[b]['steps_per_s']:.2f}x" if b in peer else "-"
        ratio_cpu = f"{r['steps_per_cpu_s'] / peer[b]['steps_per_cpu_s']:.2f}x" if b in peer else "-"
        table.add_row(task, str(b), fmt(r["steps_per_s"]), fmt(r["steps_per_cpu_s"]),
                      f"{r['compile_s']:.2f}", ratio, ratio_cpu, fmt(r.get("text_obs_per_s")),
                      fmt(r.get("text_obs_per_cpu_s")), fmt(r.get("live_share"), ".2f"))
    for b, r in peer.items():
        table.add_row("jumanji Snake-v1 (peer)", str(b), fmt(r["steps_per_s"]), fmt(r["steps_per_cpu_s"]),
                      f"{r['compile_s']:.2f}", "1.00x", "1.00x", "-", "-", "1.00")
    Console(width=170).print(table)
    if gb:
        # one row per task: ours at the largest B and at B=1 against the reference's one Python env
        big = max(batches)
        ref = Table(title=f"vs the GlyphBench reference (Python, one env; ours B={big} and B=1; "
                          f"ratios per CPU-second and wall)", title_justify="left")
        for col in (f"task", f"ours B={big} steps/s", f"ours B={big} steps/cpu-s", "ours B=1 steps/cpu-s",
                    "ref steps/s", "ref steps/cpu-s", "x ref (cpu)", "x ref (wall)", "compile cpu-s",
                    "ref text obs/s", "ref text obs/cpu-s", "note"):
            ref.add_column(col, justify="left" if col in ("task", "note") else "right")
        for task, g in gb.items():
            o, o1 = rows[(task, big)], rows[(task, 1)]
            ok = "error" not in o and "error" not in g
            ref.add_row(task, fmt(o.get("steps_per_s")), fmt(o.get("steps_per_cpu_s")),
                        fmt(o1.get("steps_per_cpu_s")), fmt(g.get("steps_per_s")), fmt(g.get("steps_per_cpu_s")),
                        f"{o['steps_per_cpu_s'] / g['steps_per_cpu_s']:.1f}x" if ok else "-",
                        f"{o['steps_per_s'] / g['steps_per_s']:.1f}x" if ok else "-",
                        fmt(o.get("compile_s"), ".2f"), fmt(g.get("text_obs_per_s")), fmt(g.get("text_obs_per_cpu_s")),
                        o.get("error") or g.get("error") or "")
        Console(width=200).print(ref)
        if not args.no_text:
            Console(width=200).print(text_table(rows, gb, batches))
    save()
    return 0


def text_table(rows: dict, gb: dict, batches: list[int]):
    """Text observations per CPU-second against the reference's public `step` (step + text):
    ours whole turns (step + render + copy + text) and text alone (render + copy + text) at every B."""
    from rich.table import Table
    table = Table(title="text observations / CPU-s vs the GlyphBench reference (its `step`: step + text)",
                  title_justify="left")
    cols = ["task", "ref text obs/cpu-s"]
    for b in batches:
        cols += [f"ours B={b} turn/cpu-s", f"x ref B={b} turn", f"ours B={b} text/cpu-s", f"x ref B={b} text"]
    for col in cols:
        table.add_column(col, justify="left" if col == "task" else "right")
    for task, g in gb.items():
        ref = g.get("text_obs_per_cpu_s")
        ratio = lambda x: "-" if ref is None or x is None else f"{x / ref:.2f}x"
        cells = [task, fmt(ref)]
        for b in batches:
            r = rows.get((task, b), {})
            turn, x = r.get("turn_obs_per_cpu_s"), r.get("text_obs_per_cpu_s")
            cells += [fmt(turn), ratio(turn), fmt(x), ratio(x)]
        table.add_row(*cells)
    return table


if __name__ == "__main__":
    sys.exit(main())
