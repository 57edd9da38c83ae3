"""LLM evaluation with matched seeds: every task on the same seeds, one batched rollout.

    result = evaluate_llm(policy, ["dummy/arrow-4", "classics/snake-easy"], range(25),
                          harness=HarnessConfig(), sampling=SamplingParams(max_new_tokens=512),
                          out_path="runs/eval.jsonl")
    result.summary["dummy/arrow-4"]["mean_return"]

`policy` is a Policy object, or the name `"vllm"` / `"local"` with `model=` (the served model name
for vllm, a checkpoint or training-run directory for local) and `server_url=` (vllm);
`policy_kwargs={"action_tokens": True}` plays local models the way `rl.action_tokens` trains them. `harness` and `sampling`
may be dataclasses or plain mappings (Hydra configs), which is how `glyphjax-eval policy=...`
calls it (eval/llm.py). All task x seed episodes run as one batch through `rl.rollout`.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any, Callable, Iterable, Mapping, Sequence

from glyphjax.harness.prompt import HarnessConfig
from rl.policies.base import Completion, Policy, SamplingParams
from rl.rollout import Opponents, episodes_for, run_rollouts
from rl.trajectory import EpisodeRecord


@dataclasses.dataclass
class LLMEvalResult:
    """Per-task summary plus every episode (`records`: EpisodeRecord, `episodes`: JSON dicts)."""

    summary: dict[str, dict[str, float]]
    records: list[EpisodeRecord]

    @property
    def episodes(self) -> list[dict[str, Any]]:
        return [r.to_dict() for r in self.records]


def summarize(records: Iterable[EpisodeRecord]) -> dict[str, dict[str, float]]:
    """Per task: episodes, mean/std return, mean length, mean prompt and completion tokens per
    episode, parse failures (total and per turn), completion truncations, context drops/overflows;
    multi-seat tasks add `mean_return_seat_<k>` for each seat a text policy played."""
    by_task: dict[str, list[EpisodeRecord]] = {}
    for r in records:
        by_task.setdefault(r.task, []).append(r)
    out = {}
    for task, eps in by_task.items():
        n = len(eps)
        rets = [e.episode_return for e in eps]
        mean = sum(rets) / n
        turns = sum(e.length for e in eps)
        out[task] = {
            "episodes": n,
            "mean_return": mean,
            "std_return": math.sqrt(sum((x - mean) ** 2 for x in rets) / n),
            "mean_length": sum(e.length for e in eps) / n,
            "mean_prompt_tokens": sum(e.prompt_tokens for e in eps) / n,
            "mean_completion_tokens": sum(e.completion_tokens for e in eps) / n,
            "parse_failures": sum(e.parse_failures for e in eps),
            "parse_failure_rate": sum(e.parse_failures for e in eps) / max(turns, 1),
            "truncations": sum(e.truncations for e in eps),
            "context_drops": sum(e.context_drops for e in eps),
            "context_overflows": sum(e.context_overflows for e in eps),
        }
        for seat in sorted({e.seat for e in eps if e.returns is not None}):  # multi-seat tasks
            mine = [e.episode_return for e in eps if e.seat == seat]
            out[task][f"mean_return_seat_{seat}"] = sum(mine) / len(mine)
    return out


def _harness(h: HarnessConfig | Mapping | str | None) -> HarnessConfig:
    if h is None or isinstance(h, HarnessConfig):
        return h or HarnessConfig()
    if isinstance(h, str):
        return HarnessConfig(name=h, memory=h == "memory")
    fields = {f.name for f in dataclasses.fields(HarnessConfig)}
    unknown = set(h) - fields
    if unknown:
        raise ValueError(f"unknown harness settings {sorted(unknown)}; valid: {sorted(fields)}")
    return HarnessConfig(**dict(h))


def _sampling(s: SamplingParams | Mapping | None) -> SamplingParams:
    if s is None or isinstance(s, SamplingParams):
        return s or SamplingParams()
    fields = {f.name for f in dataclasses.fields(SamplingParams)}
    unknown = set(s) - fields
    if unknown:
        raise ValueError(f"unknown sampling settings {sorted(unknown)}; valid: {sorted(fields)}")
    return SamplingParams(**dict(s))


def make_policy(name: str, *, model: str | None = None, server_url: str | None = None,
                action_names: Sequence[str] | None = None, **kwargs) -> Policy:
    """A text policy by name: "vllm" (needs server_url; model = served name or None for the only
    one) or "local" (model = checkpoint directory, built by rl.policies.local). `action_names`
    (local only): the trainer's action-token sampler over these names (`rl.action_tokens` mode)."""
    if action_names is not None:
        if name != "local":
            raise ValueError(f"action_tokens=true needs policy local (the JAX model), not {name!r}")
        return _action_token_policy(model, action_names, **kwargs)
    if name == "vllm":
        if not server_url:
            raise ValueError("policy vllm needs server_url=http://HOST:PORT (on the command line: server.url=URL)")
        from rl.policies.vllm import VLLMPolicy
        return VLLMPolicy(server_url, model, **kwargs)
    if name == "local":
        try:
            from rl.policies import local
        except ImportError as e:
            raise RuntimeError(f"policy local needs rl.policies.local ({e})") from None
        return local.load_local_policy(model, **kwargs)  # model None = the tiny test checkpoint
    raise ValueError(f"unknown text policy {name!r}; use 'vllm' or 'local'")


