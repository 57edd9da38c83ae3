"""Token trie of the legal action names of one turn, for constrained decoding.

A name the tokenizer splits into several tokens is a path from the root; each node holds the
tokens that continue some legal name (`allowed`) and the node each leads to (`child`), and a
node where a whole name ends allows the `end` tokens (e.g. the close tag or EOS). Masking the
logits to `allowed[node]` before sampling means only legal completions can be drawn; the
log-probs of that masked (renormalised) distribution are the sampler's, so a trainer that
scores the same tokens must apply the same masks (`constrained_logprobs`).

Used by `LocalPolicy(constrained_actions=True)` (rl/policies/local.py), which walks the trie on
the host (`next_tokens` / `step`, sparse: no [nodes, vocab] arrays for a large vocabulary) and
records each step's allowed set, and by the train step, which masks its log-softmax to the same
sets (rl/train_step.py). The dense `allowed` / `child` arrays are built on first use."""

from __future__ import annotations

import functools
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
        self.vocab, self.end_ids = int(vocab), tuple(int(i) for i in end_ids)
        self.edges = edges
        self.ends = np.asarray(ends)
        # per node: the allowed next tokens, sorted (continuations, then end tokens where a name ends)
        self._next = [sorted(set(out) | (set(self.end_ids) if ends[n] else set())) for n, out in enumerate(edges)]

    def next_tokens(self, node: int) -> list[int]:
        """Sorted token ids allowed at `node` (continuations of a legal name; end ids where one ends)."""
        return self._next[node]

    def step(self, node: int, tok: int) -> int:
        """The node after `tok` from `node`; -1 for an end token (the name is complete)."""
        if tok not in self._next[node]:
            raise ValueError(f"token {tok} is not allowed at trie node {node} (allowed: {self._next[node]})")
        return self.edges[node].get(int(tok), -1)

    @functools.cached_property
    def allowed(self) -> np.ndarray:
        out = np.zeros((len(self.edges), self.vocab), bool)
        for node, toks in enumerate(self._next):
            out[node, toks] = True
        return out

    @functools.cached_property
    def child(self) -> np.ndarray:
        out = np.full((len(self.edges), self.vocab), -1, np.int32)
        for node, edges in enumerate(self.edges):
            for tok, nxt in edges.items():
                out[node, tok] = nxt
        return out

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
