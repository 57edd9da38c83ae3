"""The group-relative RL loop: rollouts -> advantages -> one jitted update -> weight push.

Per update: K groups (rl.groups_per_update); each group is G episodes (rl.group_size) of one task
on distinct training seeds (rl/seeds.py: per-task cursors from TRAIN_SEEDS_START, never reaching
the evaluation range); tasks are taken in turn from the configured task set (a task cursor).
All K*G episodes are played in one batched call of the rollout engine (rl.rollout.run_rollouts);
every turn of every episode becomes one training sample (its exact prompt ids + sampled
completion ids + sampler log-probs) carrying its episode's advantage. Multi-seat tasks (rl/seating.py):
`rl.opponent` seats the policy against itself or an array player, `rl.train_seats` picks the seats
whose turns are trained, and advantages are grouped per (group, seat). Budget: rl.rollout_budget
B gives B / (G*K) updates. After each update the sampler gets the new weights:
`local` in memory (LocalPolicy.update_model), `vllm` through HF safetensors written with
rl.models.hf_io and pause / reload_weights / resume on the server (the weight version is logged).

Everything a user can get wrong is checked by `validate` before a model is loaded or a server
is used for sampling (budget divisibility, unknown loss/estimator/task, missing checkpoint when
resuming, unreachable server). A server that dies or keeps failing mid-run ends `run` with a
PolicyServerError that names the last checkpoint and says to resume with resume=true.

Constrained actions (`policy.constrained_actions: true`, **ours**, for toy runs whose action names
are several tokens, e.g. Tic-Tac-Toe's cells with the tiny tokenizer): the local sampler decodes
`<action>` + one of the turn's legal names (from `env.legal`) + a stop token through a token trie
(rl/policies/local.py). Each sample carries per completion token the set of ids the sampler's
masked distribution was over (`Sample.allowed`), and the train step renormalises its own
log-softmax over exactly that set (rl/train_step.py `token_logprobs`). So the trainer's p and the
sampler's q are the same masked distribution (ratio 1 on-policy, the loss's importance ratio and
its gradient are those of the policy that actually played), the tokens trained on are exactly the
sampled ones, and `<action>` stays a prompt token, never trained.

Action-token mode (`rl.action_tokens: true`, **ours**, for toy runs and the learnability test): the
assistant turn is prefilled with `<action>` and the one sampled token is restricted to the task's
action names (each must be a single token); the trainer applies the same restriction to its
log-softmax, so p and q are the same distribution. A random model then plays at chance
(0.25 on dummy/arrow-1) instead of never emitting a parseable tag.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import time
from pathlib import Path
from typing import Any, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.witness.games import check_training_ids
from glyphjax.zerosum.splits import check_not_heldout
from rl import checkpoint as ckpt
from rl import seating
from rl import seeds as seedlib
from rl.advantages import ESTIMATORS, make_estimator, tau2_encoding
from rl.losses import LOSSES
from rl.policies.base import Completion, FINISH_STOP, SamplingParams
from rl.policies.vllm import PolicyServerError  # stdlib-only client module: cheap to import
from rl.train_step import Sample, StepConfig, TrainStep

POLICIES = ("local", "vllm")
log = logging.getLogger(__name__)


class ConfigError(ValueError):
    """A training configuration that cannot run; the message says which key and what to do."""


def _get(cfg: Any, path: str, default: Any = None) -> Any:
    cur = cfg
    for part in path.split("."):
        if cur is None:
            return default
        cur = cur.get(part) if hasattr(cur, "get") else getattr(cur, part, None)
    return default if cur is None else cur


@dataclasses.dataclass
class Plan:
    """What a validated config will do."""

    task_ids: list[str]
    group_size: int
    groups_per_update: int
    rollout_budget: int
    num_updates: int
    policy: str
    out_dir: Path
    ckpt_dir: Path
    resume_step: int | None
    opponent: str = "self"  # multi-seat tasks: rl.opponent
    train_seats: tuple[int, ...] | None = None  # multi-seat tasks: rl.train_seats (None = all)
    mode: str = "rl"  # rl | sft (rl/sft.py)
    envs: dict = dataclasses.field(default_factory=dict)  # level-set tasks over rl.num_levels/start_level
    eval_ids: list = dataclasses.field(default_factory=list)  # eval.tasks expanded (empty = task_ids)


def validate(cfg: Any) -> Plan:
    """Check everything cheap first; raise ConfigError naming the key and the fix."""
    rl = _get(cfg, "rl")
    if rl is None:
        raise ConfigError("config has no `rl` section; use conf/train.yaml (glyphjax-train) or pass rl=default")
    loss = _get(cfg, "rl.loss")
    if loss not in LOSSES:
        raise ConfigError(f"unknown rl.loss={loss!r}; choose one of {', '.join(LOSSES)}")
    from rl.losses import token_terms_fn
    try:
        token_terms_fn(loss, **dict(_get(cfg, f"rl.{loss}", {}) or {}))
    except TypeError as e:
        raise ConfigError(f"rl.{loss} has a setting the {loss} loss does not take: {e}") from None
    adv = _get(cfg, "rl.advantage", "group_mean")
    if adv not in ESTIMATORS:
        raise ConfigError(f"unknown rl.advantage={adv!r}; choose one of {', '.join(ESTIMATORS)}")
    g, k, b = (_get(cfg, "rl.group_size"), _get(cfg, "rl.groups_per_update", 1), _get(cfg, "rl.rollout_budget"))
    for name, v in (("rl.group_size", g), ("rl.groups_per_update", k), ("rl.rollout_budget", b)):
        if not isinstance(v, int) or v < 1:
            raise ConfigError(f"{name} must be a positive integer, got {v!r}")
    if b % (g * k):
        raise ConfigError(f"rl.rollout_budget={b} is not a multiple of rl.group_size * rl.groups_per_update = "
                          f"{g} * {k} = {g * k}; each update uses exactly {g * k} rollouts. Pick a budget such "
                          f"as {max(1, b // (g * k)) * g * k} or change the group size")
    shares = _get(cfg, "distributed.rollout_shares")
    if shares is not None and (not isinstance(shares, int) or shares < 1 or k % shares):
        raise ConfigError(f"distributed.rollout_shares={shares!r} must be a positive integer dividing "
                          f"rl.groups_per_update={k} (each share is a whole number of groups)")
    lr = _get(cfg, "rl.lr")
    if not isinstance(lr, (int, float)) or not lr > 0:
        raise ConfigError(f"rl.lr must be a positive number, got {lr!r}")
    ids = _training_ids(cfg)
    try:
        check_training_ids(ids)
        check_not_heldout(ids)
    except ValueError as e:
        raise ConfigError(f"tasks.ids: {e}") from None
    eval_ids = _eval_ids(cfg)
    opponent, train_seats = _seating(cfg, ids)
    _check_variant_sampling(cfg)
    envs = _level_envs(ids, _get(cfg, "rl.num_levels"), _get(cfg, "rl.start_level", 0))
    policy = _get(cfg, "policy.name")
    if policy not in POLICIES:
        raise ConfigError(f"policy={policy!r} cannot be trained; use policy=local or policy=vllm")
    if _get(cfg, "policy.constrained_actions", False):
        if policy != "local":
            raise ConfigError("policy.constrained_actions=true needs policy=local (the JAX sampler decodes through "
                              "the legal-action trie)")
        if _get(cfg, "rl.action_tokens", False):
            raise ConfigError("policy.constrained_actions=true and rl.action_tokens=true are two action modes; "
                              "set rl.action_tokens=false")
    _check_model(cfg)
    out_dir = Path(_get(cfg, "out_dir", "runs/train"))
    ckpt_dir = Path(_get(cfg, "ckpt_dir") or out_dir / "checkpoints")
    resume_step = None
    if _get(cfg, "resume", False):
        if not ckpt_dir.is_dir():
            raise ConfigError(f"resume=true but {ckpt_dir} does not exist; set ckpt_dir=<run>/checkpoints or resume=false")
        resume_step = ckpt.latest_step(str(ckpt_dir))
        if resume_step is None:
            raise ConfigError(f"resume=true but {ckpt_dir} holds no checkpoint; start with resume=false")
    updates = b // (g * k)
    mode = _get(cfg, "rl.mode", "rl")
    if mode not in ("rl", "sft"):
        raise ConfigError(f"unknown rl.mode={mode!r}; choose rl (rollouts) or sft (distillation on rl.sft.data)")
    if mode == "sft":
        updates = _sft_updates(cfg)
    if policy == "vllm":
        url = _get(cfg, "server.url")
        if not url:
            raise ConfigError("policy=vllm needs server.url=http://HOST:PORT of a running vLLM server "
                              "(scripts/launch_vllm.py)")
        from rl.policies.vllm import PolicyServerError, make_vllm_policy
        try:  # the client may probe the server on construction; either way it is checked here
            client = make_vllm_policy(_get(cfg, "policy"), url, _get(cfg, "server.model"))
            try:
                client.check_server()
            finally:
                client.close()
        except PolicyServerError as e:
            raise ConfigError(f"vLLM server at {url} is not usable: {e}") from None
    return Plan(ids, g, k, b, updates, policy, out_dir, ckpt_dir, resume_step, opponent, train_seats, mode, envs,
                eval_ids)


def _eval_ids(cfg: Any) -> list[str]:
    """eval.tasks (ids and globs) expanded; WITNESS test games are refused (checkpoints are chosen
    on validation games, witness.md §9)."""
    from glyphjax.core.registry import task_ids
    ids = []
    for pattern in list(_get(cfg, "eval.tasks", []) or []):
        found = task_ids(pattern)
        if not found:
            raise ConfigError(f"eval.tasks: {pattern!r} matches no registered task")
        ids += [t for t in found if t not in ids]
    try:
        check_training_ids(ids, allowed=("train", "val"))
    except ValueError as e:
        raise ConfigError(f"eval.tasks: {e}; choose checkpoints on witness/val/* games") from None
    return ids


def _check_variant_sampling(cfg: Any) -> None:
    """rl.variant_sampling is a known sampler and not combined with another group draw."""
    from rl.variants import SAMPLERS
    how = _get(cfg, "rl.variant_sampling", "cycle")
    if how not in SAMPLERS:
        raise ConfigError(f"unknown rl.variant_sampling={how!r}; choose one of {', '.join(SAMPLERS)}")
    if how == "uniform" and (_get(cfg, "rl.task_weights") or _get(cfg, "tasks.mixture")):
        raise ConfigError("rl.variant_sampling=uniform draws groups uniformly over the variants; it cannot be "
                          "combined with rl.task_weights or tasks.mixture (drop one of them)")


def _sft_updates(cfg: Any) -> int:
    """The number of distillation updates rl.sft asks for (teacher files read and counted)."""
    from rl import sft
    data = list(_get(cfg, "rl.sft.data", []) or [])
    if not data:
        raise ConfigError("rl.mode=sft needs rl.sft.data=[FILE.jsonl, ...]: trajectory files of teacher episodes "
                          "(e.g. written by rl.teacher or glyphjax-eval with a trajectory output)")
    try:
        n = sft.count_samples(sft.read_teacher(data))
        return sft.Schedule(n, int(_get(cfg, "rl.sft.batch_size", 32)), int(_get(cfg, "rl.sft.epochs", 8)),
                            int(cfg.get("seed", 0))).num_updates
    except (FileNotFoundError, ValueError) as e:
        raise ConfigError(f"rl.sft: {e}") from None


def _training_ids(cfg: Any) -> list[str]:
    """tasks.mixture (a quota per suite, rl/mixture.py) or tasks.ids (ids and globs)."""
    from glyphjax.core.registry import UnknownTaskError, task_ids
    from rl.mixture import mixture_tasks, task_weights
    quota = _get(cfg, "tasks.mixture")
    if quota:
        try:
            ids, short = mixture_tasks(dict(quota))
        except ValueError as e:
            raise ConfigError(str(e)) from None
        if not ids:
            raise ConfigError(f"tasks.mixture {dict(quota)} selects no registered task (suites missing: {sorted(short)})")
        if short:
            log.info("tasks.mixture: %d tasks; not (yet) registered: %s", len(ids), short)
    else:
        ids_cfg = _get(cfg, "tasks.ids")
        if not ids_cfg:
            raise ConfigError("tasks.ids is empty; choose a task set, e.g. tasks=snake_easy or tasks.ids='[dummy/arrow-1]'")
        try:
            ids = task_ids(list(ids_cfg))
        except UnknownTaskError as e:
            raise ConfigError(f"tasks.ids: {e}") from None
    try:
        task_weights(ids, dict(_get(cfg, "rl.task_weights", {}) or {}))
    except ValueError as e:
        raise ConfigError(str(e)) from None
    return ids


def _level_envs(ids: list[str], num_levels: Any, start_level: Any) -> dict:
    """Task id -> its Env over training levels [start_level, start_level + num_levels) for the
    tasks with level sets (`with_levels`, Procgen); {} when both keys are at their defaults."""
    from glyphjax.core.registry import make
    if num_levels is None and start_level == 0:
        return {}
    for name, v in (("rl.num_levels", num_levels), ("rl.start_level", start_level)):
        if v is not None and (not isinstance(v, int) or v < 0):
            raise ConfigError(f"{name} must be an integer >= 0 (0 levels = every training level), got {v!r}")
    envs = {t: make(t) for t in ids}
    envs = {t: e for t, e in envs.items() if hasattr(e, "with_levels")}
    if not envs:
        raise ConfigError("rl.num_levels / rl.start_level choose the training levels of level-set tasks "
                          "(procgen/*), and tasks.ids has none; drop them or train on procgen tasks")
    count = {} if num_levels is None else {"num_levels": num_levels}  # None: the task's default count
    try:
        return {t: e.with_levels(start_level=start_level, **count) for t, e in envs.items()}
    except ValueError as e:
        raise ConfigError(f"rl.num_levels={num_levels}, rl.start_level={start_level}: {e}") from None


def _seating(cfg: Any, ids: list[str]) -> tuple[str, tuple[int, ...] | None]:
    """rl.opponent and rl.train_seats (and eval.opponent), checked against the task set."""
    try:
        train_seats = seating.parse_train_seats(_get(cfg, "rl.train_seats", "all"))
        opponent = _get(cfg, "rl.opponent", "self")
        seating.check_seating(ids, opponent, train_seats)
        seating.check_seating(ids, _get(cfg, "eval.opponent", opponent), train_seats, key="eval.opponent")
    except ValueError as e:
        raise ConfigError(str(e)) from None
    _check_text_opponent(cfg, opponent)
    return opponent, train_seats


def _check_text_opponent(cfg: Any, opponent: str) -> None:
    """A frozen text opponent (rl.opponent=checkpoint:<dir> | vllm) must be reachable before training."""
    evaluated = _get(cfg, "eval.opponent", opponent)
    if seating.is_text_opponent(evaluated) and evaluated != opponent:
        raise ConfigError(f"eval.opponent={evaluated} is a text policy; it can only be the training opponent "
                          f"(rl.opponent={evaluated}); use eval.opponent=random or scripted")
    if opponent.startswith(seating.CHECKPOINT):
        path = Path(os.path.expanduser(opponent[len(seating.CHECKPOINT):]))
        if not (path / "config.json").is_file():
            raise ConfigError(f"rl.opponent={opponent}: {path} has no config.json; give a model directory or a "
                              "glyphjax-train run directory (its exported model)")
    if opponent == "vllm" and not _get(cfg, "rl.opponent_server.url"):
        raise ConfigError("rl.opponent=vllm needs rl.opponent_server.url=http://HOST:PORT of the vLLM server "
                          "serving the opponent (rl.opponent_server.model: its name, null = the only one)")


def _check_model(cfg: Any) -> None:
    """model.path must exist; the demo's fresh random weights never silently replace a given checkpoint."""
    path = _get(cfg, "model.path")
    if path is None:
        return
    if not Path(os.path.expanduser(str(path))).exists():
        raise ConfigError(f"model.path={path} does not exist; give a Hugging Face checkpoint directory (config.json, "
                          "*.safetensors, tokenizer files) or a training run directory, or leave model.path unset "
                          "for the tiny test model")
    from rl.tokenizer import tokenizer_files_problem
    hf_dir = (Path(os.path.expanduser(str(path))) / "config.json").is_file()  # not a training run directory
    problem = tokenizer_files_problem(path) if hf_dir else None
    if problem:
        raise ConfigError(f"model.path: {problem}")
    std = _get(cfg, "model.random_init_std")
    if std:
        raise ConfigError(f"model.random_init_std={std} (the demo's setting) would replace the weights of "
                          f"model.path={path} by random ones; add +experiment=glyphbench for the paper settings, "
                          "or set model.random_init_std=null")


