"""Seed ranges shared by training and evaluation, so held-out seeds never leak into training.

Training groups draw consecutive seeds from `TRAIN_SEEDS_START` upward (a per-task cursor saved in
checkpoints); held-out evaluation uses seeds from `EVAL_SEEDS_START` upward. Training stops with
an error before its cursor could reach the evaluation range.
"""

from __future__ import annotations

TRAIN_SEEDS_START = 0
EVAL_SEEDS_START = 1_000_000_000
TRAIN_SEEDS_END = EVAL_SEEDS_START  # exclusive


def train_seeds(cursor: int, count: int) -> list[int]:
    """`count` consecutive training seeds starting at `cursor` (an offset into the training range)."""
    start = TRAIN_SEEDS_START + cursor
    if cursor < 0 or start + count > TRAIN_SEEDS_END:
        raise ValueError(f"training seed cursor {cursor} + {count} leaves the training range "
                         f"[{TRAIN_SEEDS_START}, {TRAIN_SEEDS_END}); evaluation seeds start at "
                         f"{EVAL_SEEDS_START}. Use a smaller budget or reset the cursor.")
    return list(range(start, start + count))


def eval_seeds(count: int, offset: int = 0) -> list[int]:
    """`count` held-out evaluation seeds (disjoint from every training seed)."""
    if offset < 0 or count < 0:
        raise ValueError("eval seed offset and count must be >= 0")
    return list(range(EVAL_SEEDS_START + offset, EVAL_SEEDS_START + offset + count))


def is_eval_seed(seed: int) -> bool:
    return seed >= EVAL_SEEDS_START
