"""LLM policies (`policy=local`, `policy=vllm`) through `rl.llm_eval.evaluate_llm`, imported lazily.

`evaluate_llm` (rl/llm_eval.py) is called once per task (so benchmark runs resume task by task):

    evaluate_llm(policy=<"local"|"vllm">, task_ids=[task], seeds=[...], model=<path|name>,
                 server_url=<url|None>, harness=<dict>, sampling=<dict>, out_path=<jsonl|None>,
                 on_call=<after each policy call>, on_episode=<after each finished episode>)

Its episodes (`.episodes`, dicts in the rl/trajectory.py format) become `TaskResult` columns.
With `out=FILE` the trajectories are appended to `FILE.trajectories.jsonl` (for glyphjax-replay);
a task redone after a crash may leave a partial first attempt in that file. The two hooks feed
the progress display (`eval.progress.LLMTaskMeter`: calls, episodes done, tokens/s).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from eval.results import TaskResult, from_episodes


def _episodes(out: Any) -> list[dict]:
    if isinstance(out, (str, Path)):
        return [json.loads(l) for l in Path(out).read_text(encoding="utf-8").splitlines() if l.strip()]
    if hasattr(out, "episodes"):
        out = out.episodes
    return [e if isinstance(e, dict) else (e.to_json() if hasattr(e, "to_json") else vars(e)) for e in out]


def resolve_model(cfg) -> str | None:
    """`model=PATH_OR_NAME`, else the conf/model preset: its checkpoint path for policy=local
    (path null = the tiny test model, built on first use), its name for policy=vllm (or server.model)."""
    if cfg.get("model_ref"):
        return str(cfg.model_ref)
    m = cfg.get("model")
    if not m:
        server = cfg.get("server") or {}
        return str(server.get("model")) if cfg.policy.name == "vllm" and server.get("model") else None
    if cfg.policy.name == "local":
        from rl.tiny import resolve_model_path
        return str(resolve_model_path(m.get("path"), seed=int(m.get("seed", 0) or 0)))
    return str(m.get("path") or m.get("name"))


def llm_identity(cfg) -> str:
    """The resume identity of an LLM run (`eval.runid`): resolved config, checkpoint bytes (for
    policy=local), code version."""
    from omegaconf import OmegaConf
    from eval.runid import run_identity
    model = None
    if cfg.policy.name == "local":  # the directory the policy loads (a run directory resolves to its model)
        from rl.tiny import resolve_model_path
        model = resolve_model_path(resolve_model(cfg))
    return run_identity(OmegaConf.to_container(cfg, resolve=True), model)


def llm_evaluator(cfg, trajectories: str | None = None):
    """A `TaskEvaluator` for an LLM policy config, appending episodes to `trajectories` (JSONL) if given;
    raises with what to do when it cannot run."""
    pol = cfg.policy
    model = resolve_model(cfg)
    if not model:
        raise ValueError(f"policy={pol.name} needs model=... (a checkpoint path for local, the served "
                         "model name for vllm)")
    if pol.name == "vllm" and not cfg.server.url:
        raise ValueError("policy=vllm needs server.url=http://HOST:PORT/v1")
    try:
        from rl.llm_eval import evaluate_llm
    except ImportError as e:
        raise RuntimeError(f"LLM evaluation needs rl.llm_eval.evaluate_llm, which cannot be imported "
                           f"here ({e}); use policy=random or policy=scripted") from None
    from omegaconf import OmegaConf
    sampling = {k: v for k, v in OmegaConf.to_container(pol, resolve=True).items()
                if k in ("temperature", "top_p", "top_k", "max_new_tokens", "seed")}
    # the trainer's action modes: one action-name token after <action>, or one legal name through the trie
    policy_kwargs = {k: True for k in ("action_tokens", "constrained_actions") if pol.get(k)} or None
    harness = OmegaConf.to_container(cfg.harness, resolve=True)
    tasks = [str(t) for t in cfg.tasks.ids]
    max_turns = None if cfg.get("max_turns") is None else int(cfg.max_turns)
    from glyphjax.core.host import is_host, make_host
    if harness.get("name") == "basic" and tasks and all(t.startswith("witness/") for t in tasks):
        harness = {"name": "witness"}  # the default harness on WITNESS games is the paper's (rule memory, plans)
        print("WITNESS games: harness=witness (harness=compact or harness=memory plays them one action per turn)")
    call_budget = cfg.get("call_budget")
    if call_budget is not None:
        if harness.get("name") != "witness":
            raise ValueError(f"call_budget={call_budget} applies to WITNESS runs (harness=witness), not "
                             f"harness={harness.get('name')}; drop call_budget")
        if int(call_budget) < 1:
            raise ValueError(f"call_budget must be >= 1 model calls per WITNESS run, got {call_budget} "
                             "(witness.md §2.3: 1,000; 300 in RL)")
    if harness.get("name") == "witness":
        from glyphjax.witness.harness import CALL_BUDGET
        call_budget = int(call_budget or CALL_BUDGET)

    def evaluate(task: str, seeds: np.ndarray) -> TaskResult:
        from eval.progress import LLMTaskMeter
        meter = LLMTaskMeter(len(seeds))
        out = evaluate_llm(policy=pol.name, task_ids=[task], seeds=[int(s) for s in seeds],
                           model=model, server_url=cfg.server.url, harness=harness, sampling=sampling,
                           out_path=trajectories, policy_kwargs=policy_kwargs,
                           on_call=meter.call, on_episode=meter.episode, max_turns=max_turns,
                           call_budget=call_budget)
        episodes = _episodes(out)
        if task.startswith("witness/"):  # RHAE needs each run's solved levels: replay its actions
            from eval.witness import run_from_actions
            evaluate.witness_runs += [run_from_actions(task, e["seed"], _actions(e), _calls(e), call_budget)
                                      for e in episodes]
        failed = {int(e["seed"]): e["error"] for e in episodes if e.get("error")}  # host games that failed
        evaluate.errors.setdefault(task, {}).update(failed)
        return from_episodes(task, episodes, card=make_host(task).card if is_host(task) else None)
    evaluate.witness_runs = []  # eval.witness.Run of every WITNESS run this evaluator played
    evaluate.errors = {}  # host tasks: {task: {seed: why its game failed}} (the episode is kept, truncated)
    return evaluate


def _calls(episode: dict) -> int:
    """The model calls of a recorded episode (every call has a parse status)."""
    return int(sum(episode["parse_status_counts"].values()))


def _actions(episode: dict) -> list[int]:
    """The env actions of a recorded episode (its turns' actions, no-ops left out)."""
    return [t["action"] for t in episode["turns"] if t["action"] >= 0]