def start_banner(trainer: "Trainer") -> str:
    """One line before the first rollout: model size, updates, rollouts per update, tasks, out dir."""
    p = trainer.plan
    n_params = sum(int(np.prod(x.shape)) for x in jax.tree_util.tree_leaves(trainer.step.params))
    tasks = ", ".join(p.task_ids[:3]) + (f" (+{len(p.task_ids) - 3} more)" if len(p.task_ids) > 3 else "")
    given = _get(trainer.cfg, "model.path")
    model = trainer.model_path if given else _get(trainer.cfg, "model.name", trainer.model_path)
    if p.mode == "sft":
        sc = trainer.cfg["rl"]["sft"]
        return (f"glyphjax-train: {model} ({n_params / 1e6:.2f}M params), distillation: {p.num_updates} updates of "
                f"{sc['batch_size']} teacher turns ({len(trainer.sft_samples)} turns x {sc['epochs']} epochs); "
                f"evaluated on {tasks}; out {p.out_dir}")
    return (f"glyphjax-train: {model} ({n_params / 1e6:.2f}M params), "
            f"policy {p.policy}, {p.num_updates} updates x {p.group_size * p.groups_per_update} rollouts "
            f"({p.groups_per_update} x G={p.group_size}) on {tasks}; out {p.out_dir}")


