"""verifiers (0.4, `verifiers.v1`) environment over any glyphjax task set, with our harness and
reward, so prime-rl/verifiers users train on our tasks unchanged.

    from glyphjax.adapters.verifiers_env import load_environment
    env = load_environment(tasks=["classics/*"], seeds=(0, 25), harness="basic")

The taskset yields one task per (task id, seed): the system prompt and the first turn message
are exactly what `rl.rollout.run_rollouts` shows (`glyphjax.harness`). The env's `run()` steps
the game host-side as the run's user: each reply is parsed (`<action>NAME</action>`, the last
tag wins; an unparseable or unknown action consumes the turn as a no-op and is counted), the next
observation comes back as the next user turn, and a finished episode ends the exchange. The
reward is the episodic return (`episode_return`); length, parse failures and success are
metrics. The verifiers conversation itself carries the history (each turn's message is the new
observation). verifiers resolves a taskset id to an importable module, so importing this module also
registers it under the taskset id `glyphjax-tasks` (module `glyphjax_tasks`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import verifiers.v1 as vf

from glyphjax.core.packed import EpisodeStepper
from glyphjax.core.registry import make, task_ids
from glyphjax.harness.parse import parse_action
from glyphjax.harness.prompt import HarnessConfig, system_prompt, turn_message
from glyphjax.render.text import observation_text

TASKSET_ID = "glyphjax-tasks"


class GlyphJaxTasksetConfig(vf.TasksetConfig):
    """Which episodes load: task ids or glob patterns over the registry, a seed range
    [seed_start, seed_start + num_seeds) per task, and the glyphjax harness."""

    id: str = TASKSET_ID
    tasks: list[str] = ["classics/snake-easy"]
    seed_start: int = 0
    num_seeds: int = 25
    harness: str = "basic"


class GlyphJaxData(vf.TaskData):
    info: dict
    """The task id and episode seed the env replays the episode from."""


class GlyphJaxTask(vf.Task[GlyphJaxData, vf.State, vf.TaskConfig]):
    pass


def _harness(config: GlyphJaxTasksetConfig) -> HarnessConfig:
    if config.harness == "memory":
        raise ValueError("the verifiers adapter offers the 'basic' and 'compact' harnesses; the 'memory' "
                         "harness needs separate model calls that a verifiers run does not make")
    return HarnessConfig(name=config.harness)


class GlyphJaxTaskset(vf.Taskset[GlyphJaxTask, GlyphJaxTasksetConfig]):
    def load(self) -> Iterator[GlyphJaxTask]:
        harness = _harness(self.config)
        for task_id in task_ids(self.config.tasks):
            env = make(task_id)
            if env.card.num_players != 1:
                raise ValueError(f"{task_id} has {env.card.num_players} seats; the verifiers adapter plays "
                                 f"single-seat tasks (leave multi-seat ids out of `tasks`)")
            system = system_prompt(env.card, harness)
            for seed in range(self.config.seed_start, self.config.seed_start + self.config.num_seeds):
                first = observation_text(env.card, EpisodeStepper(env, seed).frame)
                yield GlyphJaxTask(GlyphJaxData(
                    name=f"{task_id}#{seed}", prompt=turn_message(first), system_prompt=system,
                    info={"task": task_id, "seed": seed, "harness": harness.name}),
                    self.config.task)


class GlyphJaxEnvConfig(vf.EnvConfig):
    player: vf.AgentConfig = vf.AgentConfig(harness={"id": "null"})


class GlyphJaxEnv(vf.Env[GlyphJaxEnvConfig]):
    """Plays one glyphjax episode per task: the game engine is the run's user."""

    async def run(self, task: GlyphJaxTask, agents: vf.Agents) -> None:
        info = task.data.info
        env = make(info["task"])
        stepper = EpisodeStepper(env, info["seed"])
        episode_return, length, failures, terminated = 0.0, 0, 0, False
        async with agents.player.interaction(task) as interaction:
            segment = await interaction.turn()
            while not segment.terminated:
                parsed = parse_action(segment.last_reply, env.card.actions)
                failures += not parsed.ok
                out = stepper.step(parsed.action)
                episode_return += float(out.reward)
                length += 1
                terminated = out.terminated
                if out.done:
                    break
                segment = await interaction.turn(turn_message(observation_text(env.card, out.frame)))
        trace = interaction.trace
        trace.record_reward("episode_return", episode_return, 1.0)
        trace.record_metrics({"length": length, "parse_failures": failures, "terminated": float(terminated)})
        trace.info["glyphjax"] = {"task": info["task"], "seed": info["seed"], "done": stepper.done}


def load_environment(tasks: str | list[str] = "classics/snake-easy", seeds: tuple[int, int] = (0, 25),
                     harness: str = "basic", **env_config) -> GlyphJaxEnv:
    """A verifiers env over `tasks` (ids or glob patterns) x seeds in [seeds[0], seeds[1])."""
    start, stop = seeds
    if stop <= start:
        raise ValueError(f"seeds={seeds!r} is an empty range; give (start, stop) with stop > start")
    taskset = GlyphJaxTasksetConfig(tasks=[tasks] if isinstance(tasks, str) else list(tasks),
                                    seed_start=start, num_seeds=stop - start, harness=harness)
    return GlyphJaxEnv(GlyphJaxEnvConfig(taskset=taskset, **env_config))


__all__ = ["GlyphJaxEnv", "GlyphJaxTaskset", "load_environment"]

sys.modules.setdefault(TASKSET_ID.replace("-", "_"), sys.modules[__name__])
