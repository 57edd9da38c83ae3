"""IPO and DPPO-style losses against hand-computed values and a naive per-token reference."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from rl.losses import dppo_loss, ipo_loss, token_terms_fn

jax.config.update("jax_enable_x64", False)


def _arrays(p, qp, adv, mask):
    return (jnp.log(jnp.asarray(p, jnp.float32)), jnp.log(jnp.asarray(qp, jnp.float32)),
            jnp.asarray(adv, jnp.float32), jnp.asarray(mask, jnp.float32))


def test_ipo_loss__matches_hand_computed_value():
    # token 0: |0.5-0.45| <= 0.1 -> PG kept; token 1: |0.6-0.4| > 0.1 -> PG dropped, penalty kept;
    # token 2: prompt token (mask 0) -> nothing
    logp, q, adv, mask = _arrays([0.5, 0.6, 0.9], [0.45, 0.4, 0.1], [1.0, 1.0, 1.0], [1, 1, 0])
    loss, m = ipo_loss(logp, q, adv, mask)
    want = (-(0.5 / 0.45) + 1e-3 * math.log(0.5 / 0.45) ** 2 + 1e-3 * math.log(1.5) ** 2) / 2
    assert float(loss) == pytest.approx(want, rel=1e-6)
    assert float(m["masked_token_frac"]) == pytest.approx(0.5)
    want_mismatch = (abs(math.log(0.5 / 0.45)) + abs(math.log(1.5))) / 2
    assert float(m["logp_mismatch"]) == pytest.approx(want_mismatch, rel=1e-6)


def test_ipo_loss__negative_advantage_pushes_ratio_down():
    logp, q, adv, mask = _arrays([0.5], [0.5], [-2.0], [1])
    loss, _ = ipo_loss(logp, q, adv, mask)
    assert float(loss) == pytest.approx(2.0)  # -1 * (-2) * rho(=1) + 0
    g = jax.grad(lambda lp: ipo_loss(lp, q, adv, mask)[0])(logp)
    assert float(g[0]) == pytest.approx(2.0)  # d/dlogp (-A rho) = -A rho = 2 > 0: lowers logp


def _naive_ipo(logp, p_list, q_list, adv_list, mask_list):
    """Per-token Python loop, formula (3) written out literally (indicator from concrete probs)."""
    total, n = 0.0, sum(mask_list)
    for k in range(len(q_list)):
        if not mask_list[k]:
            continue
        p, qq = jnp.exp(logp[k]), math.exp(q_list[k])
        rho = p / qq
        indicator = 1.0 if abs(p_list[k] - qq) <= 0.1 else 0.0
        total = total + (-indicator * adv_list[k] * rho + 1e-3 * jnp.log(rho) ** 2)
    return total / n


def test_ipo_loss__gradient_equals_naive_per_token_reference():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 12)
    qp = np.clip(p + rng.normal(0, 0.1, 12), 0.01, 0.99)
    adv = rng.normal(0, 1, 12)
    mask = (rng.uniform(size=12) > 0.3).astype(np.float32)
    logp = jnp.log(jnp.asarray(p, jnp.float32))
    q = jnp.log(jnp.asarray(qp, jnp.float32))
    got = jax.grad(lambda lp: ipo_loss(lp, q, jnp.asarray(adv, jnp.float32), jnp.asarray(mask))[0])(logp)
    want = jax.grad(lambda lp: _naive_ipo(lp, [float(x) for x in jnp.exp(logp)], [float(x) for x in q],
                                          list(adv), list(mask)))(logp)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-7)
    assert float(jnp.abs(got[mask == 0]).max()) == 0.0


def test_losses__masked_tokens_contribute_nothing():
    rng = np.random.default_rng(1)
    logp, q, adv = (jnp.asarray(rng.normal(-1, 0.3, 8), jnp.float32) for _ in range(3))
    mask = jnp.asarray([1, 0, 1, 0, 1, 1, 0, 0], jnp.float32)
    junk = jnp.where(mask > 0, 0.0, 50.0)  # garbage only at masked tokens
    for loss_fn in (ipo_loss, dppo_loss):
        a = loss_fn(logp, q, adv, mask)[0]
        b = loss_fn(logp + junk, q - junk, adv * 1e6 * (1 - mask) + adv * mask, mask)[0]
        assert float(a) == pytest.approx(float(b), rel=1e-6), loss_fn.__name__


def test_dppo_loss__drops_pg_term_only_in_the_advantage_direction():
    # p - q: +0.3, -0.3, -0.3, +0.3, 0.1 ; A: +1, +1, -1, -1, +1
    p = [0.8, 0.2, 0.2, 0.8, 0.6]
    qp = [0.5, 0.5, 0.5, 0.5, 0.5]
    adv = [1.0, 1.0, -1.0, -1.0, 1.0]
    logp, q, a, mask = _arrays(p, qp, adv, [1, 1, 1, 1, 1])
    loss, m = dppo_loss(logp, q, a, mask)
    keep = [0, 1, 0, 1, 1]
    want = sum(-k * ai * (pi / qi) + 1e-3 * math.log(pi / qi) ** 2
               for k, ai, pi, qi in zip(keep, adv, p, qp)) / 5
    assert float(loss) == pytest.approx(want, abs=1e-7)
    assert float(m["masked_token_frac"]) == pytest.approx(2 / 5)


def test_losses__explicit_batch_token_count_makes_microbatch_sums_add_up():
    rng = np.random.default_rng(2)
    logp, q, adv = (jnp.asarray(rng.normal(-1, 0.2, 10), jnp.float32) for _ in range(3))
    mask = jnp.asarray(rng.uniform(size=10) > 0.4, jnp.float32)
    full = ipo_loss(logp, q, adv, mask)[0]
    n = mask.sum()
    parts = ipo_loss(logp[:4], q[:4], adv[:4], mask[:4], num_tokens=n)[0] + \
        ipo_loss(logp[4:], q[4:], adv[4:], mask[4:], num_tokens=n)[0]
    assert float(parts) == pytest.approx(float(full), rel=1e-6)


def test_token_terms_fn__unknown_loss_is_a_clear_error():
    with pytest.raises(ValueError, match="ipo"):
        token_terms_fn("ppo-clip")