# --- action-token policy (toy / learnability) ----------------------------------------------------

def action_token_ids(tokenizer: Any, actions: Sequence[str]) -> list[int]:
    ids = []
    for name in actions:
        toks = tokenizer.hf.encode(name, add_special_tokens=False)
        if len(toks) != 1:
            raise ConfigError(f"rl.action_tokens=true needs every action name to be one token; {name!r} is "
                              f"{len(toks)} tokens in this tokenizer. Use rl.action_tokens=false")
        ids.append(toks[0])
    return ids


class ActionTokenPolicy:
    """Samples one action-name token after a prefilled `<action>` (see module docstring)."""

    name = "local-action-token"

    def __init__(self, model: Any, tokenizer: Any, action_names: Sequence[str], bucket: int = 64):
        from rl.models.qwen3 import positions_from_mask
        self.tokenizer = tokenizer
        self.names = list(action_names)
        self.allowed = action_token_ids(tokenizer, self.names)
        self.prefix = tokenizer.hf.encode("<action>", add_special_tokens=False)
        self.bucket = bucket
        self.update_model(model)
        allowed = jnp.asarray(self.allowed, jnp.int32)

        def last_logits(graphdef, state, tokens, mask):
            from flax import nnx
            model = nnx.merge(graphdef, state)
            logits = model(tokens, positions_from_mask(mask), mask)
            last = jnp.sum(mask, axis=1) - 1
            return jnp.take_along_axis(logits, last[:, None, None], axis=1)[:, 0][:, allowed]
        self._logits = jax.jit(last_logits, static_argnums=0)

    def update_model(self, model: Any) -> None:
        from flax import nnx
        self._graphdef, self._state = nnx.split(model)

    def complete(self, conversations, sampling: SamplingParams) -> list[Completion]:
        prompts = [p + self.prefix for p in self.tokenizer.encode_conversations(conversations)]
        n = len(prompts)
        rows = 1 << max(0, (n - 1).bit_length())
        length = self.bucket * math.ceil(max(len(p) for p in prompts) / self.bucket)
        tokens = np.zeros((rows, length), np.int32)
        mask = np.zeros((rows, length), np.int32)
        for i, p in enumerate(prompts):
            tokens[i, :len(p)] = p
            mask[i, :len(p)] = 1
        mask[n:, 0] = 1
        logits = self._logits(self._graphdef, self._state, jnp.asarray(tokens), jnp.asarray(mask))[:n]
        logits = logits / max(sampling.temperature, 1e-6)
        logp = jax.nn.log_softmax(logits, axis=-1)
        key = jax.random.PRNGKey(sampling.seed)
        choice = np.asarray(jax.random.categorical(key, logits, axis=-1))
        logp = np.asarray(logp)
        out = []
        for i in range(n):
            c = int(choice[i])
            out.append(Completion(text=f"<action>{self.names[c]}</action>", prompt_ids=list(prompts[i]),
                                  completion_ids=[self.allowed[c]], logprobs=[float(logp[i, c])],
                                  finish_reason=FINISH_STOP))
        return out


