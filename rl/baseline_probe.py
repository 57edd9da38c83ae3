"""The baseline-error probe of gamesmith.md §5.3 (the paper's Tables 8–10), over a frozen policy.

A baseline b_i that never uses R_i satisfies E[(R_i - b_i)^2] = sigma2 + E[(b_i - mu_g)^2], so the
error of a baseline is `mean (R_i - b_i)^2 - sigma2_hat` (sigma2_hat the pooled within-group
variance), and two baselines compare by the paired difference of `(R_i - b_i)^2` on the same
trajectories. Protocol: batches in the order they were drawn, every estimator fed the same
batches (priors and running means fitted online from earlier batches only), the first `warmup`
batches excluded from the figures, 95% intervals from a bootstrap over (batch, group) blocks.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np

from rl.advantages import AdvantageEstimator, Crab, EpisodeBatch, LeaveOneOut, RAE

# the paper's comparison: leave-one-out, the prior alone (Crab with kappa -> infinity), Crab at
# kappa 4 and adaptive, and RAE's running mean
DEFAULT_ESTIMATORS: Mapping[str, Callable[[], AdvantageEstimator]] = {
    "leave_one_out": LeaveOneOut,
    "prior": lambda: Crab(kappa=1e12),
    "crab_kappa4": lambda: Crab(kappa=4.0),
    "crab_adaptive": lambda: Crab(kappa="adaptive"),
    "rae": RAE,
}


def _blocks(batches: Sequence[EpisodeBatch], warmup: int):
    """Per kept episode: its block id ((batch, variant key) pairs numbered in order)."""
    ids: dict = {}
    out = []
    for t, batch in enumerate(batches):
        if t < warmup:
            continue
        out.extend(ids.setdefault((t, k), len(ids)) for k in batch.variant_keys())
    return np.array(out, np.int64), len(ids)


def probe(batches: Sequence[EpisodeBatch], estimators: Mapping[str, Callable[[], AdvantageEstimator]] = DEFAULT_ESTIMATORS,
          warmup: int = 20, pairs: Sequence[tuple[str, str]] = (("crab_kappa4", "leave_one_out"), ("crab_kappa4", "prior")),
          n_boot: int = 2000, seed: int = 0) -> dict:
    """Errors per baseline with 95% block-bootstrap intervals, sigma2_hat, and paired differences
    `a - b` of the listed pairs. Raises ValueError when no batch is left after the warm-up or no
    group has two members (sigma2 cannot be estimated)."""
    if len(batches) <= warmup:
        raise ValueError(f"the probe needs more than warmup={warmup} batches, got {len(batches)}")
    block, n_blocks = _blocks(batches, warmup)
    y = np.concatenate([b.returns for b in batches[warmup:]])
    n = np.bincount(block, minlength=n_blocks).astype(np.float64)
    mean = np.bincount(block, weights=y, minlength=n_blocks) / n
    ss = np.bincount(block, weights=(y - mean[block]) ** 2, minlength=n_blocks)
    if np.sum(n - 1) <= 0:
        raise ValueError("no group has two episodes: sigma2 (the within-group variance) cannot be estimated")
    sq: dict[str, list[np.ndarray]] = {name: [] for name in estimators}
    made = {name: make() for name, make in estimators.items()}
    for t, batch in enumerate(batches):
        for name, est in made.items():
            adv = est(batch)  # = R - b; stateful estimators update from this batch afterwards
            if t >= warmup:
                sq[name].append(np.asarray(adv, np.float64) ** 2)
    per_block = {name: np.bincount(block, weights=np.concatenate(v), minlength=n_blocks) for name, v in sq.items()}
    rng = np.random.default_rng(seed)
    w = rng.multinomial(n_blocks, np.full(n_blocks, 1.0 / n_blocks), size=n_boot).astype(np.float64)
    w = np.vstack([np.ones(n_blocks), w])  # row 0: the point estimate

    def sigma2(weights):
        return (weights @ ss) / (weights @ (n - 1))

    def error(name, weights):
        return (weights @ per_block[name]) / (weights @ n) - sigma2(weights)

    def summary(values):
        lo, hi = np.percentile(values[1:], [2.5, 97.5])
        return {"estimate": float(values[0]), "ci95": [float(lo), float(hi)]}

    out = {"batches": len(batches) - warmup, "episodes": int(n.sum()), "blocks": n_blocks,
           "sigma2_hat": summary(sigma2(w)), "error": {name: summary(error(name, w)) for name in estimators},
           "paired": {}}
    for a, b in pairs:
        out["paired"][f"{a} - {b}"] = summary((w @ (per_block[a] - per_block[b])) / (w @ n))
    crab = made.get("crab_adaptive")
    if isinstance(crab, Crab):
        out["crab_adaptive_diagnostics"] = crab.diagnostics()
    return out
