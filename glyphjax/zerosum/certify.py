"""Certify the declared corpus: the whole battery on every variant, then agreement with the
independent reference on many seeds per variant.

    python -m glyphjax.zerosum.certify [--seeds 1000] [--battery-seeds 32] [--ids 'zerosum/*']

Prints one line per variant that fails, the per-test counts and the wall times; exits 1 when any
declared variant fails (the corpus must hold only admitted variants).
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
import time

import numpy as np

from glyphjax.zerosum import battery, corpus


def certify(pattern: str, seeds: int, battery_seeds: int) -> int:
    """Run the battery and the long agreement check; return the number of failing variants."""
    cands = [c for c in corpus.candidates() if fnmatch.fnmatch(c.id, pattern)]
    if not cands:
        raise SystemExit(f"no declared variant matches {pattern!r}; try 'zerosum/*'")
    pool: dict = {}
    failed = 0
    t0 = time.perf_counter()
    for c in cands if battery_seeds else ():
        v = battery.assess(c, np.arange(battery_seeds), pool)[-1]
        if not v.passed:
            failed += 1
            print(f"FAIL battery {c.id}: {v.test}: {v.detail}")
    t1 = time.perf_counter()
    for c in cands if seeds else ():
        v = battery.agreement(c.build(), c.reference, np.arange(seeds))
        if not v.passed:
            failed += 1
            print(f"FAIL agreement {c.id}: {v.detail}")
    t2 = time.perf_counter()
    print(f"{len(cands)} variants; battery ({battery_seeds} seeds) {t1 - t0:.1f} s; agreement on "
          f"{seeds} seeds each {t2 - t1:.1f} s; {failed} failures")
    return failed


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=1000, help="agreement seeds per variant")
    ap.add_argument("--battery-seeds", type=int, default=32, help="seeds of the battery's replay tests")
    ap.add_argument("--ids", default="zerosum/*", help="glob over declared variant ids")
    args = ap.parse_args(argv)
    sys.exit(1 if certify(args.ids, args.seeds, args.battery_seeds) else 0)


if __name__ == "__main__":
    main()