# --- the loop -----------------------------------------------------------------------------------

class MetricsLog:
    """JSON Lines metrics (one object per update / evaluation), console lines, optional TensorBoard."""

    def __init__(self, path: Path, console: bool = True, tensorboard: bool = False, enabled: bool = True):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.console = console
        self.enabled = enabled  # across processes only process 0 writes
        self.tb = None
        if tensorboard and enabled:
            try:
                from torch.utils.tensorboard import SummaryWriter  # optional
                self.tb = SummaryWriter(str(path.parent / "tb"))
            except Exception:  # TensorBoard is optional; say so once
                print("[glyphjax-train] tensorboard not installed; logging JSONL only")

    def write(self, record: dict) -> None:
        if not self.enabled:
            return
        with open(self.path, "a") as f:
            f.write(json.dumps(record) + "\n")
        if self.tb is not None:
            for k, v in record.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    self.tb.add_scalar(("eval/" if record.get("kind") == "eval" else "train/") + k, v,
                                       record.get("update", 0))
        if self.console:
            if record.get("kind") == "eval":
                print(f"[eval  {record['update']:4d}] return {record['return_mean']:.3f}")
            elif record.get("kind") == "sft":
                print(f"[sft   {record['update']:4d}/{record['num_updates']}] epoch {record['epoch']} "
                      f"samples {record['samples']} loss {record['loss']:.4f} grad {record['grad_norm']:.3f} "
                      f"t(step) {record['time_step']:.1f}s")
            else:
                print(f"[train {record['update']:4d}/{record['num_updates']}] rollouts {record['rollouts']:6d} "
                      f"return {record['return_mean']:.3f} loss {record['loss']:+.4f} "
                      f"grad {record['grad_norm']:.3f} masked {record['masked_token_frac']:.3f} "
                      f"mismatch {record['logp_mismatch']:.2e} parse-fail {record['parse_failures']} "
                      f"t(roll/push/step) {record['time_rollout']:.1f}/{record['time_push']:.1f}/{record['time_step']:.1f}s")


def _to_container(cfg: Any) -> Any:
    try:
        from omegaconf import OmegaConf
        if OmegaConf.is_config(cfg):
            return OmegaConf.to_container(cfg, resolve=True)
    except ImportError:
        pass
    return cfg


def _fingerprint(cfg: dict) -> dict:
    """Config fields a resumed run must share with the original."""
    rl = cfg.get("rl", {})
    fp = {"tasks": list(cfg.get("tasks", {}).get("ids", [])), "group_size": rl.get("group_size"),
          "groups_per_update": rl.get("groups_per_update"), "loss": rl.get("loss"), "lr": rl.get("lr"),
          "seed": cfg.get("seed", 0)}
    seats = {"opponent": rl.get("opponent", "self"), "train_seats": rl.get("train_seats", "all")}
    if seats != {"opponent": "self", "train_seats": "all"}:  # defaults stay out: older checkpoints resume
        fp.update(seats)
    if rl.get("variant_sampling", "cycle") != "cycle":
        fp["variant_sampling"] = rl["variant_sampling"]
    return fp


