"""Craftax throughput and compile time: ours next to the `craftax` package (not a test).

    python bench/craftax_throughput.py [--batches 1 64 1024 4096] [--steps 50] [--repeats 2]
        [--package-steps 2] [--text-batches 1 4096] [--envs classic full] [--skip-steps] [--skip-text]

Random play, `--steps` steps per timed call inside one jitted scan, at each batch size B:
- ours: `AutoReset.step_batch(max_resets=max(1, B // 16))` (a fresh episode only for finished
  slots, at most B/16 per step) on `craftax/choptrees` (a focused task; package engine: Classic)
  and `craftax/full`, rendering the glyph frame every step;
- the package: its own auto-reset env (`CraftaxClassicSymbolicEnv`, `CraftaxSymbolicEnv`:
  `step` regenerates a world for every slot on every step, selected where done) with its
  symbolic observation, the way its README steps it; and the same env's `step_env` (its
  dynamics and observation with no reset at all: a lower bound on any reset scheme's cost).
  The auto-reset peer runs only up to `--package-auto-max-b` (default 1024): a vmapped world
  generation costs more per env as B grows (about a CPU-minute per step at B = 1024 on Classic).
Figures per process CPU-second (robust to other load on a shared machine) and the compile
CPU-seconds of the first call; medians of `--repeats` calls. Each row also prints the process's
peak resident memory so far (GB; run one `--envs`/`--batches` pair per process for a clean
per-row figure). The package's auto-reset costs a
world per slot per step, so its calls run `--package-steps` steps.

Observations per CPU-second (`--text-batches`, on reset states of `craftax/full` and
`craftax/classic`): glyph text (vmapped render + `render_batch`), native text (our NumPy port;
the package's own `render_craftax_text` on a few states, full game only) and pixels (the
package's agent renderer, vmapped; compile excluded).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np
from craftax.craftax.envs.craftax_symbolic_env import CraftaxSymbolicEnv
from craftax.craftax_classic.envs.craftax_symbolic_env import CraftaxClassicSymbolicEnv

import glyphjax
from glyphjax.core.rollout import AutoReset
from glyphjax.suites.craftax import native


def ours_runner(task_id: str, b: int, steps: int):
    env = glyphjax.make(task_id)
    wrapper, params = AutoReset(env), env.default_params()
    n = env.card.num_actions

    @jax.jit
    def run(state, key):
        def body(s, k):
            a = jax.random.randint(k, (b,), 0, n)
            s, tr, frame = wrapper.step_batch(s, a, params, max_resets=max(1, b // 16))
            return s, tr.reward.sum() + frame.grid[:, 0, 0].sum().astype(jnp.float32)
        return jax.lax.scan(body, state, jax.random.split(key, steps))
    state = jax.jit(jax.vmap(lambda s: wrapper.reset(s, params)))(jnp.arange(b, dtype=jnp.uint32))
    return run, state


def package_runner(pkg, b: int, steps: int, auto_reset: bool = True):
    params = pkg.default_params
    n = pkg.num_actions
    step = pkg.step if auto_reset else pkg.step_env

    @jax.jit
    def run(state, key):
        def body(s, k):
            ks = jax.random.split(k, b + 1)
            a = jax.random.randint(ks[0], (b,), 0, n)
            obs, s, r, d, _ = jax.vmap(step, in_axes=(0, 0, 0, None))(ks[1:], s, a, params)
            return s, r.sum() + obs[:, 0].sum()
        return jax.lax.scan(body, state, jax.random.split(key, steps))
    keys = jax.random.split(jax.random.PRNGKey(0), b)
    state = jax.jit(jax.vmap(lambda k: pkg.reset(k, params)[1]))(keys)
    return run, state


def measure(run, state, b: int, steps: int, repeats: int) -> tuple[float, float]:
    """-> (CPU-s of the first call (compile + run), median steps per CPU-second). One more untimed
    call first: a stepped state can differ from the reset state in weak types (the package's
    does), which compiles the program a second time."""
    t0 = time.process_time()
    state, _ = jax.block_until_ready(run(state, jax.random.PRNGKey(1)))
    compile_s = time.process_time() - t0
    state, _ = jax.block_until_ready(run(state, jax.random.PRNGKey(1)))
    rates = []
    for i in range(repeats):
        t0 = time.process_time()
        state, _ = jax.block_until_ready(run(state, jax.random.PRNGKey(2 + i)))
        rates.append(b * steps / max(time.process_time() - t0, 1e-9))
    return compile_s, statistics.median(rates)


def _rate(fn, n: int, repeats: int) -> float:
    """Median of `n` / CPU-seconds of `fn()` over `repeats` calls (after one warm-up call)."""
    fn()
    rates = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        rates.append(n / max(time.process_time() - t0, 1e-9))
    return statistics.median(rates)


def text_rates(task_id: str, b: int, repeats: int) -> dict[str, float]:
    """Observations per CPU-second of each format at batch `b` (reset states of `task_id`)."""
    env = glyphjax.make(task_id)
    params = env.default_params()
    states = jax.jit(jax.vmap(lambda s: env.reset(glyphjax.reset_key(s), params)))(jnp.arange(b, dtype=jnp.uint32))
    render = jax.jit(jax.vmap(lambda s: env.render(s, params)))
    pixels = jax.vmap(native.pixel_renderer(native.is_full(states.game)))
    host = jax.device_get(states.game)
    one = lambda i: jax.tree.map(lambda x: np.asarray(x)[i], host)  # noqa: E731
    glyph = lambda: [o.render() for o in glyphjax.render_batch(env.card, jax.device_get(render(states)))]  # noqa: E731
    out = {"glyph": _rate(glyph, b, repeats),
           "native": _rate(lambda: [native.native_text(one(i)) for i in range(b)], b, repeats),
           "pixels": _rate(lambda: jax.block_until_ready(pixels(states.game)), b, repeats)}
    if native.is_full(host):
        from craftax.craftax.renderer import render_craftax_text
        k = min(b, 3)
        out["package native"] = _rate(lambda: [render_craftax_text(one(i)) for i in range(k)], k, 1)
    return out


def peak_gb() -> float:
    """This process's peak resident memory so far, GB (Linux ru_maxrss is in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024, 4096])
    ap.add_argument("--envs", nargs="+", choices=["classic", "full"], default=["classic", "full"],
                    help="classic: craftax/choptrees vs Craftax-Classic-Symbolic; full: craftax/full vs Craftax-Symbolic")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--package-steps", type=int, default=2)
    ap.add_argument("--package-auto-max-b", type=int, default=1024,
                    help="largest B at which the package's auto-reset step is timed")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--text-batches", type=int, nargs="+", default=[1, 4096])
    ap.add_argument("--skip-steps", action="store_true")
    ap.add_argument("--skip-text", action="store_true")
    args = ap.parse_args()
    if not args.skip_steps:
        pairs = {"classic": ("craftax/choptrees", CraftaxClassicSymbolicEnv),
                 "full": ("craftax/full", CraftaxSymbolicEnv)}
        print("| env | B | ours compile CPU-s | ours steps/CPU-s | package auto-reset compile CPU-s | "
              "package auto-reset steps/CPU-s | package no-reset compile CPU-s | package no-reset steps/CPU-s "
              "| peak RSS GB |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for task_id, pkg in (pairs[e] for e in args.envs):
            pkg = pkg()
            for b in args.batches:
                oc, orate = measure(*ours_runner(task_id, b, args.steps), b, args.steps, args.repeats)
                ps = args.package_steps
                auto = "| not run | not run"
                if b <= args.package_auto_max_b:
                    pc, prate = measure(*package_runner(pkg, b, ps), b, ps, args.repeats)
                    auto = f"| {pc:.1f} | {prate:,.1f}"
                nc, nrate = measure(*package_runner(pkg, b, args.steps, auto_reset=False), b, args.steps,
                                    args.repeats)
                print(f"| {task_id} vs {pkg.name} | {b} | {oc:.1f} | {orate:,.0f} {auto} | {nc:.1f} | {nrate:,.0f} "
                      f"| {peak_gb():.1f} |", flush=True)
    if not args.skip_text:
        print("\n| env | B | glyph text obs/CPU-s | native text (ours) | native text (package) | pixels |")
        print("|---|---:|---:|---:|---:|---:|")
        for task_id in ("craftax/classic", "craftax/full"):
            for b in args.text_batches:
                r = text_rates(task_id, b, args.repeats)
                pkg = f"{r['package native']:.2f}" if "package native" in r else "none (no Classic text renderer)"
                print(f"| {task_id} | {b} | {r['glyph']:,.0f} | {r['native']:,.0f} | {pkg} | {r['pixels']:,.0f} |",
                      flush=True)


if __name__ == "__main__":
    main()
