"""The gradient step: one jitted function over a ("data", "model") mesh.

Data layout. Each training sample is one turn: its prompt ids followed by its sampled completion
ids, carrying its episode's advantage (`Sample`). `build_batch` lays samples out as arrays of
shape [micro_batches, rows, length]: `inputs` (tokens[:-1]), `targets` (tokens[1:]), `mask` (1 on
targets that are sampled completion tokens, 0 on prompt/observation tokens and padding), `q`
(the sampler's log-prob of each target) and `adv`. Samples are sorted by length and each row is
right-padded to a *bucketed* length (`bucket_length`: bucket x 1, 2, 3, 4, 6, 8, 12, ...), so a handful of shapes are compiled; causal attention means right padding
never changes a real token's logits. (Packing several samples into one row would need the model
to accept segment ids; it is not implemented.)

The step (`TrainStep`): parameters are a pure dict (nnx.to_pure_dict of the model's nnx.Params);
for each micro-batch (lax.scan) the gradient of the *summed* masked token loss is accumulated,
then divided by N = trainable tokens of the whole batch, so accumulation gives exactly the
full-batch gradient of `(1/N) sum m * loss`. Then global-norm clipping at 1 and AdamW
(b1 0.9, b2 0.95, weight decay 0, constant LR). Parameters and optimizer state carry the
shardings of rl/sharding.py; the batch is split over "data" along rows. Options: `compute_dtype`
("bfloat16" casts parameters for the forward/backward; master weights and the loss stay float32),
`remat` (jax.checkpoint around each micro-batch's forward with a policy that saves only matmul
outputs; per-layer remat belongs to the model's own config when it offers one), `window`.

Completion window (`StepConfig.window`, what the trainer uses with rl/models/qwen3): the output
head runs only on each row's completion positions. `targets`, `mask`, `q` and `adv` are then
[micro_batches, rows, W] with W the bucketed longest completion, and `start` [micro_batches,
rows, 1] is where each row's completion begins (prompt length - 1); the model's hidden states at
`start + 0..W-1` go through the head. Prompts of thousands of tokens with completions of a few
then cost the head W positions per row instead of the whole length (the head is the largest
matmul of a small model with a large vocabulary). Results equal the full layout's on every
trainable token.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from jax.sharding import PartitionSpec as P

from rl import losses as L
from rl import sharding as S

ApplyFn = Callable[[nnx.Module, jax.Array], jax.Array]  # (model, inputs int32[B, T]) -> logits [B, T, V]


def default_apply(model: nnx.Module, inputs: jax.Array) -> jax.Array:
    """Logits of a causal LM on right-padded rows: `model(inputs, positions)` when the module takes
    explicit positions (rl.models.qwen3), else `model(inputs)`. Causal attention means the padding
    after a sample never changes its logits, so no attention mask is needed."""
    if "positions" in inspect.signature(type(model).__call__).parameters:
        positions = jnp.broadcast_to(jnp.arange(inputs.shape[-1], dtype=jnp.int32), inputs.shape)
        out = model(inputs, positions)
    else:
        out = model(inputs)
    return out[0] if isinstance(out, tuple) else out


@dataclasses.dataclass
class Sample:
    """One turn of one episode: exactly the tokens the sampler saw and produced."""

    prompt_ids: Sequence[int]
    completion_ids: Sequence[int]
    logprobs: Sequence[float]  # sampler log-prob of each completion token
    advantage: float
    episode: int = 0  # index of the episode in its batch (for bookkeeping)
    # constrained decoding: per completion token, the ids the sampler's masked distribution was
    # over (the trainer renormalises over the same set); None = the full vocabulary
    allowed: Sequence[Sequence[int]] | None = None

    def __post_init__(self):
        if len(self.logprobs) != len(self.completion_ids):
            raise ValueError(f"sample has {len(self.completion_ids)} completion tokens but "
                             f"{len(self.logprobs)} log-probs")
        if self.allowed is not None:
            if len(self.allowed) != len(self.completion_ids):
                raise ValueError(f"sample has {len(self.completion_ids)} completion tokens but "
                                 f"{len(self.allowed)} allowed sets")
            for k, (tok, ok) in enumerate(zip(self.completion_ids, self.allowed)):
                if tok not in ok:
                    raise ValueError(f"completion token {k} ({tok}) is outside its allowed set {list(ok)}")
        if not self.prompt_ids:
            raise ValueError("sample has an empty prompt (the first completion token needs a context)")

    def __len__(self) -> int:
        return len(self.prompt_ids) + len(self.completion_ids)


def make_optimizer(lr: float, clip_norm: float = 1.0, b1: float = 0.9, b2: float = 0.95,
                   weight_decay: float = 0.0, eps: float = 1e-8) -> optax.GradientTransformation:
    """AdamW (0.9, 0.95), no weight decay, global-norm clip 1, constant LR (formulas.md §1)."""
    if not lr > 0:
        raise ValueError(f"learning rate must be > 0, got {lr}")
    return optax.chain(optax.clip_by_global_norm(clip_norm),
                       optax.adamw(lr, b1=b1, b2=b2, eps=eps, weight_decay=weight_decay))


def bucket_length(n: int, bucket: int) -> int:
    """Round n up to bucket * k with k a power of two or 1.5 x a power of two (1, 2, 3, 4, 6, 8,
    12, 16, 24, ...): at most ~33% padding, and only two compiled lengths per octave."""
    k = max(1, math.ceil(n / bucket))
    p = 1 << (k - 1).bit_length()  # next power of two >= k
    return bucket * (3 * p // 4 if p >= 4 and k <= 3 * p // 4 else p)


WINDOW_BUCKET = 8  # completion windows are 8 x 1, 2, 3, 4, 6, ... tokens


def batch_dims(samples: Sequence[Sample], rows: int, *, bucket: int = 64, max_length: int | None = None,
               min_micro_batches: int = 1, window: bool = False) -> dict[str, int]:
    """The sizes `build_batch` lays `samples` out with at `rows` rows per micro-batch: bucketed
    length, window width, micro-batch count, allowed-set span (0 = no constrained sample).
    Processes of a multi-host step take the maximum of each over all of them (`TrainStep.build`)."""
    if not samples:
        return {"length": 0, "width": 0, "n_micro": min_micro_batches, "span": 0}
    longest = max(len(s) for s in samples) - 1
    if max_length is not None and longest > max_length:
        raise ValueError(f"a sample has {longest + 1} tokens, more than the trainer sequence length "
                         f"{max_length}; raise rl.max_seq_len or lower the sampler's max_new_tokens")
    length = bucket_length(longest, bucket)
    width = bucket_length(max(len(s.completion_ids) for s in samples), WINDOW_BUCKET) if window else length
    spans = [len(a) for s in samples if s.allowed is not None for a in s.allowed]
    return {"length": length, "width": width, "n_micro": max(min_micro_batches, -(-len(samples) // rows)),
            "span": max(spans, default=0)}


def build_batch(samples: Sequence[Sample], micro_batch_size: int, *, bucket: int = 64,
                rows_multiple: int = 1, max_length: int | None = None,
                min_micro_batches: int = 1, window: bool = False, dims: dict | None = None) -> dict[str, np.ndarray]:
    """Lay samples out as [micro_batches, rows, length] arrays (see module docstring); with
    `window`, the per-token arrays cover each row's completion window only.

    rows = micro_batch_size rounded up to `rows_multiple` (the "data" axis size); missing rows are
    padding with mask 0. A sample longer than `max_length` raises (it would be silently cut).
    `dims` (from `batch_dims`, at least as large as these samples need) fixes the sizes instead.
    """
    if not samples and dims is None:
        raise ValueError("no samples to train on")
    if micro_batch_size < 1:
        raise ValueError("micro_batch_size must be >= 1")
    rows = -(-micro_batch_size // rows_multiple) * rows_multiple
    if dims is None:
        dims = batch_dims(samples, rows, bucket=bucket, max_length=max_length,
                          min_micro_batches=min_micro_batches, window=window)
    length, width, n_micro = dims["length"], dims["width"], dims["n_micro"]
    order = sorted(range(len(samples)), key=lambda i: -len(samples[i]))
    shape = (n_micro * rows, length)
    wshape = (n_micro * rows, width)
    out = {"inputs": np.zeros(shape, np.int32), "targets": np.zeros(wshape, np.int32),
           "mask": np.zeros(wshape, np.float32), "q": np.zeros(wshape, np.float32),
           "adv": np.zeros(wshape, np.float32)}
    if window:
        out["start"] = np.zeros((n_micro * rows, 1), np.int32)
    if dims["span"]:  # -1 = no restriction at that position (prompt, padding, unconstrained samples)
        out["allowed"] = np.full(wshape + (dims["span"],), -1, np.int32)
    for r, i in enumerate(order):
        s = samples[i]
        toks = np.asarray(list(s.prompt_ids) + list(s.completion_ids), np.int32)
        n, p = len(toks) - 1, len(s.prompt_ids)
        c = len(s.completion_ids)
        out["inputs"][r, :n] = toks[:-1]
        lo = p - 1 if window else 0  # first position the per-token arrays cover
        if window:
            out["start"][r, 0] = lo
        out["targets"][r, :n - lo] = toks[lo + 1:][:width]
        out["mask"][r, p - 1 - lo:p - 1 - lo + c] = 1.0
        out["q"][r, p - 1 - lo:p - 1 - lo + c] = np.asarray(s.logprobs, np.float32)
        out["adv"][r, :n - lo] = s.advantage
        if s.allowed is not None:
            for k, ok in enumerate(s.allowed):
                out["allowed"][r, p - 1 - lo + k, :len(ok)] = list(ok)
    return {k: v.reshape((n_micro, rows) + v.shape[1:]) for k, v in out.items()}


def token_logprobs(logits: jax.Array, targets: jax.Array, temperature: float = 1.0,
                   allowed: jax.Array | None = None) -> jax.Array:
    """log softmax(logits / T)[target] in float32. With `allowed` [..., A] (token ids, -1 =
    padding): a position with any allowed id renormalises over those ids only (the constrained
    sampler's masked distribution); a position with none uses the full vocabulary."""
    logits = logits.astype(jnp.float32)
    if temperature != 1.0:
        logits = logits / temperature
    logz = jax.nn.logsumexp(logits, axis=-1)
    if allowed is not None:
        sel = jnp.take_along_axis(logits, jnp.maximum(allowed, 0), axis=-1)
        masked = jax.nn.logsumexp(jnp.where(allowed >= 0, sel, -jnp.inf), axis=-1)
        logz = jnp.where(jnp.any(allowed >= 0, axis=-1), masked, logz)
    picked = jnp.take_along_axis(logits, targets[..., None], axis=-1)[..., 0]
    return picked - logz


def _declared_specs(param_state: Any) -> Any:
    """The model's own partition specs as a pure dict (None if it declares none)."""
    try:
        specs = nnx.to_pure_dict(nnx.get_partition_spec(param_state))
    except Exception:  # a module without sharding metadata
        return None
    return jax.tree.map(lambda s: s if isinstance(s, P) else P(), specs, is_leaf=lambda x: isinstance(x, P) or x is None)


@dataclasses.dataclass
class StepConfig:
    loss: str = "ipo"
    loss_kwargs: dict = dataclasses.field(default_factory=dict)
    lr: float = 1e-6
    clip_norm: float = 1.0
    compute_dtype: str = "float32"
    remat: bool = False
    temperature: float = 1.0
    fsdp: bool = True
    window: bool = False  # output head on the completion window only (see module docstring)

    def __post_init__(self):
        L.token_terms_fn(self.loss, **self.loss_kwargs)  # unknown loss / kwargs -> clear error
        if self.compute_dtype not in ("float32", "bfloat16"):
            raise ValueError(f"compute_dtype must be 'float32' or 'bfloat16', got {self.compute_dtype!r}")


class TrainStep:
    """Holds the (sharded) parameters and optimizer state; `step(batch)` makes one update.

    `model` is any Flax NNX module whose `apply_fn(model, inputs)` gives next-token logits.
    The module object itself is only used as a template: read current weights with
    `self.model()` (a fresh module sharing nothing mutable with the trainer).
    """

    def __init__(self, model: nnx.Module, config: StepConfig, mesh: jax.sharding.Mesh | None = None,
                 apply_fn: ApplyFn = default_apply, logit_filter: Callable[[jax.Array], jax.Array] | None = None):
        if config.window and not (hasattr(model, "hidden_states") and hasattr(model, "logits")):
            raise ValueError("StepConfig.window needs a model with hidden_states() and logits() (rl.models.qwen3)")
        if config.window and apply_fn is not default_apply:
            raise ValueError("StepConfig.window runs the model's own head; pass logit_filter instead of apply_fn")
        self.config = config
        self.logit_filter = logit_filter
        self.mesh = mesh if mesh is not None else S.make_mesh(data=1, model=1, devices=jax.devices()[:1])
        self.apply_fn = apply_fn
        self.graphdef, param_state, self.rest = nnx.split(model, nnx.Param, ...)
        self._template = param_state
        params = nnx.to_pure_dict(param_state)
        self.tx = make_optimizer(config.lr, config.clip_norm)
        declared = _declared_specs(param_state)
        self.param_sh = S.param_shardings(params, self.mesh, config.fsdp, declared)
        self.opt_sh = S.opt_state_shardings(self.tx, params, self.param_sh, self.mesh)
        self.params = jax.device_put(params, self.param_sh)
        self.opt_state = jax.jit(self.tx.init, out_shardings=self.opt_sh)(self.params)
        self.step_count = 0
        rep = S.replicated(self.mesh)
        self._step = jax.jit(self._step_fn, in_shardings=(self.param_sh, self.opt_sh, S.batch_sharding(self.mesh)),
                             out_shardings=(self.param_sh, self.opt_sh, rep), donate_argnums=(0, 1))
        self._logp = jax.jit(self._logp_fn, in_shardings=(self.param_sh, S.batch_sharding(self.mesh)),
                             out_shardings=S.batch_sharding(self.mesh))

    @property
    def rows_multiple(self) -> int:
        return self.mesh.shape[S.DATA]

    # --- pure functions -----------------------------------------------------------------------
    def _merge(self, params: Any) -> nnx.Module:
        if self.config.compute_dtype == "bfloat16":
            params = jax.tree.map(lambda x: x.astype(jnp.bfloat16) if jnp.issubdtype(x.dtype, jnp.floating) else x, params)
        state = jax.tree.map(lambda x: x, self._template)
        nnx.replace_by_pure_dict(state, params)
        return nnx.merge(self.graphdef, state, self.rest)

    def _micro_logp(self, params: Any, mb: dict) -> jax.Array:
        """Log-probs of a micro-batch's targets (full length, or the completion window)."""
        inputs, targets = mb["inputs"], mb["targets"]
        window = "start" in mb  # the batch's layout decides (build() follows StepConfig.window)
        filt = self.logit_filter

        def forward(params, inputs, start):
            model = self._merge(params)
            if not window:
                logits = self.apply_fn(model, inputs)
            else:
                positions = jnp.broadcast_to(jnp.arange(inputs.shape[-1], dtype=jnp.int32), inputs.shape)
                hidden, _ = model.hidden_states(inputs, positions)
                at = jnp.clip(start + jnp.arange(targets.shape[-1], dtype=jnp.int32), 0, inputs.shape[-1] - 1)
                logits = model.logits(jnp.take_along_axis(hidden, at[..., None], axis=1))
            return logits if filt is None else filt(logits)
        if self.config.remat:
            forward = jax.checkpoint(forward, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
        return token_logprobs(forward(params, inputs, mb.get("start")), targets, self.config.temperature,
                              mb.get("allowed"))

    def _micro_loss_sum(self, params, mb):
        logp = self._micro_logp(params, mb)
        terms_fn = L.token_terms_fn(self.config.loss, **self.config.loss_kwargs)
        return L.masked_loss_sums(terms_fn, logp, mb["q"], mb["adv"], mb["mask"])

    def _accumulate(self, params, batch):
        """Gradient of (1/N) sum m * token_loss over all micro-batches (lax.scan), and metric sums."""
        grad_fn = jax.value_and_grad(self._micro_loss_sum, has_aux=True)
        zeros = jax.tree.map(jnp.zeros_like, params)
        zero_sums = {k: jnp.zeros((), jnp.float32) for k in L.SUM_KEYS}

        def micro(carry, mb):
            grads, loss_sum, sums = carry
            (ls, s), g = grad_fn(params, mb)
            grads = jax.tree.map(jnp.add, grads, g)
            grads = jax.lax.with_sharding_constraint(grads, self.param_sh)
            return (grads, loss_sum + ls, {k: sums[k] + s[k] for k in sums}), None

        (grads, loss_sum, sums), _ = jax.lax.scan(micro, (zeros, jnp.zeros((), jnp.float32), zero_sums), batch)
        n = jnp.maximum(sums["tokens"], 1.0)
        return jax.tree.map(lambda g: g / n, grads), loss_sum, sums

    def _step_fn(self, params, opt_state, batch):
        grads, loss_sum, sums = self._accumulate(params, batch)
        grad_norm = optax.global_norm(grads)
        updates, opt_state = self.tx.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        metrics = L.finish_metrics(loss_sum, sums)
        metrics["grad_norm"] = grad_norm
        return params, opt_state, metrics

    def _logp_fn(self, params, batch):
        return jax.lax.map(lambda mb: self._micro_logp(params, mb), batch)

    # --- host API -----------------------------------------------------------------------------
    def build(self, samples: Sequence[Sample], micro_batch_size: int, bucket: int = 64,
              max_length: int | None = None) -> dict[str, np.ndarray] | None:
        """The batch of `samples`. Across processes (`jax.process_count() > 1`, a mesh spanning
        them): this process's rows only, `micro_batch_size` being the global rows per micro-batch;
        the sizes are agreed over all processes (a collective: every process calls it, with its
        own samples, possibly none; None when no process has any) and `step` assembles the
        global batch."""
        n = jax.process_count()
        if n == 1:
            return build_batch(samples, micro_batch_size, bucket=bucket, rows_multiple=self.rows_multiple,
                               max_length=max_length, window=self.config.window)
        rows = -(-micro_batch_size // self.rows_multiple) * self.rows_multiple
        if rows % n:
            raise ValueError(f"the mesh's data axis ({self.rows_multiple}) must split evenly over the {n} processes")
        local = rows // n
        dims = batch_dims(samples, local, bucket=bucket, max_length=max_length, window=self.config.window)
        from jax.experimental import multihost_utils
        keys = sorted(dims)
        agreed = np.max(multihost_utils.process_allgather(np.asarray([dims[k] for k in keys], np.int64)), axis=0)
        dims = {k: int(v) for k, v in zip(keys, agreed)}
        if not dims["length"]:
            return None
        return build_batch(samples, local, bucket=bucket, window=self.config.window, dims=dims)

    def _place(self, batch: dict[str, np.ndarray]) -> dict[str, jax.Array]:
        """The batch on the mesh: split over "data" along rows; across processes each gives its own rows."""
        sharding = S.batch_sharding(self.mesh)
        if jax.process_count() == 1:
            return jax.device_put(batch, sharding)
        n = jax.process_count()
        return {k: jax.make_array_from_process_local_data(sharding, v, (v.shape[0], v.shape[1] * n) + v.shape[2:])
                for k, v in batch.items()}

    def step(self, batch: dict[str, np.ndarray]) -> dict[str, float]:
        """One optimizer update from a built batch; returns host float metrics."""
        self.params, self.opt_state, metrics = self._step(self.params, self.opt_state, self._place(batch))
        self.step_count += 1
        return {k: float(np.asarray(v.addressable_data(0))) for k, v in metrics.items()}

    def gradients(self, batch: dict[str, np.ndarray]) -> Any:
        """The batch gradient the next `step` would apply before clipping (for tests/diagnostics)."""
        if not hasattr(self, "_grads"):
            self._grads = jax.jit(lambda p, b: self._accumulate(p, b)[0],
                                  in_shardings=(self.param_sh, S.batch_sharding(self.mesh)), out_shardings=self.param_sh)
        return self._grads(self.params, self._place(batch))

    def logprobs(self, batch: dict[str, np.ndarray]) -> np.ndarray:
        """Trainer log-probs of every target in a built batch (same shape as batch['q'])."""
        return np.asarray(self._logp(self.params, self._place(batch)))

    def model(self) -> nnx.Module:
        """A fresh NNX module holding the current weights (host copies, unsharded). Across
        processes, parameters sharded over them are gathered (a collective: every process calls it)."""
        if jax.process_count() == 1:
            params = jax.device_get(self.params)
        else:
            from jax.experimental import multihost_utils
            params = multihost_utils.process_allgather(self.params, tiled=True)
        state = jax.tree.map(lambda x: x, self._template)
        nnx.replace_by_pure_dict(state, jax.tree.map(jnp.asarray, params))
        return nnx.merge(self.graphdef, state, self.rest)

    def load(self, params: Any, opt_state: Any, step_count: int) -> None:
        """Replace the state (from a checkpoint), re-placing it on this mesh."""
        self.params = jax.device_put(params, self.param_sh)
        self.opt_state = jax.device_put(opt_state, self.opt_sh)
        self.step_count = int(step_count)
