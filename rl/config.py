"""Typed configuration of `glyphjax-train` and the groups it shares with `glyphjax-eval`.

Every Hydra key is declared once here (or in eval/config.py for evaluation-only keys), with its one
default; conf/*.yaml files hold presets and overrides only. Sampling defaults come from
`rl.policies.base.SamplingParams`, loss settings from the loss functions' keyword defaults and
harness settings from `glyphjax.harness.prompt.HarnessConfig`, so the Python API and the CLIs agree.
The schemas are registered in Hydra's ConfigStore under `schema/...` by `register_train_schema`.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from glyphjax.harness.prompt import HarnessConfig
from rl.distributed import DistributedConfig
from rl.losses import dppo_terms, ipo_terms
from rl.policies.base import SamplingParams
from rl.policies.vllm import VLLMPolicy

_SAMPLING = SamplingParams()
_HARNESS = HarnessConfig()


def _kw_default(fn: Callable, name: str) -> Any:
    """The keyword default `name` of `fn` (the owner of that setting's value)."""
    return inspect.signature(fn).parameters[name].default


@dataclass
class ModelConfig:
    """A Hugging Face checkpoint directory; path null = the tiny test model, built offline on first use."""

    name: Optional[str] = None
    path: Optional[str] = None
    seed: int = 0  # seed of the tiny checkpoint's random weights (path null only)
    dtype: Optional[str] = None  # float32 | bfloat16 | float16 | null (= the checkpoint's torch_dtype)
    random_init_std: Optional[float] = None  # training: replace the weights by fresh N(0, std) ones


@dataclass
class HarnessSettings:
    """glyphjax.harness.prompt.HarnessConfig as a Hydra node (that dataclass is frozen); same defaults."""

    name: str = _HARNESS.name  # basic | compact | memory | witness
    history: int = _HARNESS.history  # previous (observation, action) pairs shown per turn
    memory: bool = _HARNESS.memory
    memory_chars: int = _HARNESS.memory_chars
    obs_format: str = _HARNESS.obs_format  # glyph | native_text (the task's own text: Craftax) | pixels


@dataclass
class PolicyConfig:
    """Fields every policy preset has; `kind` says which evaluator or trainer path runs it."""

    name: str = MISSING
    kind: str = MISSING
    default_seeds: int = MISSING  # glyphjax-eval episodes per task when seeds=null


@dataclass
class ArrayPolicyConfig(PolicyConfig):
    """Vmapped array policies (glyphjax-eval only), run one after the other."""

    kind: str = "array"
    policies: List[str] = field(default_factory=list)
    default_seeds: int = 1000


@dataclass
class LLMPolicyConfig(PolicyConfig):
    """A text policy; its sampling settings (SamplingParams' defaults) drive training and evaluation."""

    kind: str = "llm"
    default_seeds: int = 25
    temperature: float = _SAMPLING.temperature
    top_p: float = _SAMPLING.top_p
    top_k: int = _SAMPLING.top_k
    max_new_tokens: int = _SAMPLING.max_new_tokens
    seed: int = _SAMPLING.seed


@dataclass
class LocalPolicyConfig(LLMPolicyConfig):
    """The JAX model of this repo (rl.policies.local.LocalPolicy): one program per shape bucket."""

    name: str = "local"
    batch_buckets: List[int] = field(default_factory=lambda: [1, 2, 4, 8, 16, 32, 64, 128, 256])
    min_prompt_bucket: int = 64
    min_new_tokens_bucket: int = 16
    dtype: Optional[str] = None  # parameter dtype override; null = the checkpoint's
    action_tokens: bool = False  # sample one action-name token after <action>, as rl.action_tokens trains
    # decode `<action>` + one legal action name (env.legal) + stop through a token trie, with the
    # masked distribution's log-probs; the trainer masks its log-softmax the same (rl/policies/local.py)
    constrained_actions: bool = False


@dataclass
class VLLMPolicyConfig(LLMPolicyConfig):
    """A vLLM OpenAI-compatible server (rl.policies.vllm.VLLMPolicy keyword defaults)."""

    name: str = "vllm"
    concurrency: int = _kw_default(VLLMPolicy.__init__, "concurrency")
    timeout: float = _kw_default(VLLMPolicy.__init__, "timeout")
    retries: int = _kw_default(VLLMPolicy.__init__, "retries")
    backoff: float = _kw_default(VLLMPolicy.__init__, "backoff")
    chat_template_kwargs: Dict[str, Any] = field(default_factory=dict)
    tokenizer: Optional[str] = None
    seeded: bool = _kw_default(VLLMPolicy.__init__, "seeded")


@dataclass
class TaskSetConfig:
    """A task set: ids or globs, optional track filter and exclusions (eval.tasksets.resolve_tasks)."""

    name: Optional[str] = None
    ids: List[str] = field(default_factory=list)
    track: Optional[str] = None
    exclude: List[str] = field(default_factory=list)
    mixture: Dict[str, int] = field(default_factory=dict)  # suite -> quota: ids by rule (rl/mixture.py), instead of ids


@dataclass
class ServerConfig:
    """The vLLM server (policy=vllm): its URL and the served model name (null = the only one)."""

    url: Optional[str] = None
    model: Optional[str] = None


@dataclass
class IPOConfig:
    pg_threshold: float = _kw_default(ipo_terms, "pg_threshold")
    kl_coef: float = _kw_default(ipo_terms, "kl_coef")


@dataclass
class DPPOConfig:
    mask_low: float = _kw_default(dppo_terms, "mask_low")
    mask_high: float = _kw_default(dppo_terms, "mask_high")
    tau_adv: float = _kw_default(dppo_terms, "tau_adv")
    tau_kl: float = _kw_default(dppo_terms, "tau_kl")


@dataclass
class SFTConfig:
    """Distillation (rl.mode=sft, rl/sft.py): teacher trajectory files and the pass schedule."""

    data: List[str] = field(default_factory=list)  # JSONL trajectory files of teacher episodes
    epochs: int = 8
    batch_size: int = 32  # teacher turns per update


@dataclass
class RLConfig:
    """Loss, advantage, budget and step settings. Defaults are the quick CPU demo (tiny model,
    action tokens, dummy/arrow-1); the paper's settings are the experiment presets."""

    loss: str = "dppo"  # dppo | ipo; each loss reads its own section
    ipo: IPOConfig = field(default_factory=IPOConfig)
    dppo: DPPOConfig = field(default_factory=DPPOConfig)
    advantage: str = "group_mean"  # group_mean | group_std | leave_one_out | rae | crab
    advantage_kwargs: Dict[str, Any] = field(default_factory=dict)  # e.g. {kappa: 4.0} for crab
    # per-decision state-value term beta * (V(s_{t+1}) - V(s_t)) on each turn of a game with V(s)
    # (the zero-sum templates; gamesmith.md §5.3, on by default as in the paper's runs; shaping,
    # not a baseline); 0 turns it off. Tasks without V(s) are unaffected.
    state_value_beta: float = 1.0
    lr: float = 2.0e-3
    group_size: int = 16  # G episodes of one task on distinct seeds
    groups_per_update: int = 2  # K groups per update
    rollout_budget: int = 1920  # total rollouts; updates = budget / (G * K)
    max_turns: Optional[int] = None  # cap on turns per episode (null = the task's max_steps)
    call_budget: int = 300  # harness=witness: model calls per training episode (witness.md §2.3: 300 in RL)
    max_seq_len: int = 32768  # trainer sequence length; a longer sample is an error
    micro_batch_size: int = 32  # samples (turns) per micro-batch
    bucket: int = 64  # sample lengths round up to bucket * 2^k
    compute_dtype: str = "float32"  # float32 | bfloat16 (master weights stay float32)
    remat: bool = False
    action_tokens: bool = True  # toy mode: prefill <action>, sample one action-name token
    opponent: str = "self"  # multi-seat tasks: self | random | scripted | checkpoint:<dir> | vllm (rl/seating.py)
    opponent_server: ServerConfig = field(default_factory=ServerConfig)  # rl.opponent=vllm: the opponent's server
    train_seats: Any = "all"  # multi-seat tasks: all | [0] | [1] ... (rl/seating.py)
    mode: str = "rl"  # rl (rollouts + advantages) | sft (distillation on rl.sft.data; rl/sft.py)
    sft: SFTConfig = field(default_factory=SFTConfig)
    task_weights: Dict[str, float] = field(default_factory=dict)  # glob -> weight: weighted group draws (rl/mixture.py)
    # cycle: tasks in turn | uniform: groups drawn uniformly over (variant, seat), the encoding
    # drawn per episode (zero-sum corpus, gamesmith.md §5.2; rl/variants.py)
    variant_sampling: str = "cycle"
    # Level-set tasks (procgen): train (and evaluate held-out seeds) on level seeds
    # [start_level, start_level + num_levels); null = each task's default set (200 levels from 0),
    # 0 = every training level. Tasks without level sets ignore both.
    num_levels: Optional[int] = None
    start_level: int = 0


@dataclass
class MeshConfig:
    data: int = -1  # data/FSDP axis size (-1 = all devices / model)
    model: int = 1  # tensor-parallel axis size
    fsdp: bool = True  # shard parameters and optimizer state over the data axis


@dataclass
class TrainEvalConfig:
    """Held-out evaluation during training (rl/seeds.py evaluation seeds)."""

    every: int = 60  # every N updates (0 = never)
    at_start: bool = True
    seeds: int = 64  # held-out seeds per task
    repeats: int = 1  # episodes per seed
    temperature: Optional[float] = None  # null = policy.temperature
    sampling_seed: int = 12345
    opponent: str = "random"  # multi-seat tasks: who the model meets in held-out evaluation
    tasks: List[str] = field(default_factory=list)  # held-out task ids/globs (empty = the training tasks)
    select: bool = False  # keep the weights of the best held-out return_mean in <out_dir>/best (checkpoint selection)
    call_budget: Optional[int] = None  # harness=witness: model calls per held-out run (null = 1,000)


@dataclass
class LogConfig:
    console: bool = True
    tensorboard: bool = False  # needs torch.utils.tensorboard


@dataclass
class TrainConfig:
    """conf/train.yaml: group-relative RL of a language-model policy (rl/trainer.py)."""

    model: ModelConfig = field(default_factory=lambda: ModelConfig(random_init_std=0.02))  # demo: fresh weights
    policy: Any = MISSING  # a conf/policy preset: LocalPolicyConfig or VLLMPolicyConfig
    rl: RLConfig = field(default_factory=RLConfig)
    tasks: TaskSetConfig = field(default_factory=TaskSetConfig)
    harness: HarnessSettings = field(default_factory=HarnessSettings)
    seed: int = 0  # sampling seed base (update u samples with seed*1000003 + u)
    out_dir: str = "${hydra:runtime.output_dir}"  # metrics.jsonl, config.json, checkpoints/, weights/
    ckpt_dir: Optional[str] = None  # null = ${out_dir}/checkpoints
    ckpt_every: int = 0  # updates between checkpoints (and always at the end); 0 = never
    ckpt_keep: int = 3
    resume: bool = False  # continue from the latest checkpoint in ckpt_dir (exactly)
    stop_after: Optional[int] = None  # stop after this many updates in this invocation
    mesh: MeshConfig = field(default_factory=MeshConfig)
    eval: TrainEvalConfig = field(default_factory=TrainEvalConfig)
    server: ServerConfig = field(default_factory=ServerConfig)
    log: LogConfig = field(default_factory=LogConfig)
    distributed: DistributedConfig = field(default_factory=DistributedConfig)  # multi-host (rl/distributed.py)


# Keys that moved: an override of the old name is refused with the new one.
MOVED_KEYS = {
    "rl.max_new_tokens": "policy.max_new_tokens",
    "rl.temperature": "policy.temperature",
}


def register_policy_schemas(cs: ConfigStore) -> None:
    """`schema/policy/{array,local,vllm}`: what conf/policy/*.yaml presets extend."""
    cs.store(group="schema/policy", name="array", node=ArrayPolicyConfig)
    cs.store(group="schema/policy", name="local", node=LocalPolicyConfig)
    cs.store(group="schema/policy", name="vllm", node=VLLMPolicyConfig)


def register_train_schema() -> None:
    """Register `schema/train` (conf/train.yaml's base) and the policy schemas (idempotent)."""
    cs = ConfigStore.instance()
    cs.store(group="schema", name="train", node=TrainConfig)
    register_policy_schemas(cs)


