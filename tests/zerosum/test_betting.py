"""The betting template on Kuhn Poker: the betting tree, chips and showdown against hand-computed
results for every deal and action sequence, V(s) against exact enumeration, hidden cards."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.zerosum import battery, corpus
from glyphjax.zerosum.betrules import MAX_ROUNDS, BetEncoding, BetRules, bet_params, bet_rules_text
from glyphjax.zerosum.betting import DECK_SLOTS
from glyphjax.zerosum.betting import BET, CALL, CHECK, FOLD, RAISE, BettingGame, pack_node

SINGLE = "zerosum/kuhn/rule-single"
# Every terminal action sequence of one Kuhn round and seat 0's chips, hand-computed from the rules
# (ante 1, bet 1): `s` = +1 when seat 0 holds the higher card, -1 otherwise.
KUHN_LINES = {
    (CHECK, CHECK): lambda s: s * 1,
    (CHECK, BET, FOLD): lambda s: -1,
    (CHECK, BET, CALL): lambda s: s * 2,
    (BET, FOLD): lambda s: +1,
    (BET, CALL): lambda s: s * 2,
}


_STEPS: dict = {}


def _jit_step(env):
    """One jitted step per program (params default to the env's own)."""
    if env.program not in _STEPS:
        _STEPS[env.program] = jax.jit(lambda k, s, a, p: env.step(k, s, a, p))
    return lambda k, s, a: _STEPS[env.program](k, s, jnp.int32(a), env.default_params())


def _dealt(env, cards):
    s = env.reset(glyphjax.reset_key(0))
    return s.replace(deal=s.deal.at[0].set(jnp.asarray(cards, jnp.int32)))


@pytest.mark.parametrize("cards", list(itertools.permutations(range(3), 2)))
def test_kuhn__every_deal_and_action_sequence_pays_the_hand_computed_chips(cards):
    env = glyphjax.make(SINGLE)
    step = _jit_step(env)
    s_sign = 1 if cards[0] > cards[1] else -1
    for line, chips0 in KUHN_LINES.items():
        s = _dealt(env, cards)
        for t, a in enumerate(line):
            assert not bool(s.done), f"{cards} {line}: ended early"
            s, tr = step(glyphjax.step_key(0, t), s, a)
        want = chips0(s_sign)
        assert bool(s.done) and np.asarray(s.chips).tolist() == [want, -want], f"{cards} {line}"
        assert np.asarray(tr.reward).tolist() == [float(np.sign(want)), -float(np.sign(want))]


def test_kuhn__illegal_actions_follow_the_tree_and_forfeit():
    env = glyphjax.make(SINGLE)
    s = _dealt(env, (0, 1))
    assert np.asarray(env.legal(s)).tolist() == [True, True, False, False, False]
    s, _ = env.step(glyphjax.step_key(0, 0), s, BET)
    assert np.asarray(env.legal(s)).tolist() == [False, False, True, True, False]  # no raise in Kuhn
    s, tr = env.step(glyphjax.step_key(0, 1), s, RAISE)
    assert bool(s.done) and np.asarray(tr.reward).tolist() == [1.0, -1.0]  # seat 1 forfeits


def test_kuhn__chips_carry_over_rounds_and_the_opener_alternates():
    env = glyphjax.make("zerosum/kuhn/base")
    s = env.reset(glyphjax.reset_key(0))
    s = s.replace(deal=jnp.asarray([[2, 0], [0, 1], [1, 2], [2, 1], [0, 2]], jnp.int32))
    moves = [(BET, CALL), (CHECK, CHECK), (BET, FOLD), (CHECK, BET, CALL), (CHECK, CHECK)]
    openers = []
    t = 0
    for line in moves:
        openers.append(int(s.mover))
        for a in line:
            s, tr = env.step(glyphjax.step_key(0, t), s, a)
            t += 1
    # round 1 seat 0 +2; round 2 (seat 1 opens, both check, seat 1 higher) -1; round 3 seat 0
    # bets, seat 1 folds: +1; round 4 seat 1 checks, seat 0 bets, seat 1 calls, seat 0 higher: +2;
    # round 5 both check, seat 1 higher: -1  => seat 0 ends +3
    assert openers == [0, 1, 0, 1, 0]
    assert np.asarray(s.chips).tolist() == [3, -3] and np.asarray(tr.reward).tolist() == [1.0, -1.0]


def _value_by_enumeration(rules: BetRules, own_card: int, round_: int, chips: tuple[int, int]) -> float:
    ranks = rules.ranks
    others = [c for c in range(len(ranks)) if c != own_card]
    sign = -1 if rules.lowball else 1
    edge = sum(sign * np.sign(ranks[own_card] - ranks[c]) for c in others) / len(others)
    f = (rules.rounds - round_) / rules.rounds
    c_max = rules.rounds * (rules.ante + rules.bet * (1 + rules.max_raises))
    return f * edge + (1 - f) * (chips[0] - chips[1]) / (2 * c_max)


@pytest.mark.parametrize("task_id", ["zerosum/kuhn/base", "zerosum/pairdeck/base", "zerosum/lowkuhn/base"])
def test_betting_value__equals_exact_enumeration_over_the_remaining_deck(task_id):
    env = glyphjax.make(task_id)
    rules, _ = corpus.bet_declarations()[task_id]
    s0 = env.reset(glyphjax.reset_key(0))
    for own, round_, lead in itertools.product(range(len(rules.ranks)), range(rules.rounds), (-2, 0, 3)):
        deal = s0.deal.at[round_, 0].set(own).at[round_, 1].set((own + 1) % len(rules.ranks))
        s = s0.replace(deal=deal, node=pack_node(round=round_), chips=jnp.asarray([lead, -lead], jnp.int32))
        got = float(env.value(s, env.default_params(), 0))
        want = _value_by_enumeration(rules, own, round_, (lead, -lead))
        assert abs(got - want) < 1e-6, f"{task_id}: card {own} round {round_} lead {lead}: {got} vs {want}"


def test_betting_value__ignores_the_other_seats_card_and_the_encoding():
    env = glyphjax.make("zerosum/kuhn/base")
    enc = glyphjax.make("zerosum/kuhn/enc-r1-a1")
    s = env.reset(glyphjax.reset_key(3))
    v = float(env.value(s, env.default_params(), 0))
    for k in range(8):
        moved = env.perturb_private(jax.random.PRNGKey(k), s, jnp.int32(1))
        assert float(env.value(moved, env.default_params(), 0)) == v
    assert float(enc.value(s, enc.default_params(), 0)) == v


class LeakyBetting(BettingGame):
    """Injected defect: the opponent's card is drawn face up."""

    def _render(self, state, params, seat):
        grid, hud = super()._render(state, params, seat)
        return grid.at[0, 1].set(params.glyphs[params.rank[state.deal[state.round, 1 - seat]]]), hud


@pytest.mark.parametrize("seeds", [np.arange(24), np.arange(5000, 5024)], ids=["fixed-seeds", "fresh-seeds"])
def test_fault__leaked_hidden_card_is_rejected_by_the_information_hiding_test(seeds):
    rules, enc = BetRules(rounds=1), BetEncoding()
    labels = enc.labels(rules.n_ranks)

    def leaky():
        return LeakyBetting("zerosum/faulty/leak", DECK_SLOTS, MAX_ROUNDS, bet_params(rules, enc), bet_rules_text(rules, labels),
                            labels["ranks"], labels["actions"], "".join(labels["ranks"]))
    c = corpus.bet_candidate("zerosum/faulty/leak", rules, enc, build=leaky)
    vs = battery.assess(c, seeds, {})
    assert vs[-1].test == "hiding" and not vs[-1].passed
    assert battery.assess(corpus.bet_candidate("zerosum/kuhn/rule-single", rules, enc), seeds, {})[-1].passed


def test_betting_rules_text__names_ranks_and_actions_through_the_labels():
    env = glyphjax.make("zerosum/kuhn/enc-r1-a1")
    assert env.card.actions == ("PASS", "WAGER", "MATCH", "SURRENDER", "RERAISE")
    assert "Card order: 1 < 2 < 3" in env.card.rules and "you may PASS (pass) or WAGER" in env.card.rules
