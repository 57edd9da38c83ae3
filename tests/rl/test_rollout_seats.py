"""Rollouts by seat: self-play, a text policy against an array player or another text policy, on
the test-only two-seat game with hidden secrets (tests/rl/seat_games.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import jax
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from seat_games import TASK_ID, registered_secret_ttt  # noqa: E402

import glyphjax  # noqa: E402
from glyphjax.core.rollout import random_legal_policy, reset_key, step_key  # noqa: E402
from glyphjax.harness.prompt import HarnessConfig  # noqa: E402
from rl.policies.base import Completion, SamplingParams  # noqa: E402
from rl.rollout import ArrayPlayer, run_rollouts  # noqa: E402
from rl.trajectory import read_episodes  # noqa: E402

SEEDS = list(range(8))


@pytest.fixture(scope="module")
def game():
    with registered_secret_ttt() as env:
        yield env


def current_observation(conversation) -> str:
    user = conversation[-1]["content"]
    return user[user.rindex("[HUD]"):]


def board_of(observation: str) -> list[str]:
    return list(observation.split("[Grid]\n", 1)[1][:11].replace("\n", ""))


class BoardPolicy:
    """Fake text policy: reads the board of the current observation and answers with
    `choose(board, turn_index)`; keeps every conversation it was sent."""

    def __init__(self, name: str, choose):
        self.name, self.choose, self.calls = name, choose, []

    def complete(self, conversations, sampling):
        out = []
        for conv in conversations:
            self.calls.append(conv)
            cell = self.choose(board_of(current_observation(conv)), len(self.calls))
            out.append(Completion(f"<action>CELL_{cell}</action>", [1, len(self.calls)], [7, cell], [-0.5, -0.25], "stop"))
        return out


def first_free(board, n):
    return board.index("·")


def sometimes_taken(board, n):
    """Every third answer names an occupied cell (when one exists): the same seat must move again."""
    taken = [k for k, c in enumerate(board) if c != "·"]
    return taken[0] if taken and n % 3 == 0 else max(k for k, c in enumerate(board) if c == "·")


def secrets(env, seed: int) -> list[int]:
    return [int(x) for x in env.reset(reset_key(seed)).secret]


def replay_seats(env, seed: int, actions) -> tuple[list[int], np.ndarray]:
    """Seat to move before each step and the per-seat rewards, stepping the env directly."""
    state = env.reset(reset_key(seed))
    movers, rewards = [], []
    for t, a in enumerate(actions):
        movers.append(int(env.to_play(state)))
        state, tr = env.step(step_key(seed, t), state, a)
        rewards.append(np.asarray(tr.reward))
    return movers, np.array(rewards)


def test_self_play__each_seat_is_prompted_with_only_its_own_view(game):
    pol = BoardPolicy("fake", first_free)
    recs = run_rollouts(pol, [(TASK_ID, s) for s in SEEDS], HarnessConfig(history=3))
    assert [(r.seed, r.seat) for r in recs] == [(s, k) for s in SEEDS for k in (0, 1)]
    hidden_checked = 0
    for rec in recs:
        own, other = secrets(game, rec.seed)[rec.seat], secrets(game, rec.seed)[1 - rec.seat]
        mark = "XO"[rec.seat]
        assert f"You play seat {rec.seat} of 2" in rec.system_prompt
        for turn in rec.turns:
            assert f"You: {mark}" in turn.observation and f"Secret: {own}" in turn.observation
    for conv in pol.calls:
        seat = int(re.search(r"You play seat (\d) of 2", conv[0]["content"]).group(1))
        seed = next(r.seed for r in recs if r.seat == seat and any(
            t.observation in conv[-1]["content"] for t in r.turns))
        own, other = secrets(game, seed)[seat], secrets(game, seed)[1 - seat]
        text = "".join(m["content"] for m in conv)
        shown = re.findall(r"You: ([XO])\s+Secret: (\d)", text)  # this view and every history view
        assert shown and all(m == "XO"[seat] and int(d) == own for m, d in shown), (seed, seat)
        if own != other:
            assert f"Secret: {other}" not in text, (seed, seat)
            hidden_checked += 1
    assert hidden_checked > 10  # the seeds give most episodes two different secrets


def test_self_play__turns_follow_to_play_and_records_replay(game, tmp_path):
    out = tmp_path / "selfplay.jsonl"
    recs = run_rollouts(BoardPolicy("fake", sometimes_taken), [(TASK_ID, s) for s in SEEDS], out_path=str(out))
    assert sorted(read_episodes(out), key=lambda r: (r.seed, r.seat)) == recs
    for seed in SEEDS:
        pair = [r for r in recs if r.seed == seed]
        assert [r.seat for r in pair] == [0, 1] and pair[0].joint_actions == pair[1].joint_actions
        actions = pair[0].replay_actions
        movers, rewards = replay_seats(game, seed, actions)
        assert sorted((t.t, t.seat) for r in pair for t in r.turns) == list(enumerate(movers)), seed
        _, trans = glyphjax.replay(game, seed, actions)
        np.testing.assert_array_equal(np.asarray(trans.reward), rewards)
        for r in pair:
            assert r.returns == pytest.approx(list(rewards.sum(0))) and r.episode_return == r.returns[r.seat]
            assert r.length == len(r.turns) and all(t.seat == r.seat for t in r.turns)
            steps = [t.t for t in r.turns] + [len(actions)]
            for turn, nxt in zip(r.turns, steps[1:]):  # a turn earns from its move until the seat's next
                assert turn.reward == pytest.approx(rewards[turn.t:nxt, r.seat].sum()), (seed, r.seat, turn.t)
            assert r.episode_return == pytest.approx(sum(t.reward for t in r.turns))
        assert sum(pair[0].returns) == 0.0 and pair[0].terminated
    # the illegal-move answers really made a seat move twice in a row somewhere
    assert any(a.seat == b.seat for r in recs for a, b in zip(r.turns, r.turns[1:]) if b.t == a.t + 1)


def test_text_policy_against_array_player__only_the_text_seat_is_recorded(game):
    pol = BoardPolicy("fake", lambda board, n: max(k for k, c in enumerate(board) if c == "·"))
    opp = ArrayPlayer(game.first_free_cell, "first-free")
    recs = run_rollouts(pol, [(TASK_ID, s) for s in SEEDS], opponents={1: opp})
    assert [(r.seed, r.seat) for r in recs] == [(s, 0) for s in SEEDS]
    for rec in recs:
        assert rec.seat_policies == ["fake", "first-free"]
        movers, _ = replay_seats(game, rec.seed, rec.joint_actions)
        board = [0] * 9
        for t, (seat, a) in enumerate(zip(movers, rec.joint_actions)):
            if seat == 1:
                assert a == board.index(0), (rec.seed, t)
            board[a] = seat + 1
        assert [t.t for t in rec.turns] == [t for t, s in enumerate(movers) if s == 0]
    assert len(pol.calls) == sum(r.length for r in recs)  # the array seat never reached the policy


def test_text_policy_against_random_legal_player__every_opponent_move_is_legal(game):
    recs = run_rollouts(BoardPolicy("fake", first_free), [(TASK_ID, s) for s in range(16)],
                        opponents={0: ArrayPlayer(random_legal_policy(game), "random")})
    assert all(r.seat == 1 for r in recs)
    opening = {r.joint_actions[0] for r in recs}
    assert len(opening) > 3  # random, not a fixed move
    for rec in recs:
        movers, _ = replay_seats(game, rec.seed, rec.joint_actions)
        board = [0] * 9
        for seat, a in zip(movers, rec.joint_actions):
            if seat == 0:
                assert board[a] == 0, rec.seed
            board[a] = board[a] or seat + 1


def test_two_text_policies__each_gets_only_its_seat_and_its_own_record(game):
    a = BoardPolicy("alpha", first_free)
    b = BoardPolicy("beta", lambda board, n: max(k for k, c in enumerate(board) if c == "·"))
    recs = run_rollouts(a, [(TASK_ID, s) for s in SEEDS], opponents={1: b})
    assert [(r.seat, r.policy) for r in recs] == [(0, "alpha"), (1, "beta")] * len(SEEDS)
    assert all("You play seat 0" in c[0]["content"] for c in a.calls)
    assert all("You play seat 1" in c[0]["content"] for c in b.calls)
    assert len(a.calls) == sum(r.length for r in recs if r.seat == 0)
    assert len(b.calls) == sum(r.length for r in recs if r.seat == 1)
    # tokens are the policy's own: beta's completion ids carry its answers
    for r in recs:
        assert [t.completion_ids[1] for t in r.turns] == [t.action for t in r.turns]


def test_opponents__wrong_seats_raise_naming_the_task(game):
    pol = BoardPolicy("fake", first_free)
    with pytest.raises(ValueError, match=r"testseats/secret-ttt: opponent seats \[2\] do not exist"):
        run_rollouts(pol, [(TASK_ID, 0)], opponents={2: pol})
    with pytest.raises(ValueError, match="dummy/arrow-1 is a single-agent task"):
        run_rollouts(pol, [("dummy/arrow-1", 0)], opponents={1: pol})
    with pytest.raises(ValueError, match="2 seatings for 1 episodes"):
        run_rollouts(pol, [(TASK_ID, 0)], opponents=[{}, {}])
    with pytest.raises(TypeError, match=r"seats \[1\] is neither a text Policy .* ArrayPlayer\(fn, name\)"):
        run_rollouts(pol, [(TASK_ID, 0)], opponents={1: game.first_free_cell})


def test_local_tiny_model__self_play_records_its_own_tokens_per_seat(game, tiny_ckpt):
    from rl.policies.local import LocalPolicy
    pol = LocalPolicy.from_pretrained(tiny_ckpt, batch_buckets=(4,), min_prompt_bucket=64, min_new_tokens_bucket=8)
    recs = run_rollouts(pol, [(TASK_ID, 0), (TASK_ID, 1)], HarnessConfig(name="compact"),
                        SamplingParams(max_new_tokens=8, seed=3), max_turns=4)
    assert [(r.seed, r.seat) for r in recs] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    for seed in (0, 1):
        pair = recs[2 * seed: 2 * seed + 2]
        movers, _ = replay_seats(game, seed, pair[0].joint_actions)
        assert len(movers) == 4 and sorted((t.t, t.seat) for r in pair for t in r.turns) == list(enumerate(movers))
        for r in pair:
            for t in r.turns:
                prompt = pol.tokenizer.hf.decode(t.prompt_ids)
                assert len(t.completion_ids) == len(t.logprobs) > 0 and t.seat == r.seat
                assert f"You play seat {r.seat} of 2" in prompt and f"Secret: {secrets(game, seed)[r.seat]}" in prompt
        assert pair[0].returns == pair[1].returns and sum(pair[0].returns) == 0.0


def test_replay_viewer__rebuilds_each_seats_own_view_from_joint_actions(game, tmp_path):
    from eval.replay import check_episode, load_episodes, page_data
    out = tmp_path / "selfplay.jsonl"
    run_rollouts(BoardPolicy("fake", sometimes_taken), [(TASK_ID, s) for s in SEEDS[:4]], out_path=str(out))
    eps = load_episodes(out)
    assert sorted((e["seed"], e["seat"]) for e in eps) == [(s, k) for s in SEEDS[:4] for k in (0, 1)]
    for ep in eps:
        rebuilt, bad, error = check_episode(ep)
        assert error is None and bad == [], (ep["seed"], ep["seat"], bad)
        assert len(rebuilt) == len(ep["joint_actions"]) + 1
    view = page_data([e for e in eps if e["seat"] == 1][:1])[0]
    own = secrets(game, view["seed"])[1]
    assert view["players"] == 2 and view["seat"] == 1
    assert all(f"Secret: {own}" in f["hud"] and "You: O" in f["hud"] for f in view["turns"] + [view["final"]])
    # a seat-0 rebuild of a seat-1 line would not match: the check really compares views
    ep = dict(next(e for e in eps if e["seat"] == 1 and secrets(game, e["seed"])[0] != secrets(game, e["seed"])[1]))
    ep["seat"] = 0
    assert check_episode(ep)[1] == list(range(len(ep["turns"])))


def test_evaluate_llm__summary_has_each_text_seats_mean_return(game):
    from rl.llm_eval import evaluate_llm
    opp = ArrayPlayer(game.first_free_cell, "first-free")
    pol = BoardPolicy("fake", lambda board, n: max(k for k, c in enumerate(board) if c == "·"))
    result = evaluate_llm(pol, [TASK_ID], SEEDS, opponents={0: opp})
    s = result.summary[TASK_ID]
    replayed = [replay_seats(game, r.seed, r.joint_actions)[1][:, 1].sum() for r in result.records]
    assert s["episodes"] == len(SEEDS) and "mean_return_seat_0" not in s
    assert s["mean_return_seat_1"] == pytest.approx(np.mean(replayed)) == pytest.approx(s["mean_return"])


class MemoPolicy(BoardPolicy):
    """BoardPolicy that answers memory-update calls with a note naming its seat and its secret."""

    def complete(self, conversations, sampling):
        moves = [c for c in conversations if "<memory>" not in c[-1]["content"]]
        replies = iter(super().complete(moves, sampling))
        out = []
        for conv in conversations:
            if conv in moves:
                out.append(next(replies))
                continue
            seat = re.search(r"You play seat (\d)", conv[0]["content"]).group(1)
            secret = re.findall(r"Secret: (\d)", conv[1]["content"])[-1]
            out.append(Completion(f"<memory>seat {seat} knows {secret}</memory>", [1], [2], [-0.1], "stop"))
        return out


def test_memory_harness__each_seat_keeps_its_own_notes(game):
    recs = run_rollouts(MemoPolicy("memo", first_free), [(TASK_ID, s) for s in SEEDS],
                        HarnessConfig(name="memory", memory=True))
    for r in recs:
        own = secrets(game, r.seed)[r.seat]
        assert r.turns[0].memory == ""
        assert [t.memory for t in r.turns[1:]] == [f"seat {r.seat} knows {own}"] * (r.length - 1), (r.seed, r.seat)
        assert all(t.memory_update is not None for t in r.turns[:-1])


def test_trajectory__a_single_agent_line_without_seat_fields_still_reads(tmp_path):
    from rl.trajectory import EpisodeRecord
    recs = run_rollouts(BoardPolicy("fake", first_free), [("dummy/arrow-1", 4)])
    d = recs[0].to_dict()
    assert d["seat"] == 0 and d["joint_actions"] is None and d["turns"][0]["seat"] == 0
    for key in ("seat", "joint_actions", "returns", "seat_policies"):
        d.pop(key)
    for turn in d["turns"]:
        turn.pop("seat")
    old = EpisodeRecord.from_dict(d)
    assert old == recs[0] and old.replay_actions == old.actions