class Trainer:
    """Builds model, step and policy from a validated config and runs the loop (`run`)."""

    def __init__(self, cfg: Any, plan: Plan | None = None):
        self.plan = plan or validate(cfg)
        self.cfg = _to_container(cfg)
        c, p = self.cfg, self.plan
        from glyphjax.harness.prompt import HarnessConfig
        from rl.models import hf_io
        from rl.tiny import resolve_model_path
        from rl.tokenizer import ChatTokenizer

        self.model_path = resolve_model_path(_get(c, "model.path"), seed=int(_get(c, "model.seed", 0)))
        model = hf_io.load_model(self.model_path, dtype=_get(c, "model.dtype"))
        init_std = _get(c, "model.random_init_std")
        if init_std:  # fresh random weights of the checkpoint's architecture (learnability runs)
            from flax import nnx
            from rl.models.qwen3 import Qwen3ForCausalLM
            model = Qwen3ForCausalLM(model.config, rngs=nnx.Rngs(int(_get(c, "model.seed", 0))),
                                     init_std=float(init_std))
        self.tokenizer = ChatTokenizer.from_pretrained(self.model_path)
        h = _get(c, "harness", {}) or {}
        self.harness = HarnessConfig(name=h.get("name", "basic"), history=int(h.get("history", 0)),
                                     memory=bool(h.get("memory", False)), memory_chars=int(h.get("memory_chars", 2000)),
                                     obs_format=str(h.get("obs_format", "glyph")))
        rl = c["rl"]
        self.allowed = None
        if rl.get("action_tokens"):
            from glyphjax.core.registry import make
            names = {tuple(make(t).card.actions) for t in p.task_ids}
            if len(names) != 1:
                raise ConfigError("rl.action_tokens=true needs every task in the set to share one action list")
            self.action_names = list(names.pop())
            self.allowed = action_token_ids(self.tokenizer, self.action_names)
        mesh_cfg = _get(c, "mesh", {}) or {}
        from rl import sharding as S
        mesh = S.make_mesh(int(mesh_cfg.get("data", -1)), int(mesh_cfg.get("model", 1)))
        sft_mode = p.mode == "sft"
        step_cfg = StepConfig(loss="sft" if sft_mode else rl["loss"],
                              loss_kwargs={} if sft_mode else dict(rl.get(rl["loss"]) or {}), lr=float(rl["lr"]),
                              compute_dtype=rl.get("compute_dtype", "float32"), remat=bool(rl.get("remat", False)),
                              temperature=float(_get(c, "policy.temperature")), fsdp=bool(mesh_cfg.get("fsdp", True)),
                              window=hasattr(model, "hidden_states") and hasattr(model, "logits"))
        logit_filter = None
        if self.allowed is not None:
            allowed = jnp.asarray(self.allowed, jnp.int32)

            def logit_filter(logits):  # same restriction as the sampler: logits of action tokens only
                return jnp.full_like(logits, -1e9).at[..., allowed].set(logits[..., allowed])
        self.step = TrainStep(model, step_cfg, mesh, logit_filter=logit_filter)
        self.state_value_beta = float(rl.get("state_value_beta", 0.0) or 0.0)
        self.estimator = make_estimator(rl.get("advantage", "group_mean"), **dict(rl.get("advantage_kwargs") or {}))
        self.sampling = SamplingParams(temperature=float(_get(c, "policy.temperature")),  # the policy owns sampling
                                       top_p=float(_get(c, "policy.top_p")), top_k=int(_get(c, "policy.top_k")),
                                       max_new_tokens=int(_get(c, "policy.max_new_tokens")), seed=int(c.get("seed", 0)))
        self.policy = self._make_policy(model)
        self.opponent_policy = self._make_opponent()
        if sft_mode:
            self._load_teacher()
        self.update = 0
        self.task_cursor = 0
        self.shares = int(_get(c, "distributed.rollout_shares") or jax.process_count())  # rl/distributed.py
        if self.shares % jax.process_count():
            raise ConfigError(f"distributed.rollout_shares={self.shares} must be a multiple of the "
                              f"{jax.process_count()} processes (each plays the same number of shares)")
        self.pool = None  # rl.variant_sampling=uniform: the (variant, seat) pairs and encodings (rl/variants.py)
        self.draws = None  # this update's group draws under rl.variant_sampling=uniform
        self.seed_cursor: dict[str, int] = {t: 0 for t in p.task_ids}
        self.weight_version = 0
        self.best: tuple[float, int] | None = None  # eval.select: (best held-out return_mean, its update)
        self.log = MetricsLog(p.out_dir / "metrics.jsonl", console=bool(_get(c, "log.console", True)),
                              tensorboard=bool(_get(c, "log.tensorboard", False)), enabled=jax.process_index() == 0)
        p.out_dir.mkdir(parents=True, exist_ok=True)
        if jax.process_index() == 0:
            (p.out_dir / "config.json").write_text(json.dumps(c, indent=1, default=str))
        if p.resume_step is not None:
            self._restore()

    def _load_teacher(self) -> None:
        """The teacher samples tokenized for this student and their schedule (rl/sft.py)."""
        from rl import sft
        sc = self.cfg["rl"]["sft"]
        records = sft.read_teacher(list(sc["data"]))
        action_ids = dict(zip(self.action_names, self.allowed)) if self.allowed is not None else None
        prefix = self.tokenizer.hf.encode("<action>", add_special_tokens=False) if action_ids else []
        self.sft_samples = sft.teacher_samples(records, self.tokenizer, action_ids, prefix)
        self.schedule = sft.Schedule(len(self.sft_samples), int(sc["batch_size"]), int(sc["epochs"]),
                                     int(self.cfg.get("seed", 0)))

    def sft_update(self) -> dict:
        """One distillation step on the schedule's batch for this update."""
        rl = self.cfg["rl"]
        t0 = time.perf_counter()
        samples = [self.sft_samples[i] for i in self.schedule.indices(self.update)]
        batch = self.step.build(samples, int(rl.get("micro_batch_size", 8)), bucket=int(rl.get("bucket", 64)),
                                max_length=rl.get("max_seq_len"))
        metrics = self.step.step(batch)
        t1 = time.perf_counter()
        self.update += 1
        self.push_weights()
        rec = {"kind": "sft", "update": self.update, "num_updates": self.plan.num_updates,
               "epoch": (self.update - 1) // self.schedule.per_epoch, "samples": len(samples),
               "loss": metrics.get("loss", 0.0), "grad_norm": metrics.get("grad_norm", 0.0),
               "trainable_tokens": metrics.get("trainable_tokens", 0.0), "weight_version": self.weight_version,
               "time_step": t1 - t0, "lr": float(rl["lr"])}
        self.log.write(rec)
        return rec

    # -- policy ------------------------------------------------------------------------------------
    def _make_opponent(self):
        """rl.opponent=checkpoint:<dir> or vllm: the frozen text policy of the other seat (rl/seating.py)."""
        opponent = self.plan.opponent
        if not seating.is_text_opponent(opponent):
            return None
        from rl.llm_eval import make_policy
        if opponent == "vllm":
            return seating.FrozenOpponent(make_policy("vllm", model=_get(self.cfg, "rl.opponent_server.model"),
                                                      server_url=_get(self.cfg, "rl.opponent_server.url")))
        return seating.FrozenOpponent(make_policy("local", model=opponent[len(seating.CHECKPOINT):]))

    def _make_policy(self, model):
        c = self.cfg
        if self.allowed is not None:
            return ActionTokenPolicy(model, self.tokenizer, self.action_names)
        if self.plan.policy == "local":
            from rl.policies.local import DEFAULT_BATCH_BUCKETS, LocalPolicy
            pc = c.get("policy", {})
            return LocalPolicy(model, self.tokenizer, batch_buckets=tuple(pc.get("batch_buckets") or DEFAULT_BATCH_BUCKETS),
                               min_prompt_bucket=int(pc.get("min_prompt_bucket") or 64),
                               min_new_tokens_bucket=int(pc.get("min_new_tokens_bucket") or 16),
                               constrained_actions=bool(pc.get("constrained_actions") or False))
        from rl.policies.vllm import make_vllm_policy
        return make_vllm_policy(c["policy"], _get(c, "server.url"), _get(c, "server.model"))

    def push_weights(self) -> None:
        """Give the sampler the trainer's current weights; bump the weight version."""
        self.weight_version += 1
        if self.plan.policy == "vllm" and self.allowed is None:
            from rl.models import hf_io
            n, rank = jax.process_count(), jax.process_index()  # one server per process: its own copy
            path = self.plan.out_dir / "weights" / ("current" if n == 1 else f"current-{rank}")
            hf_io.save_model(self.step.model(), path, copy_tokenizer_from=self.model_path,
                              untie=True)  # vLLM 0.32 keeps a tied model's old lm_head on reload
            (path / "glyphjax_weight_version.json").write_text(json.dumps({"version": self.weight_version,
                                                                           "update": self.update}))
            self.policy.pause()
            try:
                self.policy.reload_weights(str(path.resolve()))
            finally:
                self.policy.resume()
        else:
            self.policy.update_model(self.step.model())

    # -- checkpoints -------------------------------------------------------------------------------
    def _meta(self) -> dict:
        return {"update": self.update, "task_cursor": self.task_cursor, "seed_cursor": self.seed_cursor,
                "weight_version": self.weight_version, "estimator": self.estimator.state_dict(),
                "rng": list(np.asarray(jax.random.key_data(jax.random.PRNGKey(int(self.cfg.get("seed", 0))))).tolist()),
                "fingerprint": _fingerprint(self.cfg),
                **({"best": list(self.best)} if self.best is not None else {})}

    def save(self) -> None:
        ckpt.save(str(self.plan.ckpt_dir), self.update, self.step.params, self.step.opt_state, self._meta(),
                  max_to_keep=int(_get(self.cfg, "ckpt_keep", 3)))

    def _restore(self) -> None:
        params, opt_state, meta = ckpt.restore(str(self.plan.ckpt_dir), self.step.params, self.step.opt_state,
                                               self.step.param_sh, self.step.opt_sh, self.plan.resume_step)
        want, got = _fingerprint(self.cfg), meta.get("fingerprint", {})
        if got and got != want:
            diff = {k: (got.get(k), want.get(k)) for k in want if got.get(k) != want.get(k)}
            raise ConfigError(f"resume=true with a different config than the checkpoint's: {diff} "
                              "(checkpoint value, this config). Resume with the original settings or a new ckpt_dir")
        self.step.load(params, opt_state, meta["update"])
        self.update = int(meta["update"])
        self.task_cursor = int(meta["task_cursor"])
        self.seed_cursor = {k: int(v) for k, v in meta["seed_cursor"].items()}
        self.weight_version = int(meta["weight_version"]) - 1
        self.estimator.load_state_dict(meta.get("estimator", {}))
        self.best = self._restored_best(meta)
        self.push_weights()  # the sampler gets the restored weights (version as saved)

    def _restored_best(self, meta: dict) -> tuple[float, int] | None:
        """eval.select's best (held-out score, update) on resume: the better of the checkpoint's and
        the one <out_dir>/best was saved with (a best found after the last checkpoint, before the
        kill), so a resumed run never replaces better weights in <out_dir>/best with worse ones."""
        found = [tuple(meta["best"])] if meta.get("best") else []
        best_dir = str(self.plan.out_dir / "best")
        step = ckpt.latest_step(best_dir)
        if step is not None:
            saved = ckpt.read_meta(best_dir, step).get("best")
            if saved:
                found.append(tuple(saved))
        if not found:
            return None
        score, update = max(found, key=lambda b: (b[0], -b[1]))  # ties: the earlier update
        return float(score), int(update)

    # -- one update ----------------------------------------------------------------------------------
    def next_groups(self) -> list[tuple[str, list[int]]]:
        """This update's groups: weighted draws over the task list when the run is a mixture
        (rl/mixture.py), else the tasks in turn; each group takes the task's next training seeds."""
        from rl.mixture import draw_groups, task_weights
        p = self.plan
        patterns = dict(_get(self.cfg, "rl.task_weights", {}) or {})
        self.draws = None
        if _get(self.cfg, "rl.variant_sampling", "cycle") == "uniform":
            from rl.variants import draw_update, variant_pool
            if self.pool is None:
                self.pool = variant_pool(p.task_ids, p.opponent, p.train_seats)
            self.draws = draw_update(self.pool, p.groups_per_update, p.group_size, int(_get(self.cfg, "seed", 0)),
                                     self.update)
            tasks = [d.task for d in self.draws]
        elif patterns or _get(self.cfg, "tasks.mixture"):
            tasks = draw_groups(p.task_ids, task_weights(p.task_ids, patterns), p.groups_per_update,
                                int(_get(self.cfg, "seed", 0)), self.update)
        else:
            tasks = [p.task_ids[(self.task_cursor + i) % len(p.task_ids)] for i in range(p.groups_per_update)]
        groups = []
        for task in tasks:
            self.task_cursor += 1
            groups.append((task, seedlib.train_seeds(self.seed_cursor[task], self.plan.group_size)))
            self.seed_cursor[task] += self.plan.group_size
        return groups

    def play(self, groups, update_seed: int) -> list:
        """The update's records, in group order: the groups cut into `self.shares` shares, share k
        played with `share_seed(update_seed, k)` by process k mod n; the other processes' records
        arrive without their turns (rl/distributed.py)."""
        from rl.distributed import allgather_objects, share_seed
        n, size = jax.process_count(), len(groups) // self.shares
        draws = self.draws
        played = {}
        for k in range(jax.process_index(), self.shares, n):
            part = slice(k * size, (k + 1) * size)
            played[k] = self.collect(groups[part], share_seed(update_seed, k),
                                     None if draws is None else draws[part])
        if n > 1:
            for other in allgather_objects({k: [dataclasses.replace(r, turns=[]) for r in recs]
                                            for k, recs in played.items()}):
                for k, recs in other.items():
                    played.setdefault(k, recs)
        return [r for k in range(self.shares) for r in played[k]]

    def collect(self, groups, update_seed: int, draws: Any = None):
        """Play these groups (`draws`: their rl.variant_sampling=uniform draws, default this
        update's); one record per episode and text seat (rl/rollout.py)."""
        draws = self.draws if draws is None else draws
        from rl.rollout import run_rollouts
        episodes = [(task, s) for task, seeds in groups for s in seeds]
        positions = [j for _, seeds in groups for j in range(len(seeds))]
        if hasattr(self.policy, "_calls"):
            self.policy._calls = 0  # LocalPolicy keys fold in a call counter: reset so resumed runs match
        sampling = dataclasses.replace(self.sampling, seed=update_seed)
        if self.harness.name == "witness":  # reflections with rule memory; rl.call_budget calls per episode
            from rl.witness_rollout import run_witness_rollouts
            return run_witness_rollouts(self.policy, episodes, sampling,
                                        call_budget=int(_get(self.cfg, "rl.call_budget", 300)))
        max_turns = _get(self.cfg, "rl.max_turns")
        seats, envs = None, None
        if draws is not None:
            from rl.variants import episode_env
            seats = [d.seat for d in draws for _ in d.encodings]
            envs = [episode_env(d.task, e) for d in draws for e in d.encodings]
        return run_rollouts(self.policy, episodes, self.harness, sampling,
                            opponents=seating.seatings(episodes, positions, self.plan.opponent, self.plan.train_seats,
                                                       seats, self.opponent_policy),
                            max_turns=int(max_turns) if max_turns else None,
                            record_values=self.state_value_beta != 0.0,
                            envs=self.plan.envs, episode_envs=envs)

    def samples_from(self, records, groups) -> tuple[list[Sample], np.ndarray, list]:
        """Training samples of the trained seats' turns, their records' advantages (grouped per
        (group, seat)) plus the state-value term on turns that carry V(s), and those records."""
        records = [r for r in records if seating.trained(r, self.plan.train_seats)]
        adv = seating.seat_advantages(records, groups, self.estimator)
        samples = []
        for i, r in enumerate(records):
            per_turn = turn_advantages(float(adv[i]), r, self.state_value_beta)
            samples.extend(Sample(t.prompt_ids, t.completion_ids, t.logprobs, a, i, t.allowed)
                           for t, a in zip(r.turns, per_turn) if t.completion_ids)
        return samples, adv, records

    def _encodings(self, groups) -> dict:
        """(task, seed) -> the encoding drawn for that episode under rl.variant_sampling=uniform."""
        if self.draws is None:
            return {}
        from rl.variants import encoding_name
        return {(task, s): encoding_name(task, e) for (task, seeds), d in zip(groups, self.draws)
                for s, e in zip(seeds, d.encodings)}

    def train_update(self) -> dict:
        if self.plan.mode == "sft":
            return self.sft_update()
        c, p = self.cfg, self.plan
        groups = self.next_groups()
        t0 = time.perf_counter()
        records = self.play(groups, update_seed=int(c.get("seed", 0)) * 1_000_003 + self.update)
        t1 = time.perf_counter()
        samples, adv, records = self.samples_from(records, groups)
        rl = c["rl"]
        metrics = {}
        if samples or jax.process_count() > 1:  # across processes build() agrees (None: no process has samples)
            batch = self.step.build(samples, int(rl.get("micro_batch_size", 8)), bucket=int(rl.get("bucket", 64)),
                                    max_length=rl.get("max_seq_len"))
            if batch is not None:
                metrics = self.step.step(batch)
        from rl.distributed import allgather_objects
        n_samples = sum(allgather_objects(len(samples)))
        t2 = time.perf_counter()
        self.update += 1
        self.push_weights()
        t3 = time.perf_counter()
        returns = [float(r.episode_return) for r in records]
        rec = {"kind": "train", "update": self.update, "num_updates": p.num_updates,
               "rollouts": self.update * p.group_size * p.groups_per_update, "weight_version": self.weight_version,
               "tasks": [t for t, _ in groups], "seeds": [list(sd) for _, sd in groups], "returns": returns,
               "return_mean": float(np.mean(returns)),
               **_seat_returns(records), **_draw_log(self.draws),
               **_estimator_log(self.estimator, adv, records, self._encodings(groups)),
               "length_mean": float(np.mean([r.length for r in records])),
               "prompt_tokens": int(sum(r.prompt_tokens for r in records)),
               "completion_tokens": int(sum(r.completion_tokens for r in records)),
               "parse_failures": int(sum(r.parse_failures for r in records)),
               "truncations": int(sum(r.truncations for r in records)), "samples": n_samples,
               "adv_abs_mean": float(np.mean(np.abs(adv))) if len(adv) else 0.0,
               "loss": metrics.get("loss", 0.0), "grad_norm": metrics.get("grad_norm", 0.0),
               "masked_token_frac": metrics.get("masked_token_frac", 0.0),
               "logp_mismatch": metrics.get("logp_mismatch", 0.0), "ratio_mean": metrics.get("ratio_mean", 1.0),
               "trainable_tokens": metrics.get("trainable_tokens", 0.0),
               "time_rollout": t1 - t0, "time_step": t2 - t1, "time_push": t3 - t2,
               "lr": float(rl["lr"]), "group_size": p.group_size}
        self.log.write(rec)
        return rec

    def evaluate(self) -> dict:
        """Held-out return through glyphjax-eval's code path (rl.llm_eval.evaluate_per_task) on
        eval.tasks (default the training tasks); with eval.select, a new best return_mean keeps
        the weights in <out_dir>/best."""
        from rl.llm_eval import evaluate_per_task
        tasks = self.plan.eval_ids or self.plan.task_ids
        n = int(_get(self.cfg, "eval.seeds", 4))
        repeats = int(_get(self.cfg, "eval.repeats", 1))
        seeds = seedlib.eval_seeds(n)
        opponents = self._eval_opponents([int(s) for s in seeds for _ in range(repeats)], tasks)
        sampling = dataclasses.replace(self.sampling, seed=int(_get(self.cfg, "eval.sampling_seed", 12345)),
                                       temperature=float(_get(self.cfg, "eval.temperature", self.sampling.temperature)))
        records = evaluate_per_task(self.policy, tasks, seeds, self.harness, sampling, repeats=repeats,
                                    max_turns=_get(self.cfg, "rl.max_turns"), opponents=opponents, envs=self.plan.envs,
                                    call_budget=_get(self.cfg, "eval.call_budget"))
        records = [r for r in records if seating.trained(r, self.plan.train_seats)]
        per_task: dict[str, list[float]] = {}
        for r in records:
            per_task.setdefault(r.task, []).append(float(r.episode_return))
        rec = {"kind": "eval", "update": self.update, "weight_version": self.weight_version,
               "return_mean": float(np.mean([np.mean(v) for v in per_task.values()])),  # tasks weighted equally
               "per_task": {k: float(np.mean(v)) for k, v in per_task.items()},
               "per_suite": _per_suite({k: float(np.mean(v)) for k, v in per_task.items()}),
               "seeds": [int(s) for s in seeds],
               "episodes": len(tasks) * n * repeats, "returns": [float(r.episode_return) for r in records]}
        if _get(self.cfg, "eval.select", False):
            rec.update(self._select(rec["return_mean"]))
        self.log.write(rec)
        return rec

    def _select(self, score: float) -> dict:
        """Checkpoint selection: keep these weights in <out_dir>/best when `score` beats every
        earlier held-out score of the run (ties keep the earlier weights)."""
        if self.best is None or score > self.best[0]:
            self.best = (score, self.update)
            ckpt.save(str(self.plan.out_dir / "best"), self.update, self.step.params, self.step.opt_state,
                      self._meta(), max_to_keep=1)
        return {"best_update": self.best[1], "best_return_mean": self.best[0]}

    def _eval_opponents(self, episode_seeds: list[int], tasks: list[str]) -> dict:
        """Per task, the seating of each held-out episode against `eval.opponent` (multi-seat tasks)."""
        opponent = _get(self.cfg, "eval.opponent", self.plan.opponent)
        return {t: seating.seatings([(t, s) for s in episode_seeds], range(len(episode_seeds)), opponent,
                                    self.plan.train_seats, text=self.opponent_policy) for t in tasks}

    def run(self, stop_after: int | None = None) -> list[dict]:
        """Train until the budget is spent (or `stop_after` more updates, to simulate preemption)."""
        out = []
        every = int(_get(self.cfg, "eval.every", 0) or 0)
        ckpt_every = int(_get(self.cfg, "ckpt_every", 0) or 0)
        done_here = 0
        try:
            if every and self.update == 0 and _get(self.cfg, "eval.at_start", True):
                out.append(self.evaluate())
            while self.update < self.plan.num_updates:
                out.append(self.train_update())
                done_here += 1
                if every and self.update % every == 0:
                    out.append(self.evaluate())
                last = self.update == self.plan.num_updates
                if ckpt_every and (self.update % ckpt_every == 0 or last):
                    self.save()
                if stop_after is not None and done_here >= stop_after:
                    break
        except PolicyServerError as e:  # the vLLM server died or kept failing mid-run
            raise self._server_failure(e) from None
        return out

    def _server_failure(self, e: Exception) -> PolicyServerError:
        """The policy server failed mid-run: say where training stopped and how to continue."""
        saved = ckpt.latest_step(str(self.plan.ckpt_dir))
        where = (f"the last checkpoint is update {saved} in {self.plan.ckpt_dir}; restart the server and run the "
                 f"same command with resume=true to continue from it" if saved is not None else
                 f"no checkpoint was written yet ({self.plan.ckpt_dir}); restart the server and start again")
        return PolicyServerError(f"training stopped with {self.update} of {self.plan.num_updates} updates done (weight "
                                 f"version {self.weight_version}): the policy server failed: {e}. {where}")


