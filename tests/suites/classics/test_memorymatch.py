"""Memory Match (classics/memorymatch-easy/-hard): deal, flips, match/mismatch, win, golden."""

from functools import lru_cache

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax

EASY = glyphjax.make("classics/memorymatch-easy")
HARD = glyphjax.make("classics/memorymatch-hard")


@lru_cache(maxsize=None)
def jit_step(env):
    """env.step compiled once per env (eager stepping is slow)."""
    return jax.jit(env.step)


def test_memorymatch__deal_has_each_symbol_twice():
    for env, pairs in ((EASY, 8), (HARD, 18)):
        for seed in range(50):
            cards = np.asarray(env.reset(glyphjax.reset_key(seed)).cards)
            assert (np.bincount(cards, minlength=pairs) == 2).all(), f"{env.card.id} seed {seed}"


def test_memorymatch__perfect_memory_player_wins_with_full_return():
    for env in (EASY, HARD):
        for seed in range(3):
            s = env.reset(glyphjax.reset_key(seed))
            cards = np.asarray(s.cards)
            total, t = 0.0, 0
            for sym in range(env.pairs):
                a, b = np.flatnonzero(cards == sym)
                for cell in (a, b):
                    s, tr = jit_step(env)(glyphjax.step_key(seed, t), s, int(cell))
                    total += float(tr.reward)
                    t += 1
            assert bool(tr.terminated) and int(tr.event) == 5, f"{env.card.id} seed {seed}"
            assert abs(total - 1.0) < 1e-5 and t == 2 * env.pairs


def test_memorymatch__mismatch_stays_visible_until_next_flip():
    s = EASY.reset(glyphjax.reset_key(0))
    cards = np.asarray(s.cards)
    a = 0
    b = int(np.flatnonzero(cards != cards[0])[0])
    s, tr = jit_step(EASY)(glyphjax.step_key(0, 0), s, a)
    assert int(tr.event) == 1
    s, tr = jit_step(EASY)(glyphjax.step_key(0, 1), s, a)  # same card again: no-op
    assert int(tr.event) == 4 and int(s.first) == a
    s, tr = jit_step(EASY)(glyphjax.step_key(0, 2), s, b)
    assert int(tr.event) == 3 and float(tr.reward) == 0.0 and int(s.attempts) == 1
    grid = np.asarray(EASY.render(s).grid).reshape(-1)
    assert (grid != ord("▧")).sum() == 2 and grid[a] != ord("▧") and grid[b] != ord("▧")
    c = int(np.flatnonzero((np.arange(16) != a) & (np.arange(16) != b))[0])
    s, _ = jit_step(EASY)(glyphjax.step_key(0, 3), s, c)
    grid = np.asarray(EASY.render(s).grid).reshape(-1)
    assert (grid != ord("▧")).sum() == 1 and grid[c] != ord("▧")


def test_memorymatch__golden_board():
    s = EASY.reset(glyphjax.reset_key(0))
    s = s.replace(cards=jnp.array([0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7], jnp.int32))
    for t, a in enumerate([0, 8, 1, 2]):  # pair α found, then β/γ mismatch shown
        s, _ = jit_step(EASY)(glyphjax.step_key(0, t), s, a)
    text = glyphjax.render_text(EASY.card, EASY.render(s))
    assert text.grid == "  0123\n0 ✓βγ▧\n1 ▧▧▧▧\n2 ✓▧▧▧\n3 ▧▧▧▧"
    assert text.hud.endswith("Pairs found: 1 / 8    Attempts: 2")
    assert "β — face-up card with symbol β" in text.legend


def test_memorymatch__random_play_bounded():
    res = glyphjax.rollout(HARD, HARD.scripted_policy, jnp.arange(100, dtype=jnp.uint32))
    r = np.asarray(res.returns)
    assert (r >= 0).all() and (r <= 1 + 1e-5).all() and r.max() > 0
