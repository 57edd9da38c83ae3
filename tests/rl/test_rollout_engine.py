"""The batched rollout engine against the in-process fake OpenAI server (and a Python fake policy).

Fast: dummy/arrow tasks (1 and 4 turns) and a few turns of classics/snake-easy for a mixed batch.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_openai import FakeOpenAIServer, Fault, encode, template  # noqa: E402

import glyphjax  # noqa: E402
from glyphjax.harness.prompt import MEMORY_UPDATE_INSTRUCTION, HarnessConfig, turn_message  # noqa: E402
from glyphjax.render.text import render_text  # noqa: E402
from rl.policies.base import Completion, SamplingParams  # noqa: E402
from rl.policies.vllm import PolicyServerError, VLLMPolicy  # noqa: E402
from rl.rollout import FINISH_CONTEXT, run_rollouts  # noqa: E402
from rl.trajectory import read_episodes  # noqa: E402

ARROW_NAMES = {"↑": "UP", "↓": "DOWN", "←": "LEFT", "→": "RIGHT"}
NO_SLEEP = dict(sleep=lambda s: None)


def current_observation(body: dict) -> str:
    """The observation of this turn: the text after the last '[Legend]' of the user message."""
    user = [m for m in body["messages"] if m["role"] == "user"][0]["content"]
    return user[user.rindex("[Legend]"):]


def current_step(body: dict) -> int:
    return int(re.search(r"Step: (\d+) /", current_observation(body)).group(1))


def arrow_oracle(body: dict, n: int) -> str:
    grid = current_observation(body).split("[Grid]\n", 1)[1]
    arrow = next((c for c in grid if c in ARROW_NAMES), None)
    if arrow is None:  # not an arrow task: any valid action
        return "I will wait. <action>UP</action>"
    return f"The arrow is {arrow}. <action>{ARROW_NAMES[arrow].lower()}</action>"


def check_against_replay(rec, where: str) -> None:
    """Record invariants + glyphjax.replay of the recorded actions reproduces rewards and observations."""
    assert len(rec.turns) == rec.length, where
    assert [t.t for t in rec.turns] == list(range(rec.length)), where
    assert rec.episode_return == pytest.approx(sum(t.reward for t in rec.turns), abs=0), where
    env = glyphjax.make(rec.task)
    frames, trans = glyphjax.replay(env, rec.seed, rec.actions)
    np.testing.assert_array_equal(np.asarray(trans.reward, np.float32),
                                  np.asarray(rec.rewards, np.float32), err_msg=where)
    for t, turn in enumerate(rec.turns):
        frame = glyphjax.Frame(grid=frames.grid[t], hud=frames.hud[t], event=frames.event[t])
        assert render_text(env.card, frame).render() == turn.observation, f"{where} turn {t}"
        assert turn.terminated == bool(trans.terminated[t]) and turn.truncated == bool(trans.truncated[t]), \
            f"{where} turn {t}"
    assert rec.parse_failures == sum(t.parse_status != "ok" for t in rec.turns), where


def test_rollout__mixed_tasks_complete_and_records_replay(tmp_path):
    episodes = ([("dummy/arrow-4", s) for s in range(5)] + [("dummy/arrow-1", s) for s in (3, 8)]
                + [("classics/snake-easy", s) for s in (1, 2)])
    out = tmp_path / "traj.jsonl"
    with FakeOpenAIServer(arrow_oracle) as srv:
        pol = VLLMPolicy(srv.url, **NO_SLEEP)
        recs = run_rollouts(pol, episodes, HarnessConfig(history=2), SamplingParams(max_new_tokens=64),
                            str(out), max_turns=6)
    assert [(r.task, r.seed) for r in recs] == episodes
    for rec in recs:
        where = f"{rec.task} seed {rec.seed}"
        check_against_replay(rec, where)
        if rec.task.startswith("dummy/arrow"):
            k = int(rec.task[-1])
            assert rec.length == k and rec.terminated and not rec.truncated, where
            assert rec.episode_return == pytest.approx(1.0), f"{where}: the oracle answers every arrow"
        else:
            assert rec.length <= 6 and (rec.terminated or rec.truncated), where
        for turn in rec.turns:
            shown = turn.history_shown
            assert shown == min(2, turn.t), f"{where} turn {turn.t}"
            assert turn.logprobs and len(turn.logprobs) == len(turn.completion_ids), where
        assert rec.prompt_tokens == sum(len(t.prompt_ids) for t in rec.turns), where
        assert rec.completion_tokens == sum(len(t.completion_ids) for t in rec.turns), where
    # the prompt ids are the server's tokenisation of exactly the harness prompt
    rec = recs[0]
    turn = rec.turns[3]
    history = [(p.observation, p.action_name) for p in rec.turns[1:3]]
    conv = [{"role": "system", "content": rec.system_prompt},
            {"role": "user", "content": turn_message(turn.observation, history)}]
    assert turn.prompt_ids == encode(template(conv))
    # the file holds the same episodes, one whole line each
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(episodes) and all(json.loads(line)["task"] for line in lines)
    assert sorted((r.task, r.seed) for r in read_episodes(out)) == sorted(episodes)
    assert {(r.task, r.seed): r for r in read_episodes(out)}[("dummy/arrow-4", 0)] == recs[0]


GARBAGE = {1: "", 2: "No idea, sorry.", 3: "<action>JUMP</action>", 4: "x " * 500}


def test_garbage_outputs__never_break_a_rollout_and_are_counted():
    def garbage(body, n):
        return GARBAGE[current_step(body) + 1]  # turn 1..4 of arrow-4

    with FakeOpenAIServer(garbage) as srv:
        pol = VLLMPolicy(srv.url, **NO_SLEEP)
        recs = run_rollouts(pol, [("dummy/arrow-4", s) for s in range(3)], HarnessConfig(history=1),
                            SamplingParams(max_new_tokens=32))
    for rec in recs:
        where = f"seed {rec.seed}"
        assert rec.length == 4 and rec.terminated, where
        assert [t.parse_status for t in rec.turns] == ["empty", "no_tag", "unknown_action", "truncated"], where
        assert rec.parse_status_counts == {"empty": 1, "no_tag": 1, "unknown_action": 1, "truncated": 1}, where
        assert rec.parse_failures == 4 and rec.truncations == 1, where
        assert rec.actions == [-1] * 4 and rec.episode_return == 0.0, where
        assert len(rec.turns[3].completion_ids) == 32 and rec.turns[3].finish_reason == "length", where
        check_against_replay(rec, where)
        # the failed turn is shown in the next turn's history as a no-op
        assert "Your action: (no action: empty)" in turn_message(rec.turns[1].observation,
                                                                 [(rec.turns[0].observation, "(no action: empty)")])


@pytest.mark.parametrize("fault", ["http500", "garbage", "drop"])
def test_server_fault_mid_run__clear_error_and_only_whole_lines(tmp_path, fault):
    out = tmp_path / "traj.jsonl"

    def fails_after_first_turn(body, n):
        return arrow_oracle(body, n) if current_step(body) == 0 else Fault(fault)

    episodes = [("dummy/arrow-1", s) for s in range(3)] + [("dummy/arrow-4", s) for s in range(3)]
    with FakeOpenAIServer(fails_after_first_turn) as srv:
        pol = VLLMPolicy(srv.url, retries=2, **NO_SLEEP)
        with pytest.raises(PolicyServerError) as err:
            run_rollouts(pol, episodes, sampling=SamplingParams(max_new_tokens=64), out_path=str(out))
    assert srv.url in str(err.value) and "3 attempts" in str(err.value)
    raw = out.read_bytes()
    assert raw.endswith(b"\n"), f"{fault}: half-written last line"
    recs = [json.loads(line) for line in raw.decode().splitlines()]
    assert sorted((r["task"], r["seed"]) for r in recs) == [("dummy/arrow-1", s) for s in range(3)], fault
    assert len(list(read_episodes(out))) == 3


def test_refused_connection_mid_run__clear_error_and_whole_lines(tmp_path):
    out = tmp_path / "traj.jsonl"
    state = {}

    def stop_after_first_turn(body, n):
        if current_step(body) == 1 and "stopped" not in state:
            state["stopped"] = True
            state["srv"]._httpd.shutdown()  # closes the listening loop: later connections are refused
            state["srv"]._httpd.server_close()
            return Fault("drop")
        return arrow_oracle(body, n)

    srv = FakeOpenAIServer(stop_after_first_turn)
    state["srv"] = srv
    srv._thread.start()
    pol = VLLMPolicy(srv.url, retries=1, concurrency=1, **NO_SLEEP)
    with pytest.raises(PolicyServerError, match="cannot connect|connection failed"):
        run_rollouts(pol, [("dummy/arrow-1", 0), ("dummy/arrow-4", 0)],
                     sampling=SamplingParams(max_new_tokens=64), out_path=str(out))
    assert [r.task for r in read_episodes(out)] == ["dummy/arrow-1"]


def test_context_guard__drops_oldest_history_first_and_counts_it():
    max_new = 40
    with FakeOpenAIServer(arrow_oracle) as srv:  # unlimited: learn the prompt sizes
        (free,) = run_rollouts(VLLMPolicy(srv.url, **NO_SLEEP), [("dummy/arrow-4", 5)],
                               HarnessConfig(history=3), SamplingParams(max_new_tokens=max_new))
    max_len = len(free.turns[1].prompt_ids) + max_new  # turn 1 with its one history pair just fits
    with FakeOpenAIServer(arrow_oracle, max_model_len=max_len) as srv:
        pol = VLLMPolicy(srv.url, **NO_SLEEP)
        (rec,) = run_rollouts(pol, [("dummy/arrow-4", 5)], HarnessConfig(history=3),
                              SamplingParams(max_new_tokens=max_new))
    assert rec.length == 4 and not any(t.finish_reason == FINISH_CONTEXT for t in rec.turns)
    # independent reference: the largest k <= min(3, t) whose templated prompt fits
    names = [t.action_name for t in rec.turns]
    for turn in rec.turns:
        def size(k):
            hist = [(p.observation, names[p.t]) for p in rec.turns[turn.t - k:turn.t]] if k else []
            return len(encode(template([{"role": "system", "content": rec.system_prompt},
                                        {"role": "user", "content": turn_message(turn.observation, hist)}])))
        want = min(3, turn.t)
        expected = max(k for k in range(want + 1) if size(k) + max_new <= max_len)
        assert turn.history_shown == expected, f"turn {turn.t}"
        assert turn.history_dropped == want - expected, f"turn {turn.t}"
        assert len(turn.prompt_ids) + max_new <= max_len, f"turn {turn.t}"
    assert rec.context_drops == sum(t.history_dropped for t in rec.turns) > 0
    assert rec.episode_return == pytest.approx(1.0)


def test_context_overflow__turn_is_a_counted_noop_without_a_call():
    with FakeOpenAIServer(arrow_oracle, max_model_len=300) as srv:  # the system prompt alone is longer
        pol = VLLMPolicy(srv.url, **NO_SLEEP)
        (rec,) = run_rollouts(pol, [("dummy/arrow-4", 1)], sampling=SamplingParams(max_new_tokens=16))
        chat_calls = srv.chat_count
    assert chat_calls == 0
    assert rec.length == 4 and rec.context_overflows == 4 and rec.actions == [-1] * 4
    assert all(t.finish_reason == FINISH_CONTEXT and t.parse_status == "truncated" for t in rec.turns)
    assert rec.parse_failures == 4 and rec.episode_return == 0.0


def test_memory_harness__separate_update_calls_feed_the_next_turn():
    def memory_or_action(body, n):
        if body["messages"][-1]["content"] == MEMORY_UPDATE_INSTRUCTION:
            return f"ok <memory>notes after step {current_step(body)}</memory>"
        return arrow_oracle(body, n)

    harness = HarnessConfig(name="memory", memory=True, history=1)
    with FakeOpenAIServer(memory_or_action) as srv:
        pol = VLLMPolicy(srv.url, **NO_SLEEP)
        recs = run_rollouts(pol, [("dummy/arrow-4", s) for s in range(2)], harness, SamplingParams(max_new_tokens=64))
        memory_calls = [b for p, b in srv.requests if p == "/v1/chat/completions"
                        and b["messages"][-1]["content"] == MEMORY_UPDATE_INSTRUCTION]
    assert len(memory_calls) == 2 * 3  # after every turn but the last of each episode
    for rec in recs:
        assert [t.memory for t in rec.turns] == [""] + [f"notes after step {k}" for k in range(3)]
        assert [t.memory_update is not None for t in rec.turns] == [True, True, True, False]
        assert rec.turns[0].memory_update.text == "ok <memory>notes after step 0</memory>"
        calls = [t for t in rec.turns] + [t.memory_update for t in rec.turns if t.memory_update]
        assert rec.prompt_tokens == sum(len(c.prompt_ids) for c in calls)
        assert rec.episode_return == pytest.approx(1.0)
        check_against_replay(rec, f"seed {rec.seed}")
    # the update call continues the turn's own conversation
    first = memory_calls[0]["messages"]
    assert [m["role"] for m in first] == ["system", "user", "assistant", "user"]
    assert "[Memory]\n(empty)" in first[1]["content"]


class CountingPolicy:
    """Python fake: answers UP, records each call's batch size."""

    name = "counting"

    def __init__(self):
        self.batches = []

    def complete(self, conversations, sampling):
        self.batches.append(len(conversations))
        return [Completion("<action>UP</action>", [1, 2], [3], [-0.5], "stop") for _ in conversations]