class MeteredPolicy:
    """A policy that calls `on_call(completions, seconds)` after every batch it completes
    (progress and tokens/s); everything else is the wrapped policy's."""

    def __init__(self, policy: Policy, on_call: Callable[[list[Completion], float], None]):
        self._policy, self._on_call = policy, on_call

    def complete(self, conversations, sampling: SamplingParams, **kwargs) -> list[Completion]:
        start = time.perf_counter()
        out = self._policy.complete(conversations, sampling, **kwargs)  # e.g. legal_actions (constrained)
        self._on_call(out, time.perf_counter() - start)
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._policy, name)


def _action_token_policy(model: str | None, action_names: Sequence[str], **kwargs) -> Policy:
    """The sampler `rl.action_tokens: true` trains with, over a checkpoint directory (None = tiny)."""
    from rl.models.hf_io import load_model
    from rl.tiny import resolve_model_path
    from rl.tokenizer import ChatTokenizer
    from rl.trainer import ActionTokenPolicy

    path = resolve_model_path(model)
    return ActionTokenPolicy(load_model(path, dtype=kwargs.pop("dtype", None)), ChatTokenizer.from_pretrained(path),
                             action_names, **kwargs)


def shared_action_names(task_ids: Sequence[str]) -> list[str]:
    """The one action list every task shares (action-token mode samples one of these names)."""
    from glyphjax.core.registry import make
    names = {tuple(make(t).card.actions) for t in task_ids}
    if len(names) != 1:
        raise ValueError("action_tokens=true needs every task in the set to share one action list; "
                         f"{sorted(task_ids)} have {len(names)} different lists")
    return list(names.pop())


def evaluate_per_task(policy: Policy, task_ids: Sequence[str], seeds: Sequence[int],
                      harness: HarnessConfig | Mapping | str | None = None,
                      sampling: SamplingParams | Mapping | None = None, *, repeats: int = 1,
                      max_turns: int | None = None,
                      opponents: Mapping[str, Opponents] | None = None,
                      envs: Mapping[str, Any] | None = None, call_budget: int | None = None) -> list[EpisodeRecord]:
    """Each task alone on `seeds` (each seed `repeats` times) with the policy's RNG stream restarted:
    exactly the episodes `glyphjax-eval` plays for the task with a freshly loaded policy, so a
    trainer's held-out figure equals the evaluation of its exported model. `opponents[task]`: that
    task's `run_rollouts` opponents (multi-seat tasks; default self-play); `envs` as in `run_rollouts`."""
    records: list[EpisodeRecord] = []
    for task in task_ids:
        if hasattr(policy, "call_index"):
            policy.call_index = 0
        episode_seeds = [int(s) for s in seeds for _ in range(repeats)]
        records += evaluate_llm(policy, [task], episode_seeds, harness, sampling, max_turns=max_turns,
                                opponents=(opponents or {}).get(task), envs=envs, call_budget=call_budget).records
    return records


def evaluate_llm(policy: Policy | str, task_ids: Sequence[str], seeds: Iterable[int],
                 harness: HarnessConfig | Mapping | str | None = None,
                 sampling: SamplingParams | Mapping | None = None, out_path: str | None = None, *,
                 model: str | None = None, server_url: str | None = None, max_turns: int | None = None,
                 policy_kwargs: Mapping | None = None, opponents: Opponents = None,
                 on_call: Callable[[list[Completion], float], None] | None = None,
                 on_episode: Callable[[EpisodeRecord], None] | None = None,
                 envs: Mapping[str, Any] | None = None, call_budget: int | None = None) -> LLMEvalResult:
    """Play every task on every seed with `policy`; stream episodes to `out_path` (JSONL) if given.
    Multi-seat tasks: `opponents` as in `run_rollouts` (default self-play); each text seat's
    record counts as one episode of the summary. Progress hooks: `on_call(completions, seconds)`
    after each policy call, `on_episode(record)` when an episode finishes. `envs`: task id -> the
    Env that plays it (default `make(task)`; e.g. Procgen over another level set). `call_budget`:
    model calls per run under harness=witness (default 1,000)."""
    if isinstance(policy, str):
        kwargs = dict(policy_kwargs or {})
        if kwargs.pop("action_tokens", False):
            kwargs["action_names"] = shared_action_names(task_ids)
        policy = make_policy(policy, model=model, server_url=server_url, **kwargs)
    if on_call is not None:
        policy = MeteredPolicy(policy, on_call)
    seeds = [int(s) for s in seeds]
    if not task_ids or not seeds:
        raise ValueError("evaluate_llm needs at least one task id and one seed")
    harness = _harness(harness)
    if harness.name == "witness":  # the WITNESS harness: rule memory, reflections, plans (rl/witness_rollout.py)
        from rl.witness_rollout import run_witness_rollouts
        from glyphjax.witness.harness import CALL_BUDGET
        records = run_witness_rollouts(policy, episodes_for(list(task_ids), seeds), _sampling(sampling),
                                       out_path, on_episode=on_episode, call_budget=call_budget or CALL_BUDGET)
        return LLMEvalResult(summarize(records), records)
    records = run_rollouts(policy, episodes_for(list(task_ids), seeds), harness, _sampling(sampling),
                           out_path, max_turns=max_turns, opponents=opponents, on_episode=on_episode, envs=envs)
    return LLMEvalResult(summarize(records), records)
