"""Solvability certification of the Procgen navigation games over many level seeds.

    python -m glyphjax.suites.procgen.certify --levels 1000            every navigation game, easy+hard
    python -m glyphjax.suites.procgen.certify --games maze --split test --levels 200 --out cert.json

For each game and mode, the planner (`planner.plan`, BFS over the task's own JAX step) searches
every level seed and `planner.verify` replays what it found; a level is certified when that
replay wins. Levels left uncertified are searched once more with a wider frontier
(`--retry-frontier`, default 1024 then 4096). Prints the certified share and the distribution of plan lengths (optimal
where no depth overflowed the frontier).
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
# Search depth per game (default: the episode's max_steps). A batch's search runs until its
# slowest level ends, so an unsolvable level costs max_depth layers for the whole batch; a
# level whose shortest plan is longer than the cap shows as uncertified.
MAX_DEPTH = {"miner": 192}


def _search(env, levels: np.ndarray, frontier: int, batch: int, table_bits: int,
            max_depth: int | None) -> tuple[np.ndarray, ...]:
    """(found, certified, length, overflowed) per level: plan and verify in batches of `batch`."""
    from glyphjax.suites.procgen.planner import plan, verify
    found, ok, lengths, over = [], [], [], []
    for lo in range(0, len(levels), batch):
        chunk = levels[lo: lo + batch]
        padded = np.concatenate([chunk, np.full(batch - len(chunk), chunk[-1], np.uint32)])
        p = plan(env, padded, frontier=frontier, max_depth=max_depth, table_bits=table_bits)
        ok.append(verify(env, padded, p)[: len(chunk)])
        found.append(np.asarray(p.found)[: len(chunk)])
        lengths.append(np.asarray(p.length)[: len(chunk)])
        over.append(np.asarray(p.overflowed)[: len(chunk)])
    return tuple(np.concatenate(x) for x in (found, ok, lengths, over))


def certify_game(task_id: str, levels: np.ndarray, frontier: int, batch: int, table_bits: int = 18,
                 max_depth: int | None = None, retry_frontier: int | tuple = 0) -> dict:
    """Plan and verify every level of `levels` for one task -> a summary row. Levels left
    uncertified are searched again with each `retry_frontier` in turn (those larger than
    `frontier`)."""
    import glyphjax
    env = glyphjax.make(task_id)
    t0 = time.process_time()
    found, ok, lengths, over = _search(env, levels, frontier, batch, table_bits, max_depth)
    retried = np.flatnonzero(~ok)
    retries = [f for f in np.atleast_1d(retry_frontier) if f > frontier]
    for wider in retries:
        left = np.flatnonzero(~ok)
        if not left.size:
            break
        bits = 20 if wider <= 1024 else 22
        again = _search(env, levels[left], int(wider), min(8, left.size), bits, max_depth)
        for arr, new in zip((found, ok, lengths, over), again):
            arr[left] = np.where(again[1], new, arr[left])
    won = lengths[ok]
    q = (lambda p: int(np.percentile(won, p))) if won.size else (lambda p: -1)
    return {"task": task_id, "levels": int(len(levels)), "first_level": int(levels[0]),
            "certified": int(ok.sum()), "found_not_verified": int((found & ~ok).sum()),
            "overflowed": int(over.sum()), "retried": int(retried.size) if retries else 0,
            "certified_on_retry": int(ok[retried].sum()) if retries else 0,
            "length_min": q(0), "length_median": q(50),
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
    ap.add_argument("--max-depth", type=int, default=None, help="default: MAX_DEPTH[game] or max_steps")
    ap.add_argument("--batch", type=int, default=50)
    ap.add_argument("--retry-frontier", type=int, nargs="+", default=[1024, 4096],
                    help="search the levels left uncertified again with each of these frontiers in turn (0: no retry)")
    ap.add_argument("--out", default=None, help="write the rows as JSON here")
    args = ap.parse_args(argv)
    import glyphjax
    from glyphjax.suites.procgen.engine import TEST_LEVEL_START
    base = (0 if args.split == "train" else TEST_LEVEL_START) + args.start_level
    levels = np.arange(base, base + args.levels, dtype=np.uint32)
    rows = []
    print(f"{'task':24s} {'levels':>6s} {'certified':>9s} {'retried':>7s} {'overflow':>8s} "
          f"{'len min/med/p90/max':>20s} {'CPU-s':>7s}")
    for game in args.games:
        for mode in args.modes:
            task_id = f"procgen/{game}" + ("-hard" if mode == "hard" else "")
            try:
                glyphjax.make(task_id)
            except glyphjax.UnknownTaskError as e:
                print(f"error: {e}", file=sys.stderr)
                return 2
            row = certify_game(task_id, levels, args.frontier or FRONTIER.get(game, 128), args.batch,
                               max_depth=args.max_depth or MAX_DEPTH.get(game), retry_frontier=args.retry_frontier)
            rows.append(row)
            lens = f"{row['length_min']}/{row['length_median']}/{row['length_p90']}/{row['length_max']}"
            retry = f"{row['certified_on_retry']}/{row['retried']}"
            print(f"{task_id:24s} {row['levels']:6d} {row['certified']:9d} {retry:>7s} {row['overflowed']:8d} "
                  f"{lens:>20s} {row['cpu_s']:7.1f}", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if all(r["certified"] == r["levels"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
