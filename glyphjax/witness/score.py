"""The WITNESS game score (RHAE, witness.md §7), one implementation for the engine's reward and
for eval's reports. Works on numpy or JAX arrays (jnp functions accept both).

    e_k = min(1.15, (h_k / a_k)^p) if level k solved else 0
    RHAE_L = min(sum_k k e_k, sum_k k 1[solved_k]) / sum_k k     over the first min(L, n) levels

ours: p = 2 (ARC-AGI-3), a game with fewer than L levels weighs only the levels it has.
"""

from __future__ import annotations

import jax.numpy as jnp

EFFICIENCY_CAP = 1.15
DEFAULT_POWER = 2.0


def level_efficiency(solved, actions, ref, p: float = DEFAULT_POWER):
    """e_k per level: min(1.15, (ref / actions)^p) where solved, else 0."""
    a = jnp.maximum(jnp.asarray(actions, jnp.float32), 1.0)
    e = jnp.minimum(EFFICIENCY_CAP, (jnp.asarray(ref, jnp.float32) / a) ** p)
    return jnp.where(jnp.asarray(solved, bool), e, 0.0)


def game_score(solved, actions, ref, n_levels, window: int, p: float = DEFAULT_POWER):
    """RHAE over the first `window` levels as a fraction in [0, 1] (x 100 for reports).
    Arrays carry the level axis last; `n_levels` is the game's level count."""
    solved = jnp.asarray(solved, bool)
    k = jnp.arange(1, solved.shape[-1] + 1, dtype=jnp.float32)
    weight = jnp.where(k <= jnp.minimum(jnp.asarray(n_levels)[..., None], window), k, 0.0)
    total = jnp.sum(weight, axis=-1)
    weighted = jnp.sum(weight * level_efficiency(solved, actions, ref, p), axis=-1)
    complete = jnp.sum(weight * solved, axis=-1)
    return jnp.minimum(weighted, complete) / jnp.maximum(total, 1.0)
