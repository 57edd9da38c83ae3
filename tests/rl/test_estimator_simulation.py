"""Baseline estimators in simulation against gamesmith.md §5.3 and §6.3.

Groups have known true means mu_g; a prior m_g = mu_g + noise of variance tau2 is fixed before the
batch; K = 5 episodes per group (K' = 4). The measured baseline error E[(b_i - mu_g)^2] must agree
with the closed form eq 7, MSE(w) = w^2 sigma2 / K' + (1 - w)^2 tau2, within 0.01, and order as
LOO > prior > Crab(kappa 4) >= Crab(kappa*); the probe's estimate mean (R - b)^2 - sigma2_hat
measures the same error without knowing mu_g. Unbiasedness: E[(R_i - b_i) S_i] equals the true
policy gradient of a known softmax policy.
"""

from __future__ import annotations

import numpy as np
import pytest

from rl.advantages import Crab, EpisodeBatch, GroupMean, LeaveOneOut, RAE, moments, shrinkage_baseline, tau2_encoding

K = 5  # K' = 4


def _batch(rng, groups: int, sigma2_target: float, tau2: float, kind: str):
    """Returns y [groups * K], group index, true means per episode and the prior per episode."""
    if kind == "rademacher":  # y in {-1, +1}: var = 1 - mu^2; E mu^2 = a^2 / 3
        a = np.sqrt(3 * (1 - sigma2_target))
        mu = rng.uniform(-a, a, groups)
        y = np.where(rng.random((groups, K)) < (1 + mu[:, None]) / 2, 1.0, -1.0)
    else:  # bernoulli y in {0, 1}: var = p (1 - p); p uniform on [0.5 - a, 0.5 + a]: E var = 1/4 - a^2/3
        a = np.sqrt(3 * (0.25 - sigma2_target))
        mu = rng.uniform(0.5 - a, 0.5 + a, groups)
        y = (rng.random((groups, K)) < mu[:, None]).astype(np.float64)
    m = mu + rng.normal(0.0, np.sqrt(tau2), groups)
    idx = np.repeat(np.arange(groups), K)
    return y.ravel(), idx, np.repeat(mu, K), np.repeat(m, K)


def _eq7(w: float, sigma2: float, tau2: float, k_other: int = K - 1) -> float:
    return w * w * sigma2 / k_other + (1 - w) ** 2 * tau2


@pytest.mark.parametrize("kind, sigma2, tau2", [("rademacher", 0.95, 0.15), ("rademacher", 0.92, 0.12),
                                                 ("bernoulli", 0.2, 0.03)])
def test_baseline_errors__match_eq7_and_order_loo_prior_crab(kind, sigma2, tau2):
    rng = np.random.default_rng(7)
    groups = 100_000
    y, idx, mu, m = _batch(rng, groups, sigma2, tau2, kind)
    kappa_star = sigma2 / tau2
    err = {}
    for name, kappa in [("loo", 0.0), ("crab4", 4.0), ("crab_star", kappa_star)]:
        b = shrinkage_baseline(y, idx, groups, m, kappa)
        err[name] = float(np.mean((b - mu) ** 2))
    err["prior"] = float(np.mean((m - mu) ** 2))
    w4, ws = 4 / (4 + 4.0), 4 / (4 + kappa_star)
    assert err["loo"] == pytest.approx(_eq7(1.0, sigma2, tau2), abs=0.01)
    assert err["prior"] == pytest.approx(tau2, abs=0.01)
    assert err["crab4"] == pytest.approx(_eq7(w4, sigma2, tau2), abs=0.01)
    assert err["crab_star"] == pytest.approx(sigma2 / (4 + kappa_star), abs=0.01)  # MSE* of §5.3
    assert err["loo"] > err["prior"] > err["crab4"] >= err["crab_star"] - 1e-3


def test_probe_estimate__mean_squared_advantage_minus_sigma2_hat_measures_the_error():
    """§5.3: E[(R - b)^2] = sigma2 + E[(b - mu)^2], so the probe needs no true means."""
    rng = np.random.default_rng(11)
    groups = 100_000
    y, idx, mu, m = _batch(rng, groups, 0.95, 0.15, "rademacher")
    sigma2_hat, tau2_hat = moments(y, idx, groups, m)
    assert sigma2_hat == pytest.approx(0.95, abs=0.01)
    assert tau2_hat == pytest.approx(0.15, abs=0.01)  # eq 9 recovers the prior's error
    for kappa in (0.0, 4.0):
        b = shrinkage_baseline(y, idx, groups, m, kappa)
        probe = float(np.mean((y - b) ** 2)) - sigma2_hat
        assert probe == pytest.approx(float(np.mean((b - mu) ** 2)), abs=0.01)


