"""The batched multi-turn rollout engine for text policies.

`run_rollouts(policy, episodes, harness, sampling)` plays N episodes (any mix of tasks) as one
batch, turn by turn:

1. env states stay batched on device, one batch per task (states of different tasks have
   different shapes); each task has a jit(vmap) step and render;
2. only the active episodes' frames become text (`render_batch`), and their prompts are built by
   the harness (`system_prompt`, `turn_message` with a history window, a `memory` block);
3. the policy is called ONCE per turn for all active episodes of all tasks;
4. completions are parsed (`parse_action`: a failed parse is NO_ACTION, counted, never retried);
5. every task batch steps (finished episodes are frozen by the env shell); with the `memory`
   harness, one more batched call asks each still-running episode for its new notes.

Keys: reset from `reset_key(seed)`, turn t from `step_key(seed, t)`, so an episode is a function
of (task, seed, actions) and `glyphjax.replay(env, seed, record.actions)` reproduces its rewards.

Context guard: a prompt must leave room for `max_new_tokens` within the model's max length
(`policy.max_model_len`, or the `max_model_len` argument). A cheap byte bound clears most prompts
(byte-level BPE never makes more tokens than UTF-8 bytes); the rest are counted exactly with
`policy.count_tokens` when the policy has it. Oldest history is dropped first (counted in
`history_dropped` / `context_drops`); a prompt that cannot fit even without history is not sent:
the turn is a no-op with finish_reason "context" and parse status "truncated" (`context_overflows`).

Finished episodes are appended to the JSONL file as soon as they finish (rl/trajectory.py).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.registry import make
from glyphjax.core.rollout import reset_key, step_key
from glyphjax.core.types import NO_ACTION, Env, Frame
from glyphjax.harness.parse import OK, TRUNCATED, parse_action
from glyphjax.harness.prompt import (MEMORY_UPDATE_INSTRUCTION, HarnessConfig, parse_memory,
                                     system_prompt, turn_message)
from glyphjax.render.text import render_batch
from rl.policies.base import Completion, Policy, SamplingParams
from rl.trajectory import CallRecord, EpisodeRecord, TrajectoryWriter, TurnRecord

FINISH_CONTEXT = "context"  # no call made: the prompt could not fit the model's context
# Template tokens a chat template may add around messages (role markers, generation prompt,
# an empty think block). Only used by the cheap bound; exact counts come from the policy.
TEMPLATE_SLACK_PER_MESSAGE = 16
TEMPLATE_SLACK = 32


@dataclasses.dataclass
class _Episode:
    index: int
    task: str
    seed: int
    env: Env
    system: str
    turns: list = dataclasses.field(default_factory=list)
    history: list = dataclasses.field(default_factory=list)  # (observation, action shown) pairs
    memory: str = ""
    done: bool = False
    terminated: bool = False
    truncated: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0
    truncations: int = 0
    context_drops: int = 0
    context_overflows: int = 0


class _TaskBatch:
    """The device-side batch of one task: states [B], seeds [B], jitted vmapped step/render."""

    def __init__(self, env: Env, episodes: list[_Episode]):
        self.env = env
        self.episodes = episodes
        self.seeds = jnp.asarray(np.array([e.seed for e in episodes], np.uint32))
        self.params = env.default_params()
        fns = _compiled(env)
        self._step, self._render = fns["step"], fns["render"]
        self.states = fns["reset"](self.seeds, self.params)

    def frames(self) -> Frame:
        return jax.device_get(self._render(self.states, self.params))

    def step(self, t: int, actions: np.ndarray):
        self.states, trans = self._step(self.seeds, jnp.int32(t), self.states,
                                        jnp.asarray(actions, jnp.int32), self.params)
        return jax.device_get(trans)


_COMPILED: dict[Env, dict] = {}


def _compiled(env: Env) -> dict:
    """jit(vmap) reset/step/render of one program (params are an argument), built once per
    `Env.program`: the variants of a program share the compile."""
    if env not in _COMPILED:
        reset = jax.jit(jax.vmap(lambda seed, p: env.reset(reset_key(seed), p), in_axes=(0, None)))
        step = jax.jit(jax.vmap(lambda seed, t, s, a, p: env.step(step_key(seed, t), s, a, p),
                                in_axes=(0, None, 0, 0, None)))
        render = jax.jit(jax.vmap(lambda s, p: env.render(s, p), in_axes=(0, None)))
        _COMPILED[env] = {"reset": reset, "step": step, "render": render}
    return _COMPILED[env]


def _byte_bound(conv: list[dict]) -> int:
    """An upper bound on a conversation's prompt tokens for byte-level BPE tokenizers."""
    return (sum(len(m["content"].encode("utf-8")) for m in conv)
            + TEMPLATE_SLACK_PER_MESSAGE * len(conv) + TEMPLATE_SLACK)


