"""Random legal self-play steps/s at batch B for one variant of each zero-sum template, with pgx's
tic-tac-toe and Kuhn poker stepped the same way in the same run (when pgx is importable).

    python bench/zerosum_speed.py [--batch 4096] [--repeats 5]

Each measurement: reset B games, then T plies of uniformly random legal moves, all inside one
jitted `lax.scan` over a vmapped step (T = the game's longest episode, so every game finishes);
steps/s = B * T / wall time, median over repeats after a compile-and-warm-up call.
"""

from __future__ import annotations

import argparse
import time

import jax
import numpy as np

import glyphjax
from glyphjax.core.sampling import uniform_true


def glyphjax_runner(task_id: str, batch: int, plies: int):
    env = glyphjax.make(task_id)
    params = env.default_params()

    def run(key):
        states = jax.vmap(lambda k: env.reset(k, params))(jax.random.split(key, batch))

        def ply(s, k):
            u = jax.random.uniform(k, (batch,))
            a = jax.vmap(lambda st, x: uniform_true(env.legal(st, params), x))(s, u)
            s, _ = jax.vmap(lambda kk, st, aa: env.step(kk, st, aa, params))(jax.random.split(k, batch), s, a)
            return s, None
        s, _ = jax.lax.scan(ply, states, jax.random.split(jax.random.fold_in(key, 1), plies))
        return s.done
    return jax.jit(run)


def pgx_runner(name: str, batch: int, plies: int):
    import pgx
    env = pgx.make(name)

    def run(key):
        states = jax.vmap(env.init)(jax.random.split(key, batch))

        def ply(s, k):
            u = jax.random.uniform(k, (batch,))
            a = jax.vmap(uniform_true)(s.legal_action_mask, u)
            s = jax.vmap(env.step)(s, a, jax.random.split(k, batch))
            return s, None
        s, _ = jax.lax.scan(ply, states, jax.random.split(jax.random.fold_in(key, 1), plies))
        return s.terminated
    return jax.jit(run)


def measure(fn, batch: int, plies: int, repeats: int) -> float:
    jax.block_until_ready(fn(jax.random.PRNGKey(0)))
    times = []
    for i in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(jax.random.PRNGKey(i + 1)))
        times.append(time.perf_counter() - t0)
    return batch * plies / float(np.median(times))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    rows = [("glyphjax zerosum/tictactoe/base", glyphjax_runner("zerosum/tictactoe/base", args.batch, 9), 9),
            ("glyphjax zerosum/kuhn/rule-single", glyphjax_runner("zerosum/kuhn/rule-single", args.batch, 3), 3),
            ("glyphjax zerosum/barter/base", glyphjax_runner("zerosum/barter/base", args.batch, 10), 10)]
    try:
        rows += [("pgx tic_tac_toe", pgx_runner("tic_tac_toe", args.batch, 9), 9),
                 ("pgx kuhn_poker", pgx_runner("kuhn_poker", args.batch, 3), 3)]
    except ImportError:
        print("(pgx not importable: peer rows skipped)")
    print(f"| game | steps/s at B={args.batch} (median of {args.repeats}) |\n|---|---:|")
    for name, fn, plies in rows:
        print(f"| {name} | {measure(fn, args.batch, plies, args.repeats):,.0f} |")


if __name__ == "__main__":
    main()
