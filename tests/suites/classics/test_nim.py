"""Nim (classics/nim-easy/-hard, against the AI through `versus`; classics/nim-*-2p): misère and
normal play vs a brute-force game tree, AI optimality, winnable start, golden board, two-seat rules."""

import itertools
from functools import lru_cache

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics.nim import lost_for_mover, nim_vs_ai
from tests.seat_checks import seat_views, state_with

EASY = glyphjax.make("classics/nim-easy")
HARD = glyphjax.make("classics/nim-hard")


@lru_cache(maxsize=None)
def jit_step(env):
    """env.step compiled once per env (eager stepping is slow)."""
    return jax.jit(env.step)


@lru_cache(maxsize=None)
def mover_wins(piles, misere):
    """Brute-force game value: does the player to move win?"""
    if sum(piles) == 0:
        return misere  # the previous player took the last object
    for p in range(3):
        for c in range(1, piles[p] + 1):
            nxt = list(piles)
            nxt[p] -= c
            if not mover_wins(tuple(nxt), misere):
                return True
    return False


def test_nim__position_values_match_brute_force():
    positions = list(itertools.product(range(6), range(8), range(10)))
    for misere in (True, False):
        got = np.asarray(lost_for_mover(jnp.array(positions, jnp.int32), misere))
        want = np.array([not mover_wins(p, misere) for p in positions])
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, f"misere={misere}: wrong value at {positions[bad[0]]}"


def test_nim__starts_are_winnable_for_first_mover():
    assert mover_wins((3, 5, 7), True) and mover_wins((5, 7, 9), True)


def perfect_action(env, piles):
    game = env.game
    for a, (p, c) in enumerate(zip(np.asarray(game.act_pile), np.asarray(game.act_count))):
        if c <= piles[p]:
            nxt = list(piles)
            nxt[p] -= c
            if not mover_wins(tuple(nxt), game.misere):
                return a
    return None


def play(env, seed, chooser):
    s = env.reset(glyphjax.reset_key(seed))
    total, t = 0.0, 0
    while not bool(s.done):
        a = chooser(tuple(int(x) for x in s.game.piles), t)
        s, tr = jit_step(env)(glyphjax.step_key(seed, t), s, a)
        total += float(tr.reward)
        t += 1
    return total


def test_nim__perfect_play_beats_the_ai_misere_and_normal():
    normal = nim_vs_ai("classics/nim-normal-test", (3, 5, 7), 100, misere=False)
    for env in (EASY, HARD, normal):
        for seed in range(3):
            ret = play(env, seed, lambda piles, t, env=env: perfect_action(env, piles))
            assert ret == 1.0, f"{env.card.id} seed {seed}: perfect play got {ret}"


def test_nim__ai_punishes_a_mistake():
    # first move TAKE_0_3 from (3,5,7) -> (0,5,7), xor 2: a won position for the AI; then play
    # perfectly whenever the position allows
    for seed in range(5):
        def chooser(piles, t):
            if t == 0:
                return EASY.card.action_index("TAKE_0_3")
            a = perfect_action(EASY, piles)
            return a if a is not None else int(np.flatnonzero(
                np.asarray(EASY.game.act_count) <= np.array(piles)[np.asarray(EASY.game.act_pile)])[0])
        assert play(EASY, seed, chooser) == -1.0, f"classics/nim-easy seed {seed}"


def with_piles(state, piles):
    return state.replace(game=state.game.replace(piles=jnp.array(piles, jnp.int32)))


def test_nim__taking_last_object_loses_in_misere():
    s = with_piles(EASY.reset(glyphjax.reset_key(0)), [0, 0, 1])
    s2, tr = jit_step(EASY)(glyphjax.step_key(0, 0), s, EASY.card.action_index("TAKE_2_1"))
    assert float(tr.reward) == -1.0 and bool(tr.terminated)
    s = with_piles(s, [0, 2, 0])
    s2, tr = jit_step(EASY)(glyphjax.step_key(0, 0), s, EASY.card.action_index("TAKE_1_1"))
    assert float(tr.reward) == 1.0 and bool(tr.terminated)  # the AI is forced to take the last
    s2, tr = jit_step(EASY)(glyphjax.step_key(0, 0), s, EASY.card.action_index("TAKE_1_3"))
    assert float(tr.reward) == 0.0 and int(tr.event) == 2 and (np.asarray(s2.game.piles) == [0, 2, 0]).all()


def test_nim__golden_board():
    s = HARD.reset(glyphjax.reset_key(0))
    text0 = glyphjax.render_text(HARD.card, HARD.render(s))
    assert text0.grid == "❚❚❚❚❚····\n❚❚❚❚❚❚❚··\n❚❚❚❚❚❚❚❚❚"
    assert text0.message.startswith("You move first.")
    # (5,7,9) TAKE_2_8 -> (5,7,1), xor 3: the AI's only winning reply is TAKE_1_3 -> (5,4,1), xor 0
    s, tr = jit_step(HARD)(glyphjax.step_key(0, 0), s, HARD.card.action_index("TAKE_2_8"))
    text = glyphjax.render_text(HARD.card, HARD.render(s))
    assert text.grid == "❚❚❚❚❚····\n❚❚❚❚·····\n❚········"
    assert text.hud.endswith("Piles: 5, 4, 1    AI's last move: took 3 from pile 1")


GAME = glyphjax.make("classics/nim-easy-2p")


def messages(state):
    return [view.message for view in seat_views(GAME, state)]


def test_nim_2p__taking_the_last_object_loses_for_that_seat():
    s, tr = jit_step(GAME)(glyphjax.step_key(0, 0), state_with(GAME, piles=[0, 0, 1], mover=1), GAME.card.action_index("TAKE_2_1"))
    np.testing.assert_array_equal(tr.reward, [1.0, -1.0])
    assert bool(tr.terminated) and messages(s) == ["You win!", "You lose."]


def test_nim_2p__legal_mask_and_forfeit_of_an_impossible_take():
    s = state_with(GAME, piles=[0, 2, 0], mover=0)
    legal = np.asarray(GAME.legal(s))
    names = [a for a, ok in zip(GAME.card.actions, legal) if ok]
    assert names == ["TAKE_1_1", "TAKE_1_2"]
    s2, tr = jit_step(GAME)(glyphjax.step_key(0, 0), s, GAME.card.action_index("TAKE_1_3"))
    np.testing.assert_array_equal(tr.reward, [-1.0, 1.0])
    assert bool(tr.terminated) and (np.asarray(s2.piles) == [0, 2, 0]).all()
    assert messages(s2)[1] == "The opponent tried an impossible take and forfeits. You win!"


def test_nim_2p__seats_alternate_and_see_the_same_piles_with_their_own_hud():
    s = GAME.reset(glyphjax.reset_key(0))
    s, _ = jit_step(GAME)(glyphjax.step_key(0, 0), s, GAME.card.action_index("TAKE_2_7"))
    s, tr = jit_step(GAME)(glyphjax.step_key(0, 1), s, GAME.card.action_index("TAKE_0_1"))
    assert int(GAME.to_play(s)) == 0
    np.testing.assert_array_equal(tr.reward, [0.0, 0.0])
    views = seat_views(GAME, s)
    assert views[0].grid == views[1].grid == "❚❚·····\n❚❚❚❚❚··\n·······"
    assert views[0].hud.endswith("Piles: 2, 5, 0    The opponent's last move: took 1 from pile 0")
    assert views[1].hud.endswith("Piles: 2, 5, 0    The opponent's last move: took 7 from pile 2")
    assert messages(s) == ["The opponent has moved.", "You have moved; the opponent moves next."]
