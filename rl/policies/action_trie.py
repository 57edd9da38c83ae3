"""Token trie of the legal action names of one turn, for constrained decoding.

A name the tokenizer splits into several tokens is a path from the root; each node holds the
tokens that continue some legal name (`allowed`) and the node each leads to (`child`), and a
node where a whole name ends allows the `end` tokens (e.g. the close tag or EOS). Masking the
logits to `allowed[node]` before sampling means only legal completions can be drawn; the
log-probs of that masked (renormalised) distribution are the sampler's, so a trainer that
scores the same tokens must apply the same masks (`constrained_logprobs`).

Not yet wired into `LocalPolicy`'s decode loop or the trainer's log-prob pass."""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np


class ActionTrie:
    """Dense trie arrays over a vocabulary of `vocab` tokens: `allowed` bool[nodes, vocab],
    `child` int32[nodes, vocab] (-1 = no such edge; an end token leads to -1 as well)."""

    def __init__(self, names: Sequence[Sequence[int]], vocab: int, end_ids: Sequence[int]):
        if not names or any(len(n) == 0 for n in names):
            raise ValueError("every action name needs at least one token (got an empty name or no names)")
        edges: list[dict[int, int]] = [{}]
        ends: list[bool] = [False]
        for name in names:
            node = 0
            for tok in name:
                if not 0 <= int(tok) < vocab:
                    raise ValueError(f"token id {tok} of action name {list(name)} is outside the vocabulary 0..{vocab - 1}")
                if int(tok) not in edges[node]:
                    edges[node][int(tok)] = len(edges)
                    edges.append({})
                    ends.append(False)
                node = edges[node][int(tok)]
            ends[node] = True
        self.allowed = np.zeros((len(edges), vocab), bool)
        self.child = np.full((len(edges), vocab), -1, np.int32)
        for node, out in enumerate(edges):
            for tok, nxt in out.items():
                self.allowed[node, tok], self.child[node, tok] = True, nxt
            if ends[node]:
                self.allowed[node, list(end_ids)] = True
        self.ends = np.asarray(ends)

    def walk(self, tokens: Sequence[int]) -> int:
        """The node reached from the root along `tokens` (-1 once a token leaves the trie)."""
        node = 0
        for tok in tokens:
            if node < 0:
                return -1
            node = int(self.child[node, tok]) if self.allowed[node, tok] else -1
        return node


def constrained_logprobs(logits: jax.Array, allowed: jax.Array, temperature: float = 1.0) -> jax.Array:
    """log_softmax(logits / T) over the allowed tokens only (-inf elsewhere); rows with no
    allowed token fall back to the unconstrained distribution."""
    x = logits.astype(jnp.float32) / temperature
    any_allowed = jnp.any(allowed, axis=-1, keepdims=True)
    return jax.nn.log_softmax(jnp.where(allowed | ~any_allowed, x, -jnp.inf), axis=-1)
