"""The action-name token trie: only legal completions get probability, and the masked log-probs
are a normalised distribution over exactly the allowed next tokens."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from rl.policies.action_trie import ActionTrie, constrained_logprobs

END = 9


def test_action_trie__sampling_under_the_masks_only_ever_completes_a_legal_name():
    names = [(1, 2), (1, 3), (4,), (5, 2, 6)]
    trie = ActionTrie(names, vocab=10, end_ids=[END])
    rows = 400
    nodes, outs, done = np.zeros(rows, int), [[] for _ in range(rows)], np.zeros(rows, bool)
    draw = jax.jit(lambda k, allowed: jax.random.categorical(
        k, constrained_logprobs(jax.random.normal(k, (rows, 10)) * 3, allowed)))
    for step in range(4):  # the longest name (3 tokens) and its end token
        toks = np.asarray(draw(jax.random.PRNGKey(step), jnp.asarray(trie.allowed[nodes])))
        live = ~done
        assert np.all(trie.allowed[nodes[live], toks[live]]), "a sampled token lies outside its mask"
        for i in np.flatnonzero(live):
            if toks[i] == END:
                done[i] = True
            else:
                outs[i].append(int(toks[i]))
                nodes[i] = trie.child[nodes[i], toks[i]]
    assert done.all()
    seen = {tuple(o) for o in outs}
    assert seen == set(names)  # every legal name reachable, nothing else produced


def test_action_trie__masked_logprobs_renormalise_over_the_allowed_tokens():
    trie = ActionTrie([(1, 2), (1, 3)], vocab=6, end_ids=[END - 4])
    logits = jnp.asarray([[0.5, 1.0, -2.0, 3.0, 0.0, 1.5]])
    node = trie.walk([1])
    lp = np.asarray(constrained_logprobs(logits, jnp.asarray(trie.allowed[node])[None], temperature=2.0))[0]
    want = np.exp(np.array([-2.0, 3.0]) / 2) / np.exp(np.array([-2.0, 3.0]) / 2).sum()
    assert np.allclose(np.exp(lp[[2, 3]]), want, atol=1e-6)
    assert np.all(np.isneginf(lp[[0, 1, 4]]))
    assert trie.walk([1, 3]) > 0 and trie.ends[trie.walk([1, 3])] and trie.walk([2]) == -1


def test_action_trie__names_outside_the_vocabulary_are_refused_with_the_token():
    with pytest.raises(ValueError, match="token id 12 .* outside the vocabulary 0..9"):
        ActionTrie([(1, 12)], vocab=10, end_ids=[END])
