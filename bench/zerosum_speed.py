"""Random legal self-play steps/s at batch B for one variant of each zero-sum template, with pgx's
tic-tac-toe and Kuhn poker stepped the same way in the same run (when pgx is importable).

    python bench/zerosum_speed.py [--batch 4096] [--repeats 5]

Each measurement: reset B games, then T plies of uniformly random legal moves, all inside one
jitted `lax.scan` over a vmapped step (T = the game's longest episode, so every game finishes);
steps/s = B * T / wall time and steps per CPU-s = B * T / process CPU time, medians over repeats
after a compile-and-warm-up call. The rows are timed in turn within each repeat, so load from
other processes falls on every row alike; the ratio column compares a row with the pgx game of
its template measured in the same run, by wall time and by process CPU time (the fairer one on a
loaded machine).
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


def measure(rows: list, batch: int, repeats: int) -> list[tuple[float, float]]:
    """(steps/s, steps per CPU-s) of each (name, fn, plies) row: medians over `repeats` rounds
    in which every row runs once."""
    for _, fn, _ in rows:
        jax.block_until_ready(fn(jax.random.PRNGKey(0)))
    wall = [[] for _ in rows]
    cpu = [[] for _ in rows]
    for i in range(repeats):
        for j, (_, fn, _) in enumerate(rows):
            t0, c0 = time.perf_counter(), time.process_time()
            jax.block_until_ready(fn(jax.random.PRNGKey(i + 1)))
            wall[j].append(time.perf_counter() - t0)
            cpu[j].append(time.process_time() - c0)
    return [(batch * plies / float(np.median(w)), batch * plies / float(np.median(c)))
            for (_, _, plies), w, c in zip(rows, wall, cpu)]


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
    peer = {"tictactoe": "pgx tic_tac_toe", "kuhn": "pgx kuhn_poker"}
    figures = dict(zip((name for name, _, _ in rows), measure(rows, args.batch, args.repeats)))
    print(f"| game | steps/s at B={args.batch} | steps per CPU-s | vs pgx (steps/s) | vs pgx (per CPU-s) |\n"
          "|---|---:|---:|---:|---:|")
    for name, (per_s, per_cpu) in figures.items():
        other = next((figures.get(v) for k, v in peer.items() if f"/{k}/" in name), None)
        ratios = (f"{per_s / other[0]:.2f}x", f"{per_cpu / other[1]:.2f}x") if other else ("", "")
        print(f"| {name} | {per_s:,.0f} | {per_cpu:,.0f} | {ratios[0]} | {ratios[1]} |")

if __name__ == "__main__":
    main()
