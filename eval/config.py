"""Typed configuration of `glyphjax-eval` (conf/eval.yaml extends `schema/eval`).

Evaluation-only keys are declared here with their one default; the groups shared with training
(model, policy, tasks, harness, server) come from rl/config.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from eval.seeds import EVAL_SEED_START
from rl.config import HarnessSettings, ModelConfig, ServerConfig, TaskSetConfig, register_policy_schemas


@dataclass
class BootstrapConfig:
    resamples: int = 10000
    seed: int = 0
    confidence: float = 0.95


@dataclass
class ReasoningGymConfig:
    """`suite=reasoning_gym` (eval/reasoning_transfer.py): the paper's transfer protocol."""

    tasks: List[str] = field(default_factory=list)  # Reasoning Gym dataset names; [] = the 31 of TRANSFER_TASKS
    problems: int = 100  # problems per task
    attempts: int = 3  # completions per problem
    seed: int = 0  # the datasets' generator seed: same seed, same problems
    temperature: float = 0.6
    top_p: float = 0.9
    max_new_tokens: int = 16384  # the large output budget (ours: the paper gives no number)
    compare: Optional[str] = None  # another reasoning_gym results.json: paired interval, this run minus that one


@dataclass
class OpponentConfig:
    """conf/opponent/*.yaml: the bot in the other seat of two-player tasks (eval/versus.py)."""

    name: str = MISSING  # random | scripted | minimax (glyphjax.core.bots.BOTS) | checkpoint
    depth: int = 2  # minimax search depth in plies
    path: Optional[str] = None  # opponent=checkpoint:<dir>: a model or glyphjax-train run directory (series)


@dataclass
class EvalConfig:
    """conf/eval.yaml: a policy over a task set on held-out seeds; each run writes its own directory."""

    tasks: TaskSetConfig = field(default_factory=TaskSetConfig)
    policy: Any = MISSING  # a conf/policy preset (array or llm kind)
    opponent: Optional[OpponentConfig] = None  # opponent=random|scripted|minimax: per-seat play (eval/versus.py)
    harness: HarnessSettings = field(default_factory=HarnessSettings)
    model: Optional[ModelConfig] = None  # a conf/model preset (e.g. model=tiny), or see model_ref
    seeds: Optional[int] = None  # episodes per task; null = the policy's default_seeds
    seed_start: int = EVAL_SEED_START  # first held-out evaluation seed
    max_turns: Optional[int] = None  # LLM policies: stop episodes after this many turns (null = the task's max_steps)
    batch_size: int = 4096  # seeds per vmapped batch (array policies)
    split: Optional[str] = None  # train|test: play the tasks' training or unseen test levels (Procgen)
    num_levels: int = 200  # training levels of split=train (Procgen's protocol: 200)
    bootstrap: BootstrapConfig = field(default_factory=BootstrapConfig)
    out: Optional[str] = None  # results JSON; null = results.json in the run directory
    resume: bool = True  # skip tasks already finished in ${out}.partial.jsonl (same run directory)
    model_ref: Optional[str] = None  # `model=PATH_OR_NAME` that is not a conf/model preset lands here
    server: ServerConfig = field(default_factory=ServerConfig)
    progress: bool = True
    replay: bool = True  # LLM runs: write replay.html beside the trajectories
    # best-of-three series against `opponent` (eval/series_eval.py); null = on for tasks=zerosum_heldout,
    # LLM policies and checkpoint opponents on zero-sum tasks
    series: Optional[bool] = None
    suite: Optional[str] = None  # reasoning_gym: the Reasoning Gym transfer protocol instead of games
    reasoning_gym: ReasoningGymConfig = field(default_factory=ReasoningGymConfig)


def register_eval_schema() -> None:
    """Register `schema/eval` (conf/eval.yaml's base) and the policy schemas (idempotent)."""
    cs = ConfigStore.instance()
    cs.store(group="schema", name="eval", node=EvalConfig)
    cs.store(group="schema", name="opponent", node=OpponentConfig)
    register_policy_schemas(cs)
