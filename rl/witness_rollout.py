"""WITNESS games played by a text policy through the WITNESS harness (`harness=witness`).

The witness harness (glyphjax/witness/harness.py: rule memory, reflections, plans of up to 16
actions, notices, the call budget) drives one game per (task, seed); each reflection is one
`policy.complete` call. The run becomes an `EpisodeRecord` with one turn per env action: the turn
that starts a plan carries the call (prompt, completion, token ids), the plan's later actions carry
none (`finish_reason` "plan"); an unparseable reply is a NO_ACTION turn carrying its call (the
engine ignores it; RL trains on it); every turn's `memory` is the rule memory after its call's ops. `replay_actions` are the env actions, so `glyphjax.replay`
reproduces the run and `eval.witness.run_from_record` its RHAE.
"""

from __future__ import annotations

from typing import Callable, Sequence

from glyphjax.core.registry import make
from glyphjax.core.types import NO_ACTION
from glyphjax.harness.parse import NO_TAG, OK
from glyphjax.witness.harness import CALL_BUDGET, play
from rl.policies.base import Completion, Policy, SamplingParams
from rl.trajectory import EpisodeRecord, TrajectoryWriter, TurnRecord

HARNESS = "witness"
FINISH_PLAN = "plan"  # a turn executing a later action of a plan: no call of its own


def _model(policy: Policy, sampling: SamplingParams, calls: list[Completion]) -> Callable[[str], str]:
    """The harness's `model(prompt) -> str` over a text policy, keeping every completion."""
    def model(prompt: str) -> str:
        out = policy.complete([[{"role": "user", "content": prompt}]], sampling)[0]
        calls.append(out)
        return out.text
    return model


def _turn(t: int, c: Completion | None, observation: str, action: int, action_name: str, status: str,
          reward: float = 0.0, done: bool = False, memory: str = "") -> TurnRecord:
    """One record turn: `c` is the call it carries (None for a plan's later actions)."""
    return TurnRecord(
        t=t, observation=observation, history_shown=0, history_dropped=0,
        prompt_ids=list(c.prompt_ids) if c else [], completion_ids=list(c.completion_ids) if c else [],
        logprobs=list(c.logprobs) if c else [], completion=c.text if c else "",
        finish_reason=c.finish_reason if c else FINISH_PLAN, parse_status=status, action=action,
        action_name=action_name, reward=reward, terminated=done, truncated=False,
        prompt_tokens=len(c.prompt_ids) if c else 0, completion_tokens=len(c.completion_ids) if c else 0,
        memory=memory)


def _turns(env, log, calls: list[Completion]) -> list[TurnRecord]:
    """The run's turns in call order: one per env action (the first of a plan carries its call)
    and one NO_ACTION turn per unparseable reply (it carries its call, so RL trains on it too)."""
    failed = dict(log.failed)
    turns, last_call = [], 0
    memory = "(empty)"

    def flush_failed(upto: int) -> None:
        for k in range(last_call + 1, upto):
            if k in failed:
                turns.append(_turn(len(turns), calls[k - 1], failed[k], NO_ACTION, "", NO_TAG, memory=memory))
    for s in log.steps:
        first = s.call != last_call
        if first:
            flush_failed(s.call)
        turns.append(_turn(len(turns), calls[s.call - 1] if first else None, s.observation, s.action,
                           env.card.actions[s.action], OK, s.reward, s.done, s.memory))
        last_call, memory = s.call, s.memory
    flush_failed(log.calls + 1)
    return turns


def play_witness(policy: Policy, task: str, seed: int, sampling: SamplingParams,
                 call_budget: int = CALL_BUDGET) -> EpisodeRecord:
    """One run of a WITNESS game by `policy` through the witness harness, as an EpisodeRecord."""
    if not task.startswith("witness/"):
        raise ValueError(f"harness=witness plays WITNESS games (witness/<split>/<game>), not {task!r}; "
                         "use harness=basic or harness=memory for other tasks")
    env = make(task)
    calls: list[Completion] = []
    state, log = play(env, _model(policy, sampling, calls), seed, call_budget)
    turns = _turns(env, log, calls)
    ended = bool(state.done)
    return EpisodeRecord(
        task=task, seed=int(seed), harness=HARNESS, policy=getattr(policy, "name", type(policy).__name__),
        system_prompt=env.card.rules, turns=turns, episode_return=float(sum(s.reward for s in log.steps)),
        length=len(turns), terminated=ended, truncated=not ended,
        prompt_tokens=sum(len(c.prompt_ids) for c in calls), completion_tokens=sum(len(c.completion_ids) for c in calls),
        parse_failures=log.parse_failures, parse_status_counts={OK: log.calls - log.parse_failures,
                                                                NO_TAG: log.parse_failures},
        truncations=sum(c.truncated for c in calls), context_drops=0, context_overflows=0)


def run_witness_rollouts(policy: Policy, episodes: Sequence[tuple[str, int]], sampling: SamplingParams,
                         out_path: str | None = None, on_episode: Callable[[EpisodeRecord], None] | None = None,
                         call_budget: int = CALL_BUDGET) -> list[EpisodeRecord]:
    """Every (task, seed) run in turn; each finished run is appended to `out_path` (JSONL) if given."""
    writer = TrajectoryWriter(out_path) if out_path else None
    records = []
    try:
        for task, seed in episodes:
            rec = play_witness(policy, task, seed, sampling, call_budget)
            records.append(rec)
            if writer:
                writer.write(rec)
            if on_episode:
                on_episode(rec)
    finally:
        if writer:
            writer.close()
    return records
