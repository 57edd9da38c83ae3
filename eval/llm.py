"""LLM policies (`policy=local`, `policy=vllm`) through `rl.llm_eval.evaluate_llm`, imported lazily.

`evaluate_llm` is owned by the rollout engineer. It is called once per task (so benchmark runs
resume task by task) as

    evaluate_llm(task_ids=[task], seeds=[...], policy=<"local"|"vllm">, model=<path|name>,
                 server_url=<url|None>, harness=<dict>, sampling=<dict>)

and may return episode records (dicts in the trajectory format), an object with `.episodes`, or
a path to a JSON Lines trajectory file.
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


def llm_evaluator(cfg):
    """A `TaskEvaluator` for an LLM policy config; raises with what to do when it cannot run."""
    from eval.cli import model_label
    pol = cfg.policy
    model = model_label(cfg)
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
                if k in ("temperature", "top_p", "top_k", "max_new_tokens")}
    harness = OmegaConf.to_container(cfg.harness, resolve=True)

    def evaluate(task: str, seeds: np.ndarray) -> TaskResult:
        out = evaluate_llm(task_ids=[task], seeds=[int(s) for s in seeds], policy=pol.name,
                           model=model, server_url=cfg.server.url, harness=harness, sampling=sampling)
        return from_episodes(task, _episodes(out))
    return evaluate
