"""Seed ranges: evaluation seeds never overlap training seeds.

Training seeds count up from 0; held-out evaluation seeds start at 1,000,000,000 (seeds are uint32,
so the evaluation range holds ~3.29e9 seeds). When the trainer's `rl/seeds.py` exists it is the
single source of truth and these names are re-exported from it.
"""

from __future__ import annotations

import numpy as np

try:  # the trainer owns the constants (rl/seeds.py)
    from rl.seeds import EVAL_SEEDS_START as EVAL_SEED_START
    from rl.seeds import TRAIN_SEEDS_START as TRAIN_SEED_START
except ImportError:  # same values when rl is not importable
    TRAIN_SEED_START = 0
    EVAL_SEED_START = 1_000_000_000


def eval_seeds(count: int, start: int = EVAL_SEED_START) -> np.ndarray:
    """`count` consecutive held-out seeds (uint32) from `start` (default: the evaluation range)."""
    if count < 1:
        raise ValueError(f"the number of seeds must be >= 1, got {count}")
    if start < EVAL_SEED_START:
        raise ValueError(f"evaluation seeds start at {EVAL_SEED_START:,} (held out from training); "
                         f"got start={start:,}. Use a start >= {EVAL_SEED_START:,}.")
    if start + count > 2 ** 32:
        raise ValueError(f"seeds are uint32: start + count must be <= 2**32, got {start + count:,}")
    return np.arange(start, start + count, dtype=np.uint32)