def test_one_policy_call_per_turn_for_all_active_episodes():
    pol = CountingPolicy()
    episodes = [("dummy/arrow-1", 0), ("dummy/arrow-4", 0), ("dummy/arrow-4", 1), ("classics/snake-easy", 3)]
    recs = run_rollouts(pol, episodes, max_turns=3)
    lengths = [r.length for r in recs]
    assert lengths[:3] == [1, 3, 3]
    expected = [sum(1 for n in lengths if n > t) for t in range(max(lengths))]
    assert pol.batches == expected
    for r in recs:
        check_against_replay(r, f"{r.task} seed {r.seed}")
    assert recs[1].truncated and not recs[1].terminated  # cut by max_turns before the env ended


def test_rollout__is_a_function_of_task_seed_and_actions():
    a = run_rollouts(CountingPolicy(), [("classics/snake-easy", 7), ("dummy/arrow-4", 2)], max_turns=4)
    b = run_rollouts(CountingPolicy(), [("dummy/arrow-4", 2), ("classics/snake-easy", 7)], max_turns=4)
    assert a[0] == b[1] and a[1] == b[0]


def test_unknown_task__raises_naming_it():
    with pytest.raises(glyphjax.UnknownTaskError, match="dummy/arow-4"):
        run_rollouts(CountingPolicy(), [("dummy/arow-4", 0)])


