"""Per-token policy losses over sampled completion tokens (formulas.md §1).

Inputs are aligned per token: `logp` (trainer log-prob of the sampled token, differentiable),
`q` (the sampler's recorded log-prob of the same token), `adv` (the episode's advantage, already
broadcast to the token), `mask` (1 for trainable tokens: sampled completion tokens; 0 for prompt,
observation and padding). Every loss is `sum(mask * token_loss) / N` with N the number of
trainable tokens in the *whole batch* (pass `num_tokens` when the batch is split into
micro-batches so every micro-batch divides by the same N).

- `ipo_loss` (formula (3)): token loss `-1{|p - q| <= 0.1} A rho + 1e-3 (log rho)^2`, with
  p = exp(logp), q = exp(q_logp) probabilities and rho = p / q. The indicator only gates the
  policy-gradient term (no gradient flows through it); every trainable token counts in the
  penalty and in N.
- `dppo_loss` (the GlyphBench default): the same shape with a DPPO-style trust region on the
  probability difference: the PG term of a token is dropped when A > 0 and p - q > mask_high, or
  A < 0 and p - q < -mask_low; penalty tau_KL (log rho)^2 on all trainable tokens. **ours**:
  tau_adv multiplies the PG term (`-tau_adv * A * rho`); the source only names its value (1).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

LOSSES = ("ipo", "dppo")
SUM_KEYS = ("tokens", "pg_masked", "abs_logp_mismatch", "log_rho_sq", "ratio", "abs_prob_diff")


class TokenTerms(NamedTuple):
    """Per-token loss and the per-token quantities the metrics sum."""

    loss: jax.Array  # token loss (before mask and 1/N)
    pg_kept: jax.Array  # 1 where the policy-gradient term is active


def ipo_terms(logp, q, adv, *, pg_threshold: float = 0.1, kl_coef: float = 1e-3) -> TokenTerms:
    log_rho = logp - q
    rho = jnp.exp(log_rho)
    keep = jax.lax.stop_gradient(jnp.abs(jnp.exp(logp) - jnp.exp(q)) <= pg_threshold).astype(logp.dtype)
    loss = -keep * adv * rho + kl_coef * log_rho ** 2
    return TokenTerms(loss, keep)


def dppo_terms(logp, q, adv, *, mask_low: float = 0.2, mask_high: float = 0.2, tau_adv: float = 1.0,
               tau_kl: float = 1e-3) -> TokenTerms:
    log_rho = logp - q
    rho = jnp.exp(log_rho)
    diff = jnp.exp(logp) - jnp.exp(q)
    drop = ((adv > 0) & (diff > mask_high)) | ((adv < 0) & (diff < -mask_low))
    keep = jax.lax.stop_gradient(~drop).astype(logp.dtype)
    loss = -keep * tau_adv * adv * rho + tau_kl * log_rho ** 2
    return TokenTerms(loss, keep)


def sft_terms(logp, q, adv) -> TokenTerms:
    """Distillation (rl.mode=sft): next-token cross-entropy -log p of the teacher's token; the
    sampler log-prob and the advantage play no part."""
    return TokenTerms(-logp, jnp.ones_like(logp))


def token_terms_fn(name: str, **kwargs) -> Callable[..., TokenTerms]:
    """The per-token terms of a named loss with its hyper-parameters bound (unknown
    hyper-parameter names raise TypeError now, not at trace time)."""
    import inspect
    fn = {"ipo": ipo_terms, "dppo": dppo_terms}.get(name)
    if fn is not None:
        inspect.signature(fn).bind(None, None, None, **kwargs)
    if name == "ipo":
        return lambda logp, q, adv: ipo_terms(logp, q, adv, **kwargs)
    if name == "dppo":
        return lambda logp, q, adv: dppo_terms(logp, q, adv, **kwargs)
    if name == "sft":
        if kwargs:
            raise TypeError(f"the sft loss takes no settings, got {sorted(kwargs)}")
        return sft_terms
    raise ValueError(f"unknown loss {name!r}; choose one of {', '.join(LOSSES)} (rl.loss)")


def masked_loss_sums(terms_fn: Callable[..., TokenTerms], logp, q, adv, mask) -> tuple[jax.Array, dict]:
    """Sum of masked token losses and the metric sums (divide by N afterwards).

    Masked tokens are neutralised *before* the loss (logp := q there, advantage 0), so padding or
    prompt garbage can neither leak into the value nor produce inf * 0 = NaN gradients.
    """
    mask = mask.astype(logp.dtype)
    on = mask > 0
    logp = jnp.where(on, logp, q)
    terms = terms_fn(logp, q, jnp.where(on, adv, 0.0))
    log_rho = logp - q
    sums = {
        "tokens": mask.sum(),
        "pg_masked": (mask * (1 - terms.pg_kept)).sum(),
        "abs_logp_mismatch": (mask * jnp.abs(jax.lax.stop_gradient(log_rho))).sum(),
        "log_rho_sq": (mask * jax.lax.stop_gradient(log_rho) ** 2).sum(),
        "ratio": (mask * jnp.exp(jax.lax.stop_gradient(log_rho))).sum(),
        "abs_prob_diff": (mask * jnp.abs(jnp.exp(jax.lax.stop_gradient(logp)) - jnp.exp(q))).sum(),
    }
    return (mask * terms.loss).sum(), sums


def finish_metrics(loss_sum, sums: dict) -> dict:
    """Turn summed metrics into means over trainable tokens."""
    n = jnp.maximum(sums["tokens"], 1.0)
    return {
        "loss": loss_sum / n,
        "trainable_tokens": sums["tokens"],
        "masked_token_frac": sums["pg_masked"] / n,
        "logp_mismatch": sums["abs_logp_mismatch"] / n,
        "log_ratio_sq": sums["log_rho_sq"] / n,
        "ratio_mean": sums["ratio"] / n,
        "prob_diff": sums["abs_prob_diff"] / n,
    }


def _reduce(terms_fn, logp, q, adv, mask, num_tokens):
    loss_sum, sums = masked_loss_sums(terms_fn, logp, q, adv, mask)
    n = sums["tokens"] if num_tokens is None else jnp.asarray(num_tokens, logp.dtype)
    metrics = finish_metrics(loss_sum, {**sums, "tokens": n})
    return loss_sum / jnp.maximum(n, 1.0), metrics


def ipo_loss(logp, q, adv, mask, *, num_tokens=None, pg_threshold: float = 0.1,
             kl_coef: float = 1e-3) -> tuple[jax.Array, dict]:
    """Formula (3): (1/N) sum m [-1{|p-q|<=0.1} A rho + 1e-3 (log rho)^2]. Returns (loss, metrics)."""
    fn = lambda lp, qq, a: ipo_terms(lp, qq, a, pg_threshold=pg_threshold, kl_coef=kl_coef)  # noqa: E731
    return _reduce(fn, logp, q, adv, mask, num_tokens)


def dppo_loss(logp, q, adv, mask, *, num_tokens=None, mask_low: float = 0.2, mask_high: float = 0.2,
              tau_adv: float = 1.0, tau_kl: float = 1e-3) -> tuple[jax.Array, dict]:
    """DPPO-style probability-difference trust region (the GlyphBench default loss)."""
    fn = lambda lp, qq, a: dppo_terms(lp, qq, a, mask_low=mask_low, mask_high=mask_high,  # noqa: E731
                                      tau_adv=tau_adv, tau_kl=tau_kl)
    return _reduce(fn, logp, q, adv, mask, num_tokens)