def test_kappa_sweep__shallow_minimum_near_kappa_star():
    """Table 10's shape: the minimum of the sweep sits at the grid point nearest kappa* and the
    basin is flat to within 0.01 over [4, 12] (eq 8)."""
    rng = np.random.default_rng(3)
    groups = 100_000
    sigma2, tau2 = 0.95, 0.15
    y, idx, mu, m = _batch(rng, groups, sigma2, tau2, "rademacher")
    grid = [1.0, 2.0, 4.0, 6.0, 8.0, 12.0, 32.0]
    err = {k: float(np.mean((shrinkage_baseline(y, idx, groups, m, k) - mu) ** 2)) for k in grid}
    best = min(err, key=err.get)
    assert best in (6.0, 8.0)  # kappa* = 6.33
    assert max(err[k] for k in (4.0, 6.0, 8.0, 12.0)) - err[best] < 0.01
    assert err[1.0] - err[best] > 0.01 and err[32.0] - err[best] > 0.01


def test_crab__at_group_size_one_is_the_prior():
    rng = np.random.default_rng(0)
    y = rng.normal(size=50)
    m = rng.normal(size=50)
    np.testing.assert_allclose(shrinkage_baseline(y, np.arange(50), 50, m, 4.0), m)
    crab = Crab(kappa=4.0)
    d = [{"task": f"t{i % 3}"} for i in range(30)]
    crab(EpisodeBatch(rng.normal(size=30), np.repeat(np.arange(10), 3), descriptor=d))
    crab.prior.refit()
    nxt = rng.normal(size=3)
    keys = [{"task": "t0"}, {"task": "t1"}, {"task": "t2"}]
    expected = nxt - crab.prior.predict(EpisodeBatch(nxt, np.arange(3), descriptor=keys).variant_keys())
    np.testing.assert_allclose(crab(EpisodeBatch(nxt, np.arange(3), descriptor=keys)), expected)


def test_crab_adaptive__kappa_hat_converges_to_sigma2_over_tau2_of_its_own_prior():
    """Over a run of batches of one fixed corpus, kappa_hat settles where eq 9's moments say."""
    rng = np.random.default_rng(5)
    families = 40
    mu = rng.uniform(-0.4, 0.4, families)
    crab = Crab(kappa="adaptive")
    for _ in range(60):
        fam = rng.integers(0, families, 26)
        fam_ep = np.repeat(fam, K)
        y = np.where(rng.random(fam_ep.shape) < (1 + mu[fam_ep]) / 2, 1.0, -1.0)
        crab(EpisodeBatch(y, np.repeat(np.arange(26), K), descriptor=[{"family": int(f)} for f in fam_ep]))
    d = crab.diagnostics()
    sigma2_true = float(np.mean(1 - mu ** 2))
    assert d["sigma2_hat"] == pytest.approx(sigma2_true, abs=0.05)
    assert 0.5 <= d["kappa_hat"] <= 64 and d["kappa_used"] == pytest.approx(d["kappa_hat"], rel=0.2)


def test_tau2_encoding__zero_for_encoding_blind_returns_positive_otherwise():
    rng = np.random.default_rng(2)
    groups, encs, per = 2000, 4, 6
    g = np.repeat(np.arange(groups), encs * per)
    e = np.tile(np.repeat(np.arange(encs), per), groups)
    blind = rng.normal(0, 1, g.shape)
    assert tau2_encoding(blind, g, e, 1.0) == pytest.approx(0.0, abs=0.01)
    shift = rng.normal(0, np.sqrt(0.5), (groups, encs))  # the policy's return depends on encoding
    aware = blind + shift[g, e]
    assert tau2_encoding(aware, g, e, 1.0) == pytest.approx(0.5, abs=0.05)
    assert tau2_encoding(blind, g, np.zeros_like(e), 1.0) is None


def _toy_gradient_estimates(make, batches: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Mean over batches of (R_i - b_i) S_i for a 3-action softmax policy, one action per episode,
    R(a) + N(0, 0.25) returns, 6 groups of K episodes per batch."""
    logits = np.array([0.3, -0.2, 0.1])
    pi = np.exp(logits) / np.exp(logits).sum()
    reward = np.array([1.0, -0.5, 0.25])
    est = make()
    total = np.zeros(3)
    n = 0
    for _ in range(batches):
        a = rng.choice(3, size=6 * K, p=pi)
        r = reward[a] + rng.normal(0, 0.5, a.shape)
        adv = est(EpisodeBatch(r, np.repeat(np.arange(6), K), descriptor=[{"task": "toy"}] * (6 * K)))
        score = np.eye(3)[a] - pi
        total += (adv[:, None] * score).sum(0)
        n += a.size
    true = (pi[:, None] * reward[:, None] * (np.eye(3) - pi)).sum(0)  # sum_a pi(a) R(a) (e_a - pi)
    return total / n, true


@pytest.mark.parametrize("name, make, scale", [
    ("leave_one_out", LeaveOneOut, 1.0), ("rae", RAE, 1.0), ("crab4", lambda: Crab(kappa=4.0), 1.0),
    ("crab_adaptive", lambda: Crab(kappa="adaptive"), 1.0),
    ("group_mean", GroupMean, (K - 1) / K),  # includes R_i in its own mean: gradient scaled by (K-1)/K
])
def test_estimators__policy_gradient_is_unbiased(name, make, scale):
    rng = np.random.default_rng(13)
    got, true = _toy_gradient_estimates(make, 1500, rng)
    # 45,000 episodes: the standard error of each component is about 0.004
    np.testing.assert_allclose(got, scale * true, atol=0.015)
