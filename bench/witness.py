"""WITNESS figures: random-play episodes/s per level at B = 4096 (the random filter's cost),
exact-solver time per level, over a sample of shipped levels; the forge's wall time per filled
curriculum slot (a game forged from scratch, with its per-filter removal counts) and the 20-level
extension's wall time for the whole bank. Prints a table.

    python bench/witness.py --levels 8 --forge-game walls-hexagon-a
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.rollout import random_policy, rollout
from glyphjax.witness import extend, forge, solver
from glyphjax.witness.bank import load_bank
from glyphjax.witness.engine import Witness
from glyphjax.witness.layout import game_params


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--levels", type=int, default=8)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--forge-game", default="walls-hexagon-a", help="game forged from scratch (its 2n + 1 slots)")
    ap.add_argument("--max-candidates", type=int, default=60, help="candidates per slot in the forge run")
    args = ap.parse_args()
    levels = [lv for lvs in load_bank().values() for lv in lvs]
    sample = [levels[i] for i in np.random.default_rng(0).choice(len(levels), args.levels, replace=False)]
    env = Witness("witness/bench", game_params([sample[0]], (0, 1, 2, 3)), "bench")
    seeds = jnp.arange(args.batch, dtype=jnp.uint32)
    jax.block_until_ready(rollout(env, random_policy(6), seeds).returns)  # compile
    rates, solve_s = [], []
    for lv in sample:
        t = time.perf_counter()
        jax.block_until_ready(rollout(env, random_policy(6), seeds, game_params([lv], (0, 1, 2, 3))).returns)
        rates.append(args.batch / (time.perf_counter() - t))
        t = time.perf_counter()
        solver.solve(lv)
        solve_s.append(time.perf_counter() - t)
    print(f"{'metric':<40} {'median':>10} {'min':>10} {'max':>10}")
    print(f"{'random-play episodes/s per level, B=' + str(args.batch):<40} {statistics.median(rates):>10.0f} "
          f"{min(rates):>10.0f} {max(rates):>10.0f}")
    print(f"{'exact solver s per level':<40} {statistics.median(solve_s):>10.3f} {min(solve_s):>10.3f} "
          f"{max(solve_s):>10.3f}")
    forge_figures(args.forge_game, args.max_candidates)


def forge_figures(name: str, max_candidates: int) -> None:
    """Wall time of forging one game from scratch and of extending the shipped bank's forged
    levels to 20-level curricula (the dedupe and JSON only; no random play)."""
    from glyphjax.witness.games import GAMES
    gi = next(i for i, g in enumerate(GAMES) if g.name == name)
    log = forge.ForgeLog()
    t = time.perf_counter()
    levels = forge.forge_game(gi, GAMES[gi], set(), log, max_candidates)
    wall = time.perf_counter() - t
    print(f"forge {name}: {len(levels)} slots filled in {wall:.1f} s wall "
          f"({wall / max(1, len(levels)):.1f} s per filled slot); {log.report()}")
    from glyphjax.witness.bank import BANK
    base = extend.forged_levels(BANK)
    t = time.perf_counter()
    picks = extend.extend(list(GAMES), base, 20, forge.ForgeLog())
    print(f"extend to 20 levels: {sum(len(v) for v in picks.values())} levels in "
          f"{time.perf_counter() - t:.1f} s wall")


if __name__ == "__main__":
    main()