class _ContextGuard:
    """Fits prompts into `max_model_len - max_new_tokens` tokens (see the module docstring)."""

    def __init__(self, policy: Policy, max_model_len: int | None, max_new_tokens: int):
        self.limit = None if max_model_len is None else max_model_len - max_new_tokens
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"max_new_tokens={max_new_tokens} leaves no room for a prompt in the model's "
                             f"max length {max_model_len}; lower sampling.max_new_tokens")
        self.count = getattr(policy, "count_tokens", None)

    def fit(self, builders: list[Callable[[int], list[dict]]], wanted: list[int]) -> list[tuple[list[dict] | None, int]]:
        """For each prompt builder (history count -> conversation) and wanted history count,
        the conversation that fits with the most history (oldest dropped first), or None."""
        ks = list(wanted)
        convs = [b(k) for b, k in zip(builders, ks)]
        if self.limit is None:
            return list(zip(convs, ks))
        pending = [i for i, c in enumerate(convs) if _byte_bound(c) > self.limit]
        while pending:
            if self.count is not None:
                sizes = self.count([convs[i] for i in pending])
            else:  # no exact counter: the byte bound decides (conservative)
                sizes = [_byte_bound(convs[i]) for i in pending]
            still = []
            for i, n in zip(pending, sizes):
                if n <= self.limit:
                    continue
                if ks[i] == 0:
                    convs[i] = None
                    continue
                ks[i] -= 1
                convs[i] = builders[i](ks[i])
                still.append(i)
            pending = still
        return list(zip(convs, ks))