def test_evaluate_llm__per_task_summary_as_glyphjax_eval_calls_it(tmp_path):
    from rl.llm_eval import evaluate_llm

    def oracle_on_arrow1_garbage_on_arrow4(body, n):
        return arrow_oracle(body, n) if "Step: 0 / 1" in current_observation(body) else "no tag here"

    out = tmp_path / "eval.jsonl"
    with FakeOpenAIServer(oracle_on_arrow1_garbage_on_arrow4) as srv:
        result = evaluate_llm(policy="vllm", task_ids=["dummy/arrow-1", "dummy/arrow-4"], seeds=[10, 11, 12],
                              model="fake-model", server_url=srv.url + "/v1",
                              harness={"name": "basic", "history": 0, "memory": False, "memory_chars": 2000},
                              sampling={"temperature": 1.0, "max_new_tokens": 64}, out_path=str(out))
    a1, a4 = result.summary["dummy/arrow-1"], result.summary["dummy/arrow-4"]
    assert a1["episodes"] == 3 and a1["mean_return"] == pytest.approx(1.0) and a1["parse_failures"] == 0
    assert a4["episodes"] == 3 and a4["mean_return"] == 0.0 and a4["mean_length"] == 4
    assert a4["parse_failures"] == 12 and a4["parse_failure_rate"] == 1.0
    for task, s in result.summary.items():
        eps = [e for e in result.episodes if e["task"] == task]
        assert s["mean_prompt_tokens"] == pytest.approx(
            sum(len(t["prompt_ids"]) for e in eps for t in e["turns"]) / 3), task
    assert sorted(e["seed"] for e in result.episodes if e["task"] == "dummy/arrow-4") == [10, 11, 12]
    assert len(list(read_episodes(out))) == 6 and "return" in result.episodes[0]
