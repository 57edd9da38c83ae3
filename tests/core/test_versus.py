"""`versus(game, opponent)`: the Classics tasks equal the single-agent games they replaced (frame,
reward and flags at every step, NO_ACTION and illegal moves included), the agent may sit in either
seat, its reward is its seat's, and bad set-ups are refused with a clear message."""

from __future__ import annotations

import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.versus import versus
from glyphjax.suites.classics import connectfour as c4
from tests.core.legacy_classics import LegacyConnectFour, LegacyNim, LegacyTron

SEEDS = 48
CARDS = json.loads((Path(__file__).parent / "data" / "versus_cards.json").read_text())


def _play_both(env_a, env_b, seeds):
    """Both envs under the same random actions in [-1, num_actions) -> per-step frames and
    transitions of each (leading axes [seed, t])."""
    n = env_a.card.num_actions

    def episode(seed):
        def turn(carry, t):
            sa, sb = carry
            a = jax.random.randint(glyphjax.step_key(seed + 99, t), (), -1, n, dtype=jnp.int32)
            sa, ta = env_a.step(glyphjax.step_key(seed, t), sa, a)
            sb, tb = env_b.step(glyphjax.step_key(seed, t), sb, a)
            fa, fb = env_a.render(sa), env_b.render(sb)
            return (sa, sb), ((fa.grid, fa.hud, fa.event, ta), (fb.grid, fb.hud, fb.event, tb))
        s0 = (env_a.reset(glyphjax.reset_key(seed)), env_b.reset(glyphjax.reset_key(seed)))
        first = (env_a.render(s0[0]), env_b.render(s0[1]))
        _, (a, b) = jax.lax.scan(turn, s0, jnp.arange(env_a.card.max_steps))
        return (first[0].grid, first[0].hud, first[0].event, a), (first[1].grid, first[1].hud, first[1].event, b)
    return jax.device_get(jax.jit(jax.vmap(episode))(seeds))


@pytest.mark.parametrize("task_id, legacy", [("classics/connectfour", LegacyConnectFour),
                                             ("classics/nim-easy", LegacyNim),
                                             ("classics/tron", LegacyTron)])
def test_versus__classics_task_equals_the_legacy_game_step_for_step(task_id, legacy):
    env = glyphjax.make(task_id)
    seeds = jnp.arange(SEEDS, dtype=jnp.uint32)
    got, want = _play_both(env, legacy(), seeds)
    names = ["reset grid", "reset hud", "reset event", "grid", "hud", "event", "transition"]
    for name, a, b in zip(names, [*got[:3], *got[3]], [*want[:3], *want[3]]):
        for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
            bad = np.argwhere(np.asarray(x) != np.asarray(y))
            assert bad.size == 0, f"{task_id}: {name} differs at seed/step {bad[0].tolist()}"
    trans = got[3][3]
    assert np.abs(trans.reward).sum() > 0 and trans.terminated.any(), f"{task_id}: no episode ended"


@pytest.mark.parametrize("task_id", sorted(CARDS))
def test_versus__classics_card_text_is_unchanged(task_id):
    card = glyphjax.make(task_id).card
    for field, old in CARDS[task_id].items():
        new = getattr(card, field)
        new = {k: list(v) for k, v in new.items()} if field == "hud_enums" else new
        new = dict(new) if field == "glyphs" else list(new) if isinstance(new, tuple) else new
        assert new == old, f"{task_id}: card.{field} changed"


def test_versus__agent_in_seat_1_meets_an_opening_move_and_reads_its_own_view():
    game = glyphjax.make("classics/connectfour-2p")
    env = versus(game, c4.ai_policy, seat=1)
    assert env.card.id == "classics/connectfour-2p@seat1" and env.card.num_players == 1
    assert env.card.max_steps == (game.card.max_steps - 1) // 2
    s = env.reset(glyphjax.reset_key(0))
    board = np.asarray(s.game.board)
    assert (board == 1).sum() == 1 and (board == 2).sum() == 0  # the opponent (seat 0) opened
    text = glyphjax.render_text(env.card, env.render(s))
    assert text.message == "The opponent dropped a disc."
    assert "◎" in text.grid and "◍" not in text.grid  # its disc is the opponent's in seat 1's view
    s2, tr = env.step(glyphjax.step_key(0, 0), s, 3)
    board2 = np.asarray(s2.game.board)
    assert board2[5, 3] == 2 or (board[5, 3] == 1 and board2[4, 3] == 2)  # our disc is seat 1's
    assert (board2 == 1).sum() == 2 and tr.reward.shape == ()


def test_versus__reward_is_the_agent_seats_over_both_moves():
    game = glyphjax.make("classics/connectfour-2p")
    b = np.zeros((6, 7), np.int32)
    b[5, 0:3] = 2; b[4, 0:3] = 1  # seat 1 (the opponent) wins at (5, 3) whatever seat 0 plays
    for seat, want in ((0, -1.0), (1, 1.0)):
        env = versus(game, c4.ai_policy, seat=seat)
        s = env.reset(glyphjax.reset_key(0))
        g = s.game.replace(board=jnp.asarray(b), mover=jnp.int32(0))
        s = s.replace(game=g)
        if seat == 0:  # we play column 6, the AI (seat 1) connects four
            s, tr = env.step(glyphjax.step_key(0, 0), s, 6)
        else:  # the opponent (seat 0) moves first: it must block with the win-else-block rule
            s, tr = env.step(glyphjax.step_key(0, 0), s, 6)  # not our turn: ignored, seat 0 moves
            assert int(s.game.board[5, 3]) == 1 and float(tr.reward) == 0.0
            g = s.game.replace(board=jnp.asarray(b).at[4, 6].set(1), mover=jnp.int32(1))
            s, tr = env.step(glyphjax.step_key(0, 1), s.replace(game=g), 3)
        assert float(tr.reward) == want and bool(tr.terminated), seat


def test_versus__refuses_bad_setups_with_a_message():
    game = glyphjax.make("classics/connectfour-2p")
    with pytest.raises(ValueError, match="needs a multi-seat game"):
        versus(glyphjax.make("classics/snake-easy"), c4.ai_policy)
    with pytest.raises(ValueError, match="seat 2 is not a seat"):
        versus(game, c4.ai_policy, seat=2)
    with pytest.raises(ValueError, match="build the game with max_steps >= 85"):
        versus(c4.ConnectFourGame("t/short", 84), c4.ai_policy, seat=1, card=c4.classic_card("t/x", 42))
    with pytest.raises(ValueError, match="must be single-player with the actions"):
        versus(game, c4.ai_policy, card=glyphjax.make("classics/nim-easy").card)
