"""Solvability certification of the Procgen navigation games over many level seeds.

    python -m glyphjax.suites.procgen.certify --levels 1000            every navigation game, easy+hard
    python -m glyphjax.suites.procgen.certify --games maze --split test --levels 200 --out cert.json

For each game and mode, the planner (`planner.plan`, BFS over the task's own JAX step) searches
every level seed and `planner.verify` replays what it found; a level is certified when that
replay wins. Prints the certified share and the distribution of plan lengths (optimal where no
depth overflowed the frontier).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

NAVIGATION = ("coinrun", "heist", "jumper", "leaper", "maze", "miner", "climber", "ninja")
# Frontier per game: about the widest BFS layer its levels have (more only costs time; fewer can
# only make the search miss, which the report shows as uncertified levels).
FRONTIER = {"maze": 16, "heist": 16, "coinrun": 32, "leaper": 32, "jumper": 64, "ninja": 64,
            "climber": 128, "miner": 128}


def certify_game(task_id: str, levels: np.ndarray, frontier: int, batch: int, table_bits: int = 18) -> dict:
    """Plan and verify every level of `levels` for one task -> a summary row."""
    import glyphjax
    from glyphjax.suites.procgen.planner import plan, verify
    env = glyphjax.make(task_id)
    t0 = time.process_time()
    found, ok, lengths, over = [], [], [], []
    for lo in range(0, len(levels), batch):
        chunk = levels[lo: lo + batch]
        padded = np.concatenate([chunk, np.full(batch - len(chunk), chunk[-1], np.uint32)])
        p = plan(env, padded, frontier=frontier, table_bits=table_bits)
        good = verify(env, padded, p)[: len(chunk)]
        found.append(np.asarray(p.found)[: len(chunk)])
        ok.append(good)
        lengths.append(np.asarray(p.length)[: len(chunk)])
        over.append(np.asarray(p.overflowed)[: len(chunk)])
    found, ok, lengths, over = (np.concatenate(x) for x in (found, ok, lengths, over))
    won = lengths[ok]
    q = (lambda p: int(np.percentile(won, p))) if won.size else (lambda p: -1)
    return {"task": task_id, "levels": int(len(levels)), "first_level": int(levels[0]),
            "certified": int(ok.sum()), "found_not_verified": int((found & ~ok).sum()),
            "overflowed": int(over.sum()), "length_min": q(0), "length_median": q(50),
            "length_p90": q(90), "length_max": q(100), "cpu_s": round(time.process_time() - t0, 1),
            "uncertified_levels": [int(x) for x in levels[~ok][:20]]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m glyphjax.suites.procgen.certify",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=list(NAVIGATION))
    ap.add_argument("--modes", nargs="+", default=["easy", "hard"], choices=["easy", "hard"])
    ap.add_argument("--levels", type=int, default=1000)
    ap.add_argument("--start-level", type=int, default=0)
    ap.add_argument("--split", default="train", choices=["train", "test"])
    ap.add_argument("--frontier", type=int, default=None, help="default: FRONTIER[game]")
    ap.add_argument("--batch", type=int, default=50)
    ap.add_argument("--out", default=None, help="write the rows as JSON here")
    args = ap.parse_args(argv)
    import glyphjax
    from glyphjax.suites.procgen.engine import TEST_LEVEL_START
    base = (0 if args.split == "train" else TEST_LEVEL_START) + args.start_level
    levels = np.arange(base, base + args.levels, dtype=np.uint32)
    rows = []
    print(f"{'task':24s} {'levels':>6s} {'certified':>9s} {'overflow':>8s} {'len min/med/p90/max':>20s} {'CPU-s':>7s}")
    for game in args.games:
        for mode in args.modes:
            task_id = f"procgen/{game}" + ("-hard" if mode == "hard" else "")
            try:
                glyphjax.make(task_id)
            except glyphjax.UnknownTaskError as e:
                print(f"error: {e}", file=sys.stderr)
                return 2
            row = certify_game(task_id, levels, args.frontier or FRONTIER.get(game, 128), args.batch)
            rows.append(row)
            lens = f"{row['length_min']}/{row['length_median']}/{row['length_p90']}/{row['length_max']}"
            print(f"{task_id:24s} {row['levels']:6d} {row['certified']:9d} {row['overflowed']:8d} {lens:>20s} "
                  f"{row['cpu_s']:7.1f}", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if all(r["certified"] == r["levels"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
