"""Game-side evaluation of two players by best-of-three series (gamesmith.md §6.2).

Per variant, 40 episodes (20 per seat) between player A and player B. Each game is scored for A:
1 win, 0 loss, 0.5 draw; an invalid move forfeits inside the game (the zero-sum cards say so),
and a reply that ran to the token budget loses the game for whoever sent it first. **Ours**
(gamesmith.md §6.2): games ordered by seed with alternating seats, the first 39 grouped into 13
consecutive triples, the 40th dropped; a series goes to whoever wins more of its three games, a
tied series counts 0.5. The headline is the share of series won by A over all variants, with a
95% percentile bootstrap interval that resamples variants (clusters) and keeps each variant's
series together, since games of one variant are not independent of each other.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from eval.stats import BOOTSTRAP_SEED, CONFIDENCE, N_RESAMPLES, percentile_interval

GAMES_PER_SERIES = 3


def game_score(return_a: float, over_budget_a: int | None = None, over_budget_b: int | None = None) -> float:
    """A's score of one game: 1 / 0.5 / 0 by A's return; a player whose reply ran to the budget
    loses, the first offender (by turn index) when both did."""
    if over_budget_a is not None or over_budget_b is not None:
        if over_budget_b is None or (over_budget_a is not None and over_budget_a <= over_budget_b):
            return 0.0
        return 1.0
    return 1.0 if return_a > 0 else 0.0 if return_a < 0 else 0.5


def series_scores(games: Sequence[tuple[int, float]]) -> np.ndarray:
    """A's series results (1 / 0.5 / 0) from (seed, A's game score) pairs: ordered by seed, cut
    into consecutive triples, an incomplete last triple dropped."""
    ordered = [score for _, score in sorted(games, key=lambda g: g[0])]
    usable = len(ordered) - len(ordered) % GAMES_PER_SERIES
    out = []
    for k in range(0, usable, GAMES_PER_SERIES):
        triple = ordered[k:k + GAMES_PER_SERIES]
        wins_a = sum(s == 1.0 for s in triple)
        wins_b = sum(s == 0.0 for s in triple)
        out.append(1.0 if wins_a > wins_b else 0.0 if wins_b > wins_a else 0.5)
    return np.array(out, np.float64)


def series_share(games_by_variant: Mapping[str, Sequence[tuple[int, float]]], n_resamples: int = N_RESAMPLES,
                 seed: int = BOOTSTRAP_SEED, confidence: float = CONFIDENCE) -> dict:
    """Share of series won by A over all variants (each series weighs the same), its bootstrap
    interval over variants, and the per-variant shares. ValueError when no variant has a series."""
    per = {v: series_scores(g) for v, g in sorted(games_by_variant.items())}
    per = {v: s for v, s in per.items() if len(s)}
    if not per:
        raise ValueError(f"no variant has {GAMES_PER_SERIES} games: cannot form a series")
    names = list(per)
    sums = np.array([per[v].sum() for v in names])
    counts = np.array([len(per[v]) for v in names], np.float64)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(names), size=(n_resamples, len(names)))
    boot = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
    lo, hi = percentile_interval(boot, confidence)
    return {"share": float(sums.sum() / counts.sum()), "ci95": [lo, hi], "series": int(counts.sum()),
            "variants": len(names), "per_variant": {v: float(per[v].mean()) for v in names}}
