"""Rollouts by seat on the registered two-seat games (Connect Four, Nim, Tron): whatever a text
policy answers, turns follow `to_play`, each turn shows its seat's own view, per-seat returns are
zero-sum and replaying the joint actions reproduces every reward."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import glyphjax
from glyphjax.core.rollout import random_legal_policy, reset_key, step_key
from glyphjax.render.text import render_text
from rl.policies.base import Completion
from rl.rollout import ArrayPlayer, run_rollouts

GAMES = ["classics/connectfour-2p", "classics/nim-easy-2p", "classics/tron-2p"]
SEEDS = list(range(6))
MAX_TURNS = 24


class CyclingPolicy:
    """Fake text policy: answers action names in a fixed cycle (some of them illegal), and now and
    then no tag at all."""

    name = "cycling"

    def __init__(self, actions, garbage_every: int = 0):
        self.actions, self.garbage_every, self.n = actions, garbage_every, 0

    def complete(self, conversations, sampling):
        out = []
        for _ in conversations:
            self.n += 1
            text = ("no idea" if self.garbage_every and self.n % self.garbage_every == 0
                    else f"<action>{self.actions[(self.n * 5) % len(self.actions)]}</action>")
            out.append(Completion(text, [1, 2], [self.n % 97], [-0.3], "stop"))
        return out


def seats_to_move(env, seed: int, actions) -> list[int]:
    step, to_play = jax.jit(env.step), jax.jit(env.to_play)
    state, movers = env.reset(reset_key(seed)), []
    for t, a in enumerate(actions):
        movers.append(int(to_play(state)))
        state, _ = step(step_key(seed, t), state, np.int32(a))
    return movers


def check_seat_records(env, recs, seats=(0, 1)) -> None:
    """Every invariant of per-seat records, against an independent replay of the joint actions."""
    by_seed: dict[int, list] = {}
    for r in recs:
        by_seed.setdefault(r.seed, []).append(r)
    for seed, group in by_seed.items():
        where = f"{env.card.id} seed {seed}"
        assert [r.seat for r in group] == list(seats), where
        actions = group[0].joint_actions
        assert all(r.joint_actions == actions and r.returns == group[0].returns for r in group), where
        movers = seats_to_move(env, seed, actions)
        mine = sorted((t.t, t.seat) for r in group for t in r.turns)
        assert mine == [(t, s) for t, s in enumerate(movers) if s in seats], where
        for r in group:
            frames, trans = glyphjax.replay(env, seed, actions, seat=r.seat)
            rewards = np.asarray(trans.reward)
            assert r.returns == pytest.approx(list(rewards.sum(0)), abs=1e-6), where
            assert sum(r.returns) == pytest.approx(0.0, abs=1e-6), where  # zero-sum cards
            assert r.episode_return == pytest.approx(r.returns[r.seat]), where
            for turn in r.turns:
                frame = jax.tree.map(lambda x: x[turn.t], frames)
                assert render_text(env.card, frame).render() == turn.observation, f"{where} seat {r.seat} t {turn.t}"


@pytest.mark.parametrize("task", GAMES)
def test_self_play__records_of_both_seats_match_replay(task):
    env = glyphjax.make(task)
    recs = run_rollouts(CyclingPolicy(env.card.actions), [(task, s) for s in SEEDS], max_turns=MAX_TURNS)
    check_seat_records(env, recs)


@pytest.mark.parametrize("task", GAMES)
def test_text_policy_against_random_legal__only_seat_1_recorded_and_replayed(task):
    env = glyphjax.make(task)
    opp = ArrayPlayer(random_legal_policy(env), "random")
    recs = run_rollouts(CyclingPolicy(env.card.actions), [(task, s) for s in SEEDS], opponents={0: opp},
                        max_turns=MAX_TURNS)
    check_seat_records(env, recs, seats=(1,))
    assert all(r.seat_policies == ["random", "cycling"] for r in recs)


def test_forfeit_on_first_move__the_waiting_seat_gets_its_win_without_a_turn():
    task = "classics/connectfour-2p"  # card.illegal == "forfeit": no action loses at once
    env = glyphjax.make(task)
    recs = run_rollouts(CyclingPolicy(env.card.actions, garbage_every=1), [(task, 0)])
    assert [(r.seat, r.length, r.episode_return) for r in recs] == [(0, 1, -1.0), (1, 0, 1.0)]
    assert recs[0].terminated and recs[0].turns[0].parse_status == "no_tag"
    check_seat_records(env, recs)