def run_rollouts(policy: Policy, episodes: Sequence[tuple[str, int]], harness: HarnessConfig | None = None,
                 sampling: SamplingParams | None = None, out_path: str | None = None, *,
                 memory_sampling: SamplingParams | None = None, max_turns: int | None = None,
                 max_model_len: int | None = None,
                 on_episode: Callable[[EpisodeRecord], None] | None = None,
                 timings: dict[str, float] | None = None) -> list[EpisodeRecord]:
    """Play `episodes` ((task id, seed) pairs) with a text policy; return their records in order.

    `out_path`: append each finished episode to this JSONL file. `max_turns`: stop episodes after
    this many turns (recorded as truncated) even if the task allows more. `memory_sampling`:
    sampling for the memory-update calls (default: `sampling`). `timings`: a dict that receives
    wall seconds per phase (render, prompt, guard, policy, parse, step, memory, write) and `turns`.
    """
    clock = _Clock(timings)
    harness = harness or HarnessConfig()
    sampling = sampling or SamplingParams()
    memory_sampling = memory_sampling or sampling
    if max_turns is not None and max_turns < 1:
        raise ValueError("max_turns must be >= 1")
    if max_model_len is None:
        max_model_len = getattr(policy, "max_model_len", None)
    guard = _ContextGuard(policy, max_model_len, sampling.max_new_tokens)
    mem_guard = _ContextGuard(policy, max_model_len, memory_sampling.max_new_tokens)

    eps: list[_Episode] = []
    for i, (task, seed) in enumerate(episodes):
        env = make(task)
        if env.card.num_players != 1:
            raise ValueError(f"{task}: the rollout engine plays single-agent tasks; two-player games "
                             "need the self-play engine")
        if not 0 <= int(seed) < 2 ** 32:
            raise ValueError(f"{task}: seed {seed} is not in [0, 2**32)")
        eps.append(_Episode(i, task, int(seed), env, system_prompt(env.card, harness)))
    by_task: dict[str, list[_Episode]] = {}
    for e in eps:
        by_task.setdefault(e.task, []).append(e)
    batches = [_TaskBatch(group[0].env, group) for group in by_task.values()]

    writer = TrajectoryWriter(out_path) if out_path is not None else None
    policy_name = getattr(policy, "name", type(policy).__name__)
    records: list[EpisodeRecord | None] = [None] * len(eps)
    try:
        t = 0
        while any(not e.done for e in eps):
            clock.lap()
            # 1-2. render the active episodes and build their prompts
            active: list[tuple[_Episode, str]] = []
            for batch in batches:
                rows = [j for j, e in enumerate(batch.episodes) if not e.done]
                if not rows:
                    continue
                frames = batch.frames()
                sub = Frame(grid=frames.grid[rows], hud=frames.hud[rows], event=frames.event[rows])
                for j, obs in zip(rows, render_batch(batch.env.card, sub)):
                    active.append((batch.episodes[j], obs.render()))
            clock.lap("render")
            builders = [_prompt_builder(e, obs, harness) for e, obs in active]
            wanted = [min(harness.history, len(e.history)) for e, _ in active]
            clock.lap("prompt")
            fitted = guard.fit(builders, wanted)
            clock.lap("guard")

            # 3. one policy call for every active episode that fits
            send = [i for i, (conv, _) in enumerate(fitted) if conv is not None]
            outs = policy.complete([fitted[i][0] for i in send], dataclasses.replace(sampling, seed=_turn_seed(sampling.seed, t)))
            if len(outs) != len(send):
                raise RuntimeError(f"policy {policy_name} returned {len(outs)} completions for {len(send)} prompts")
            clock.lap("policy")
            completions: list[Completion | None] = [None] * len(active)
            for i, c in zip(send, outs):
                completions[i] = c

            # 4. parse
            pending_turns: dict[int, TurnRecord] = {}
            actions: dict[int, int] = {}
            for (e, obs), (conv, k), c, want in zip(active, fitted, completions, wanted):
                card = e.env.card
                if c is None:
                    status, action, name = TRUNCATED, NO_ACTION, None
                    e.context_overflows += 1
                    c = Completion("", [], [], [], FINISH_CONTEXT)
                else:
                    p = parse_action(c.text, card.actions, truncated=c.truncated)
                    status, action = p.status, p.action
                    name = card.actions[action] if p.ok else None
                    e.prompt_tokens += len(c.prompt_ids)
                    e.completion_tokens += len(c.completion_ids)
                    e.truncations += int(c.truncated)
                e.context_drops += want - k
                actions[e.index] = action
                pending_turns[e.index] = TurnRecord(
                    t=t, observation=obs, history_shown=k, history_dropped=want - k,
                    prompt_ids=list(c.prompt_ids), completion_ids=list(c.completion_ids),
                    logprobs=[float(x) for x in c.logprobs], completion=c.text,
                    finish_reason=c.finish_reason, parse_status=status, action=action, action_name=name,
                    reward=0.0, terminated=False, truncated=False,
                    prompt_tokens=len(c.prompt_ids), completion_tokens=len(c.completion_ids),
                    memory=e.memory if harness.memory else None)
                e.history.append((obs, name if name is not None else f"(no action: {status})"))

            clock.lap("parse")
            # 5. step every task batch
            for batch in batches:
                if not any(e.index in pending_turns for e in batch.episodes):
                    continue  # every episode of this task has finished: nothing to step
                acts = np.array([actions.get(e.index, NO_ACTION) for e in batch.episodes], np.int32)
                trans = batch.step(t, acts)
                for j, e in enumerate(batch.episodes):
                    if e.index not in pending_turns:
                        continue
                    turn = pending_turns[e.index]
                    turn.reward = float(trans.reward[j])
                    turn.terminated = bool(trans.terminated[j])
                    turn.truncated = bool(trans.truncated[j])
                    e.turns.append(turn)
                    cut = max_turns is not None and len(e.turns) >= max_turns
                    if turn.terminated or turn.truncated or cut:
                        e.done, e.terminated = True, turn.terminated
                        e.truncated = turn.truncated or (cut and not turn.terminated)

            clock.lap("step")
            # memory harness: a separate batched call for the episodes still running
            if harness.memory:
                _update_memories(policy, [(e, pending_turns[e.index]) for e, _ in active if not e.done],
                                 harness, memory_sampling, mem_guard, t)
                clock.lap("memory")

            for e, _ in active:
                if e.done:
                    rec = _episode_record(e, harness, policy_name)
                    records[e.index] = rec
                    if writer is not None:
                        writer.write(rec)
                    if on_episode is not None:
                        on_episode(rec)
            clock.lap("write")
            clock.count("turns")
            t += 1
    finally:
        if writer is not None:
            writer.close()
    return records  # type: ignore[return-value]