def _per_suite(per_task: dict[str, float]) -> dict[str, float]:
    """Mean held-out return per suite, its tasks weighted equally."""
    suites: dict[str, list[float]] = {}
    for t, v in per_task.items():
        suites.setdefault(t.split("/", 1)[0], []).append(v)
    return {s: float(np.mean(v)) for s, v in sorted(suites.items())}


def _seat_returns(records) -> dict:
    """{"seats": seat per entry of `returns`, "return_by_seat": {seat: mean}} when a multi-seat
    game was trained, else nothing (single-agent metrics lines stay as they were)."""
    if all(r.returns is None for r in records):
        return {}
    by_seat: dict[str, list[float]] = {}
    for r in records:
        by_seat.setdefault(str(r.seat), []).append(float(r.episode_return))
    return {"seats": [r.seat for r in records], "return_by_seat": {k: float(np.mean(v)) for k, v in sorted(by_seat.items())}}


def turn_advantages(episode_adv: float, record, beta: float) -> list[float]:
    """A_{i,t} = (R_i - b_i) + beta (V(s_{t+1}) - V(s_t)) per turn of one seat's record
    (gamesmith.md §5.3, ours): s_{t+1} is the seat's next decision state, and after its last
    decision the end of the episode, valued at the seat's return. Turns without a recorded value
    (single-agent tasks, beta = 0) get the episode's advantage alone."""
    turns = record.turns
    if beta == 0 or not turns or any(t.value is None for t in turns):
        return [episode_adv] * len(turns)
    values = [t.value for t in turns] + [float(record.episode_return)]
    return [episode_adv + beta * (values[k + 1] - values[k]) for k in range(len(turns))]


