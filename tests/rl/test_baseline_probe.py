"""The baseline-error probe (rl/baseline_probe.py, gamesmith.md §5.3) on simulated batches of a
frozen policy whose true means are known."""

from __future__ import annotations

import numpy as np
import pytest

from rl.advantages import EpisodeBatch
from rl.baseline_probe import probe

K = 5


def _batches(count: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    families = 30
    mu = rng.uniform(-0.9, 0.9, (families, 2))  # family x seat interactions the additive prior misses
    out, var = [], []
    for _ in range(count):
        cell = rng.choice(families * 2, 26, replace=False)  # distinct (family, seat): every K' is 4
        fam, seat = cell // 2, cell % 2
        f, s = np.repeat(fam, K), np.repeat(seat, K)
        y = np.where(rng.random(f.shape) < (1 + mu[f, s]) / 2, 1.0, -1.0)
        out.append(EpisodeBatch(y, np.repeat(np.arange(26), K), descriptor=[{"family": int(v)} for v in f], seat=s))
        var.append(1 - mu[f, s] ** 2)
    return out, float(np.mean(var[20:])) if count > 20 else None  # the true within-group variance of the batches after warm-up


def test_probe__errors_order_and_intervals_on_a_frozen_policy():
    batches, sigma2 = _batches(60)
    got = probe(batches, warmup=20, n_boot=500)
    assert got["batches"] == 40 and got["episodes"] == 40 * 26 * K
    assert got["sigma2_hat"]["estimate"] == pytest.approx(sigma2, abs=0.03)
    err = {k: v["estimate"] for k, v in got["error"].items()}
    lo, hi = got["error"]["leave_one_out"]["ci95"]
    assert lo <= sigma2 / (K - 1) <= hi  # LOO's error is exactly sigma2 / K'
    s2 = got["sigma2_hat"]["estimate"]
    assert err["crab_kappa4"] == pytest.approx(0.25 * s2 / (K - 1) + 0.25 * err["prior"], abs=0.01)  # eq 7, w = 1/2
    assert min(err["leave_one_out"], err["prior"]) > err["crab_kappa4"]  # shrinkage beats both endpoints
    hi_pair = got["paired"]["crab_kappa4 - leave_one_out"]["ci95"][1]
    assert hi_pair < 0  # Crab's error is below LOO's, outside the interval
    assert 0.5 <= got["crab_adaptive_diagnostics"]["kappa_hat"] <= 64


def test_probe__refuses_too_few_batches_and_groups_of_one():
    batches, _ = _batches(5)
    with pytest.raises(ValueError, match="more than warmup=20 batches"):
        probe(batches)
    singles = [EpisodeBatch(np.array([1.0, -1.0]), np.array([0, 1]), descriptor=[{"f": 0}, {"f": 1}])] * 3
    with pytest.raises(ValueError, match="within-group variance"):
        probe(singles, warmup=1)
