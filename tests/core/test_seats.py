"""The seats contract of the Env shell: to_play, legal, per-seat rewards, illegal = noop/forfeit,
frozen finished games, per-seat render with a traced seat, card validation."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.types import FORFEIT, NO_ACTION, NOOP, TaskCard
from tests.core.seat_games import LeakyRace, SecretRace
from tests.seat_checks import hidden_information_leaks, random_legal_play

KEY = jax.random.PRNGKey(0)
ADD_1, ADD_2, ADD_3 = 0, 1, 2


def _card(**kw) -> TaskCard:
    base = dict(id="test/card", rules="r", actions=("A",), action_descriptions=("a",), glyphs={},
                hud="", hud_fields=(), max_steps=5, reward="none")
    return TaskCard(**{**base, **kw})


def test_card__illegal_and_zero_sum_are_validated():
    assert _card().illegal == NOOP and not _card().zero_sum
    assert _card(num_players=2, illegal=FORFEIT, zero_sum=True).illegal == FORFEIT
    with pytest.raises(ValueError, match="illegal='lose'.*noop"):
        _card(num_players=2, illegal="lose")
    with pytest.raises(ValueError, match="zero_sum=True needs num_players > 1"):
        _card(zero_sum=True)
    with pytest.raises(ValueError, match="num_players must be >= 1"):
        _card(num_players=0)


def test_seats__noop_illegal_keeps_state_and_the_same_seat_moves():
    env = SecretRace(NOOP)
    s = env.reset(KEY)
    s, tr = env.step(KEY, s, ADD_2)
    assert int(env.to_play(s)) == 1 and int(s.total) == 2
    for bad in (ADD_3, NO_ACTION):
        s2, tr = env.step(KEY, s, bad)
        assert int(s2.t) == int(s.t) + 1 and int(s2.event) == 2, bad
        assert int(s2.total) == 2 and int(env.to_play(s2)) == 1, bad
        np.testing.assert_array_equal(tr.reward, [0.0, 0.0])
        assert tr.reward.dtype == jnp.float32 and not bool(tr.terminated) and not bool(s2.done)


def test_seats__forfeit_ends_the_game_with_the_mover_losing():
    env = SecretRace(FORFEIT)
    s = env.reset(KEY)
    s, _ = env.step(KEY, s, ADD_1)  # seat 1 to move
    for bad in (ADD_3, NO_ACTION):
        s2, tr = env.step(KEY, s, bad)
        np.testing.assert_array_equal(tr.reward, [1.0, -1.0])
        assert bool(tr.terminated) and not bool(tr.truncated) and bool(s2.done), bad
        assert int(s2.total) == 1 and int(s2.event) == 2, bad  # board kept, the game's message
    s0 = env.reset(KEY)
    _, tr = env.step(KEY, s0, ADD_3)
    np.testing.assert_array_equal(tr.reward, [-1.0, 1.0])


def test_seats__win_pays_per_seat_and_the_finished_game_stays_frozen():
    env = SecretRace(NOOP)
    s = env.reset(KEY)
    for a in (ADD_2, ADD_1, ADD_1):  # 2, 3, 4 -> seat 1 adds 1 to reach 5
        s, tr = env.step(KEY, s, a)
        np.testing.assert_array_equal(tr.reward, [0.0, 0.0])
    s, tr = env.step(KEY, s, ADD_1)
    np.testing.assert_array_equal(tr.reward, [-1.0, 1.0])
    assert bool(tr.terminated) and bool(s.done)
    assert not bool(jnp.any(env.legal(s)))  # all False once done
    s2, tr2 = env.step(KEY, s, ADD_2)
    for a, b in zip(jax.tree.leaves(s), jax.tree.leaves(s2)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(tr2.reward, [0.0, 0.0])
    assert not bool(tr2.terminated | tr2.truncated) and int(tr2.event) == 0


def test_seats__truncation_counts_every_move_of_every_seat():
    env = SecretRace(NOOP, max_steps=3)
    s = env.reset(KEY)
    for t in range(3):
        s, tr = env.step(KEY, s, ADD_3)  # illegal no-ops still use up the budget
    assert bool(tr.truncated) and not bool(tr.terminated) and bool(s.done)


def test_seats__traced_seat_renders_each_view_in_one_program():
    env = SecretRace()
    s = env.reset(jax.random.PRNGKey(3))
    secret = np.asarray(s.secret)
    both = jax.jit(jax.vmap(lambda seat: env.render(s, None, seat)))(jnp.arange(2, dtype=jnp.int32))
    for seat in (0, 1):
        eager = env.render(s, seat=seat)
        assert int(eager.seat) == seat and eager.seat.dtype == jnp.int32
        np.testing.assert_array_equal(both.grid[seat], eager.grid)
        assert chr(int(eager.grid[0, 1])) == str(secret[seat])
        text = glyphjax.render_text(env.card, eager)
        assert text.grid == f"0{secret[seat]}"
    with pytest.raises(ValueError, match="seat 2 is not a seat of this 2-player task"):
        env.render(s, seat=2)


def test_single_agent__seat_defaults_stay_as_before():
    env = glyphjax.make("classics/snake-easy")
    s = env.reset(glyphjax.reset_key(0))
    assert int(env.to_play(s)) == 0 and env.to_play(s).dtype == jnp.int32
    assert bool(jnp.all(env.legal(s))) and env.legal(s).shape == (env.card.num_actions,)
    frame = env.render(s)
    assert int(frame.seat) == 0
    s2, tr = env.step(glyphjax.step_key(0, 0), s, 0)
    assert tr.reward.shape == () and tr.reward.dtype == jnp.float32
    with pytest.raises(ValueError, match="seat 1 is not a seat of this 1-player task"):
        env.render(s, seat=1)


def _states_of(env, n=32, turns=(0, 1, 2)):
    play = random_legal_play(env, jnp.arange(n, dtype=jnp.uint32), sample_turns=turns)
    return jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), play.states), play


def test_hidden_information_check__passes_a_private_secret_and_catches_a_leak():
    states, play = _states_of(SecretRace())
    assert not play.empty_mask.any() and play.max_abs_sum.max() == 0 and play.decided.all()
    assert hidden_information_leaks(SecretRace(), states, KEY) == []
    leaks = hidden_information_leaks(LeakyRace(), states, KEY)
    assert len(leaks) == 2 and "seat 1's text changed when seat 0's private state did" in leaks[0]


def test_random_legal_play__reports_an_empty_mask_and_a_non_zero_sum():
    class Stuck(SecretRace):
        def _legal(self, state, params):
            return jnp.array([False, False, state.total < 3])  # ADD_3 once, then nothing is legal

    class Unbalanced(SecretRace):
        def _step(self, key, state, action, params):
            nxt, reward, won, event = super()._step(key, state, action, params)
            return nxt, jnp.maximum(reward, 0.0), won, event  # the loser's -1 is missing

    seeds = jnp.arange(8, dtype=jnp.uint32)
    stuck = random_legal_play(Stuck(NOOP), seeds)
    assert stuck.empty_mask.all() and not stuck.bad_to_play.any() and stuck.ended.all()  # truncated
    fair, unfair = random_legal_play(SecretRace(), seeds), random_legal_play(Unbalanced(), seeds)
    assert not fair.empty_mask.any() and (fair.max_abs_sum == 0).all()
    assert (unfair.max_abs_sum == 1).all() and unfair.decided.all()


def test_seats__forfeit_with_three_seats_shares_the_win_and_sums_to_zero():
    class Relay(SecretRace):
        """Three seats pass in turn (seat = t mod 3); ADD_3 stays illegal."""

        def __init__(self):
            super().__init__(FORFEIT)
            self.card = dataclasses.replace(self.card, num_players=3)

        def _to_play(self, state):
            return state.t % 3

        def _step(self, key, state, action, params):
            return state, jnp.zeros((3,), jnp.float32), jnp.zeros((), jnp.bool_), jnp.int32(1)

    env = Relay()
    s = env.reset(KEY)
    s, tr = env.step(KEY, s, ADD_1)  # seat 0 passes; seat 1 to move
    np.testing.assert_array_equal(tr.reward, [0.0, 0.0, 0.0])
    s, tr = env.step(KEY, s, ADD_3)
    np.testing.assert_array_equal(tr.reward, [0.5, -1.0, 0.5])
    assert bool(tr.terminated) and float(jnp.sum(tr.reward)) == 0.0
