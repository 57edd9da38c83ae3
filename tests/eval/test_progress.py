"""Progress off a terminal: plain-text lines, rate-limited, each complete in itself; LLM tasks
report policy calls, finished episodes and tokens/s."""

from __future__ import annotations

import io
import types

import pytest

from eval.progress import LLMTaskMeter, PlainProgress, report_status, task_progress


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_plain_progress__first_line_then_at_most_one_per_interval_then_done():
    out, clock = io.StringIO(), Clock()
    p = PlainProgress(4, "random", out, interval=30, clock=clock)
    p("a/one")  # run starts: a line at once
    clock.t = 10
    p("a/two")  # 10 s later: too soon
    clock.t = 40
    p("b/three")  # 40 s: a line, with an estimate from 2 finished tasks
    clock.t = 45
    p.status("call 3")  # too soon
    clock.t = 80
    p.status("call 9")
    clock.t = 90
    p("b/four")
    p.close()
    assert out.getvalue().splitlines() == [
        "[random] 0/4 tasks, 0:00:00 elapsed; now a/one",
        "[random] 2/4 tasks, 0:00:40 elapsed, ~0:00:40 left; now b/three",
        "[random] 2/4 tasks, 0:01:20 elapsed, ~0:01:20 left; now b/three: call 9",
        "[random] 4/4 tasks, 0:01:30 elapsed (done)",
    ]


def test_task_progress__not_a_tty_gives_plain_lines_and_routes_status():
    out = io.StringIO()  # isatty() is False, as for a cluster log
    with task_progress(2, "vllm:m", stream=out) as advance:
        advance("dummy/arrow-1")
        report_status("call 1, 0/3 episodes")
        advance("dummy/arrow-4")
    report_status("after the run: shown nowhere")
    text = out.getvalue()
    assert text.splitlines()[0] == "[vllm:m] 0/2 tasks, 0:00:00 elapsed; now dummy/arrow-1"
    assert text.splitlines()[-1].endswith("2/2 tasks, 0:00:00 elapsed (done)")
    assert "\x1b" not in text and "after the run" not in text


def test_llm_meter__tokens_per_second_over_wall_time():
    clock = Clock()
    m = LLMTaskMeter(3, clock=clock)
    c = types.SimpleNamespace(prompt_ids=[0] * 100, completion_ids=[0] * 20)
    clock.t = 2.0
    m.call([c, c], seconds=1.5)
    m.episode(None)
    assert m.text() == "call 1, 1/3 episodes, 20 completion tok/s, 100 prompt tok/s"


def test_evaluate_llm__reports_each_policy_call_and_episode():
    from rl.llm_eval import evaluate_llm
    from rl.policies.base import Completion

    class Oracle:  # answers UP every turn
        name = "oracle"

        def complete(self, convs, sampling):
            return [Completion("<action>UP</action>", [1, 2, 3], [4, 5], [-0.1, -0.2], "stop") for _ in convs]

    calls, episodes = [], []
    res = evaluate_llm(Oracle(), ["dummy/arrow-4"], [1, 2], on_call=lambda cs, s: calls.append(len(cs)),
                       on_episode=lambda r: episodes.append(r.seed))
    assert calls == [2, 2, 2, 2], "one call per turn for both episodes (4 turns)"
    assert sorted(episodes) == [1, 2] and len(res.records) == 2