class _Clock:
    """Accumulates wall seconds per phase into a caller's dict (no-op without one)."""

    def __init__(self, into: dict[str, float] | None):
        self.into = into
        self.last = time.perf_counter()

    def lap(self, phase: str | None = None) -> None:
        if self.into is None:
            return
        now = time.perf_counter()
        if phase is not None:
            self.into[phase] = self.into.get(phase, 0.0) + now - self.last
        self.last = now

    def count(self, name: str) -> None:
        if self.into is not None:
            self.into[name] = self.into.get(name, 0) + 1


def _turn_seed(seed: int, t: int) -> int:
    return (seed * 1_000_003 + t * 7_919) % (2 ** 31)


def _prompt_builder(e: _Episode, obs: str, harness: HarnessConfig) -> Callable[[int], list[dict]]:
    memory = e.memory if harness.memory else None

    def build(k: int) -> list[dict]:
        history = e.history[len(e.history) - k:] if k else []
        return [{"role": "system", "content": e.system},
                {"role": "user", "content": turn_message(obs, history, memory)}]
    return build


def _update_memories(policy: Policy, items: list[tuple[_Episode, TurnRecord]], harness: HarnessConfig,
                     sampling: SamplingParams, guard: _ContextGuard, t: int) -> None:
    """Ask each episode's model for its new notes: [system, the turn's user message, its reply,
    the update instruction] -> the last <memory> block (unchanged memory if none)."""
    if not items:
        return

    def builder(e: _Episode, turn: TurnRecord):
        def build(k: int) -> list[dict]:
            history = e.history[len(e.history) - 1 - k:-1] if k else []
            return [{"role": "system", "content": e.system},
                    {"role": "user", "content": turn_message(turn.observation, history, e.memory)},
                    {"role": "assistant", "content": turn.completion},
                    {"role": "user", "content": MEMORY_UPDATE_INSTRUCTION}]
        return build

    fitted = guard.fit([builder(e, turn) for e, turn in items], [turn.history_shown for _, turn in items])
    send = [i for i, (conv, _) in enumerate(fitted) if conv is not None]
    outs = policy.complete([fitted[i][0] for i in send],
                           dataclasses.replace(sampling, seed=_turn_seed(sampling.seed + 1, t)))
    for i, (e, turn) in enumerate(items):
        if fitted[i][0] is None:
            e.context_overflows += 1
    for i, c in zip(send, outs):
        e, turn = items[i]
        turn.memory_update = CallRecord(list(c.prompt_ids), list(c.completion_ids),
                                        [float(x) for x in c.logprobs], c.text, c.finish_reason)
        e.memory = parse_memory(c.text, e.memory, harness.memory_chars)
        e.prompt_tokens += len(c.prompt_ids)
        e.completion_tokens += len(c.completion_ids)
        turn.prompt_tokens += len(c.prompt_ids)
        turn.completion_tokens += len(c.completion_ids)
        e.truncations += int(c.truncated)


def _episode_record(e: _Episode, harness: HarnessConfig, policy_name: str) -> EpisodeRecord:
    counts: dict[str, int] = {}
    for turn in e.turns:
        counts[turn.parse_status] = counts.get(turn.parse_status, 0) + 1
    return EpisodeRecord(
        task=e.task, seed=e.seed, harness=harness.name, policy=policy_name, system_prompt=e.system,
        turns=e.turns, episode_return=float(sum(turn.reward for turn in e.turns)), length=len(e.turns),
        terminated=e.terminated, truncated=e.truncated, prompt_tokens=e.prompt_tokens,
        completion_tokens=e.completion_tokens,
        parse_failures=sum(n for s, n in counts.items() if s != OK), parse_status_counts=counts,
        truncations=e.truncations, context_drops=e.context_drops, context_overflows=e.context_overflows)


def episodes_for(task_ids: Sequence[str], seeds: Sequence[int]) -> list[tuple[str, int]]:
    """Every (task, seed) pair: the same seeds for every task (matched-seed evaluation)."""
    return [(task, int(seed)) for task in task_ids for seed in seeds]


__all__ = ["FINISH_CONTEXT", "run_rollouts", "episodes_for"]

