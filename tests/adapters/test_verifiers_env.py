"""The verifiers environment plays exactly our episodes: scripted replies through its `run()`
give the same user turns, actions, return and termination as `rl.rollout.run_rollouts` with a
policy that sends the same replies."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
import verifiers.v1 as vf

from glyphjax.adapters.verifiers_env import TASKSET_ID, GlyphJaxEnv, GlyphJaxTaskset, load_environment
from rl.policies.base import Completion
from rl.rollout import run_rollouts

# valid moves, an unknown action, no tag, lower case, several tags (the last one counts)
REPLIES = ["<action>UP</action>", "<action>JUMP</action>", "hmm", "<action>left</action>",
           "<action>DOWN</action> no, <action>RIGHT</action>", "<action>DOWN</action>"]


def reply(turn: int) -> str:
    return REPLIES[turn % len(REPLIES)]


class ScriptedInteraction:
    """Stands in for a verifiers model run: answers turn t with `reply(t)` and records the user
    turns it was sent; the trace keeps what the env records."""

    def __init__(self, task):
        self.task, self.user_turns, self.turns = task, [task.data.prompt], 0
        self.trace = type("FakeTrace", (), {})()
        self.trace.rewards, self.trace.metrics, self.trace.info = {}, {}, {}
        self.trace.record_reward = lambda name, value, weight=1.0: self.trace.rewards.__setitem__(name, value * weight)
        self.trace.record_metrics = self.trace.metrics.update

    async def turn(self, message=None):
        if message is not None:
            self.user_turns.append(message)
        self.turns += 1
        return vf.Segment(messages=[vf.AssistantMessage(content=reply(self.turns - 1))])


class ScriptedAgent:
    def __init__(self):
        self.interactions = []

    @contextlib.asynccontextmanager
    async def interaction(self, task):
        self.interactions.append(ScriptedInteraction(task))
        yield self.interactions[-1]


class ScriptedPolicy:
    """Our rollout engine's side of the same script: turn t of the episode gets `reply(t)`."""

    name = "scripted-replies"
    max_model_len = None

    def __init__(self):
        self.calls = 0

    def complete(self, conversations, sampling):
        out = []
        for _ in conversations:
            out.append(Completion(reply(self.calls), [1], [2], [-0.5], "stop"))
            self.calls += 1
        return out


@pytest.fixture(scope="module")
def env() -> GlyphJaxEnv:
    return load_environment(tasks=["classics/snake-easy", "dummy/arrow-4"], seeds=(3, 5))


def test_verifiers_env__is_a_real_verifiers_env_over_tasks_x_seeds(env):
    assert isinstance(env, vf.Env) and isinstance(env.taskset, GlyphJaxTaskset)
    assert vf.load_environment(env.config).taskset.config.tasks == env.taskset.config.tasks
    names = [t.data.name for t in env.taskset]
    assert names == ["classics/snake-easy#3", "classics/snake-easy#4", "dummy/arrow-4#3", "dummy/arrow-4#4"]
    assert env.config.taskset.id == TASKSET_ID


@pytest.mark.parametrize("name", ["classics/snake-easy#4", "dummy/arrow-4#3"])
def test_verifiers_episode__equals_our_rollout_on_the_same_replies(env, name):
    task = next(t for t in env.taskset if t.data.name == name)
    agent = ScriptedAgent()
    agents = type("FakeAgents", (), {"player": agent})()
    asyncio.run(env.run(task, agents))
    played = agent.interactions[0]
    [record] = run_rollouts(ScriptedPolicy(), [(task.data.info["task"], task.data.info["seed"])])
    assert task.data.system_prompt == record.system_prompt
    assert played.user_turns == [t.observation for t in record.turns]
    assert played.trace.rewards == {"episode_return": pytest.approx(record.episode_return, abs=0)}
    assert played.trace.metrics == {"length": record.length, "parse_failures": record.parse_failures,
                                    "terminated": float(record.terminated)}
    assert record.parse_failures >= 2 and (record.terminated or record.truncated)


def test_verifiers_taskset__rejects_the_memory_harness_and_empty_seed_ranges():
    with pytest.raises(ValueError, match="empty range"):
        load_environment(seeds=(5, 5))
    with pytest.raises(ValueError, match="'memory'"):
        list(load_environment(harness="memory", seeds=(0, 1)).taskset)