def _draw_log(draws) -> dict:
    """Under rl.variant_sampling=uniform: per group the seat drawn (null: every seat) and the
    encoding of each episode, in the order of `tasks` / `seeds`."""
    if draws is None:
        return {}
    from rl.variants import encoding_name
    return {"group_seats": [d.seat for d in draws],
            "encodings": [[encoding_name(d.task, e) for e in d.encodings] for d in draws]}


def _estimator_log(estimator, adv: np.ndarray, records, encodings: dict | None = None) -> dict:
    """Per-update estimator diagnostics (gamesmith.md §5.3): the share of exactly-zero advantages,
    Crab's smoothed sigma2_hat / tau2_hat / kappa_hat and the kappa it used, and for multi-seat
    games the draw rate and tau2_enc across the encodings of zero-sum variants."""
    out: dict = {"adv_zero_share": float(np.mean(np.asarray(adv) == 0)) if len(adv) else 0.0}
    diagnostics = getattr(estimator, "diagnostics", None)
    if diagnostics is not None:
        out.update(diagnostics())
    multi = [r for r in records if r.returns is not None]
    if multi:
        out["draw_rate"] = float(np.mean([all(v == 0 for v in r.returns) for r in multi]))
        zs = [r for r in multi if r.task.startswith("zerosum/")]
        if zs and "sigma2_hat" in out:
            keys = [tuple(sorted(seating.descriptor(r.task).items())) + (r.seat,) for r in zs]
            enc = [(encodings or {}).get((r.task, r.seed)) or (r.task.rsplit("/", 1)[1] if "/enc-" in r.task
                                                                 else "identity") for r in zs]
            t = tau2_encoding(np.array([r.episode_return for r in zs]), keys, enc, out["sigma2_hat"])
            if t is not None:
                out["tau2_enc"] = t
    return out


def train(cfg: Any) -> list[dict]:
    """Validate, build and run, then save the final model and print the summary (rl/run_summary.py);
    returns the metric records."""
    plan = validate(cfg)
    trainer = Trainer(cfg, plan)
    print(start_banner(trainer), flush=True)
    records = trainer.run(_get(cfg, "stop_after"))
    from rl.run_summary import finish_run
    finish_run(trainer, records)
    return records
