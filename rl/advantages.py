"""Advantage estimators behind one interface: episode returns in, one scalar per episode out.

Every estimator computes `A_i = R_i - b_i` (group_std also divides by the group std) from an
`EpisodeBatch` (returns, group ids, and for RAE/Crab the variant descriptor and seat of each
episode). The scalar is then broadcast to every trainable (sampled completion) token of every turn
of episode i by `broadcast_to_samples`; prompt/observation tokens carry no loss at all (their mask
is 0 in rl/train_step.py).

Estimators (formulas.md §1 and §2):
- `group_mean` (default, GlyphBench): `A_i = R_i - mean_{j in G} R_j`; no std normalisation.
- `group_std`: `(R_i - mean_G R) / (std_G R + eps)` (population std; GRPO-style option).
- `leave_one_out`: `A_i = R_i - mean_{j in G, j != i} R_j`; a group of one gets A = 0.
- `rae`: `b_i` = running mean return per (variant, seat) from *earlier* batches (an exponential
  moving average, decay `rae_decay`; **ours**: unseen keys start at 0), then updated with this
  batch's per-key means, so b_i never depends on trajectory i.
- `crab`: `b_i = w ybar_{g,-i} + (1 - w) m_g`, `w = K'_g / (K'_g + kappa)`, with `ybar_{g,-i}`
  the leave-one-out mean of the other `K'_g` episodes of the same variant and seat in this batch
  and `m_g` a prior: **ours**: ridge regression over one-hot descriptor fields and the seat (plus
  an unpenalised intercept), refitted before each batch from all earlier batches (0 before any
  data). `kappa` is fixed (4) or adaptive: `kappa_hat = sigma2_hat / tau2_hat` computed from the
  previous batch (one batch of lag), with sigma2_hat the pooled within-group sample variance and
  tau2_hat = mean_g (ybar_g - m_g)^2 - mean_g sigma2_hat / K_g, both smoothed by an EMA across
  batches (**ours**: decay 0.9, tau2 floored at 1e-6, kappa clipped to [0.1, 1000]).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Hashable, Mapping, Protocol, Sequence

import numpy as np

ESTIMATORS = ("group_mean", "group_std", "leave_one_out", "rae", "crab")


@dataclasses.dataclass
class EpisodeBatch:
    """Per-episode data an estimator may use. `group[i]`: the group (one task, distinct seeds)
    episode i belongs to. `descriptor[i]`: a mapping field -> value naming the variant (e.g.
    {"task": "classics/snake-easy"} or GameSmith's {"encoding", "rules", "size"}); `seat[i]`: the
    seat whose return this is (0 for single-agent tasks)."""

    returns: np.ndarray
    group: np.ndarray
    descriptor: Sequence[Mapping[str, Hashable]] | None = None
    seat: np.ndarray | None = None

    def __post_init__(self):
        self.returns = np.asarray(self.returns, np.float64)
        self.group = np.asarray(self.group)
        n = self.returns.shape[0]
        if self.returns.ndim != 1 or self.group.shape != (n,):
            raise ValueError(f"returns and group must be 1-D of equal length, got "
                             f"{self.returns.shape} and {self.group.shape}")
        if self.seat is None:
            self.seat = np.zeros(n, np.int64)
        self.seat = np.asarray(self.seat)
        if self.descriptor is not None and len(self.descriptor) != n:
            raise ValueError(f"descriptor has {len(self.descriptor)} entries for {n} episodes")

    def variant_keys(self) -> list[tuple]:
        """(variant, seat) keys; without descriptors each group is its own variant."""
        if self.descriptor is None:
            return [(("group", g),) + (("seat", int(s)),) for g, s in zip(self.group.tolist(), self.seat.tolist())]
        return [tuple(sorted(d.items())) + (("seat", int(s)),) for d, s in zip(self.descriptor, self.seat.tolist())]


class AdvantageEstimator(Protocol):
    """`__call__(batch) -> float64[n]` advantages; stateful estimators (RAE, Crab) update their
    statistics from the batch after computing its advantages (so b_i uses earlier data only)."""

    name: str

    def __call__(self, batch: EpisodeBatch) -> np.ndarray: ...

    def state_dict(self) -> dict: ...

    def load_state_dict(self, state: dict) -> None: ...


def _group_index(keys: Sequence[Hashable]) -> tuple[np.ndarray, int]:
    ids: dict = {}
    idx = np.array([ids.setdefault(k, len(ids)) for k in keys], np.int64)
    return idx, len(ids)


def _group_stats(y: np.ndarray, idx: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    count = np.bincount(idx, minlength=n).astype(np.float64)
    total = np.bincount(idx, weights=y, minlength=n)
    return count, total


def leave_one_out_means(y: np.ndarray, idx: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(mean of the other members of i's group, K'_i = group size - 1); mean 0 where K' = 0."""
    count, total = _group_stats(y, idx, n)
    k_other = count[idx] - 1
    loo = np.where(k_other > 0, (total[idx] - y) / np.maximum(k_other, 1), 0.0)
    return loo, k_other


class _Stateless:
    name = "stateless"

    def state_dict(self) -> dict:
        return {}

    def load_state_dict(self, state: dict) -> None:
        pass


class GroupMean(_Stateless):
    """GlyphBench default: A_i = R_i - mean of i's group (no std normalisation)."""

    name = "group_mean"

    def __call__(self, batch: EpisodeBatch) -> np.ndarray:
        idx, n = _group_index(batch.group.tolist())
        count, total = _group_stats(batch.returns, idx, n)
        return batch.returns - (total / count)[idx]


class GroupStd(_Stateless):
    """(R_i - mean_G R) / (std_G R + eps), population std of the group."""

    name = "group_std"

    def __init__(self, eps: float = 1e-6):
        self.eps = eps

    def __call__(self, batch: EpisodeBatch) -> np.ndarray:
        idx, n = _group_index(batch.group.tolist())
        count, total = _group_stats(batch.returns, idx, n)
        mean = total / count
        var = np.bincount(idx, weights=(batch.returns - mean[idx]) ** 2, minlength=n) / count
        return (batch.returns - mean[idx]) / (np.sqrt(var)[idx] + self.eps)


class LeaveOneOut(_Stateless):
    """A_i = R_i - mean of the other members of i's group (0 for a group of one)."""

    name = "leave_one_out"

    def __call__(self, batch: EpisodeBatch) -> np.ndarray:
        idx, n = _group_index(batch.group.tolist())
        loo, k_other = leave_one_out_means(batch.returns, idx, n)
        return np.where(k_other > 0, batch.returns - loo, 0.0)


class RAE:
    """Running mean return per (variant, seat) as the baseline (EMA over batches)."""

    name = "rae"

    def __init__(self, decay: float = 0.95):
        if not 0 <= decay < 1:
            raise ValueError(f"rae decay must be in [0, 1), got {decay}")
        self.decay = decay
        self.mean: dict[tuple, float] = {}

    def __call__(self, batch: EpisodeBatch) -> np.ndarray:
        keys = batch.variant_keys()
        baseline = np.array([self.mean.get(k, 0.0) for k in keys])
        adv = batch.returns - baseline
        idx, n = _group_index(keys)
        count, total = _group_stats(batch.returns, idx, n)
        first = {k: i for i, k in reversed(list(enumerate(keys)))}
        for k, i in first.items():
            batch_mean = total[idx[i]] / count[idx[i]]
            old = self.mean.get(k)
            self.mean[k] = batch_mean if old is None else self.decay * old + (1 - self.decay) * batch_mean
        return adv

    def state_dict(self) -> dict:
        return {"mean": [[list(map(list, k)), v] for k, v in self.mean.items()]}

    def load_state_dict(self, state: dict) -> None:
        self.mean = {tuple(tuple(f) for f in k): v for k, v in state.get("mean", [])}


class RidgePrior:
    """m_g: ridge regression of returns on one-hot descriptor fields and seat (intercept free).
    Unseen field values get no one-hot column (they fall back to the intercept + other fields)."""

    def __init__(self, l2: float = 1.0):
        self.l2 = l2
        self.rows: list[tuple] = []  # variant keys of all earlier episodes
        self.ys: list[float] = []
        self._coef: dict | None = None
        self._intercept = 0.0

    def add(self, keys: Sequence[tuple], y: np.ndarray) -> None:
        self.rows.extend(keys)
        self.ys.extend(float(v) for v in y)

    def refit(self) -> None:
        if not self.rows:
            self._coef, self._intercept = None, 0.0
            return
        columns = sorted({fv for row in self.rows for fv in row}, key=repr)
        col = {c: j for j, c in enumerate(columns)}
        x = np.zeros((len(self.rows), len(columns)))
        for i, row in enumerate(self.rows):
            for fv in row:
                x[i, col[fv]] = 1.0
        y = np.asarray(self.ys)
        xm, ym = x.mean(0), y.mean()
        xc, yc = x - xm, y - ym
        beta = np.linalg.solve(xc.T @ xc + self.l2 * np.eye(len(columns)), xc.T @ yc)
        self._coef = dict(zip(columns, beta))
        self._intercept = float(ym - xm @ beta)

    def predict(self, keys: Sequence[tuple]) -> np.ndarray:
        if self._coef is None:
            return np.zeros(len(keys))
        return np.array([self._intercept + sum(self._coef.get(fv, 0.0) for fv in k) for k in keys])


class Crab:
    """Shrink the leave-one-out mean towards a corpus-wide prior (formulas.md §2)."""

    name = "crab"

    def __init__(self, kappa: float | str = 4.0, l2: float = 1.0, smoothing: float = 0.9):
        if kappa != "adaptive" and not (isinstance(kappa, (int, float)) and kappa >= 0):
            raise ValueError(f"crab kappa must be a number >= 0 or 'adaptive', got {kappa!r}")
        self.kappa_mode = kappa
        self.prior = RidgePrior(l2)
        self.smoothing = smoothing
        self.sigma2: float | None = None
        self.tau2: float | None = None
        self.last_kappa = 4.0 if kappa == "adaptive" else float(kappa)

    def current_kappa(self) -> float:
        if self.kappa_mode != "adaptive":
            return float(self.kappa_mode)
        if self.sigma2 is None or self.tau2 is None:
            return 4.0  # no statistics yet: the paper's fixed value
        return float(np.clip(self.sigma2 / max(self.tau2, 1e-6), 0.1, 1000.0))

    def __call__(self, batch: EpisodeBatch) -> np.ndarray:
        keys = batch.variant_keys()
        y = batch.returns
        idx, n = _group_index(keys)
        loo, k_other = leave_one_out_means(y, idx, n)
        self.prior.refit()  # from all earlier batches
        m = self.prior.predict(keys)
        kappa = self.current_kappa()
        self.last_kappa = kappa
        w = np.where(k_other > 0, k_other / (k_other + kappa), 0.0) if kappa > 0 else (k_other > 0).astype(float)
        adv = y - (w * loo + (1 - w) * m)
        self._update_kappa_stats(y, idx, n, m)
        self.prior.add(keys, y)
        return adv

    def _update_kappa_stats(self, y, idx, n, m) -> None:
        count, total = _group_stats(y, idx, n)
        mean = total / count
        dof = float(np.sum(count - 1))
        if dof <= 0:
            return
        sigma2 = float(np.sum((y - mean[idx]) ** 2) / dof)
        m_g = np.zeros(n)
        m_g[idx] = m  # same prior for every member of a group
        tau2 = float(np.mean((mean - m_g) ** 2) - np.mean(sigma2 / count))
        tau2 = max(tau2, 1e-6)
        a = self.smoothing
        self.sigma2 = sigma2 if self.sigma2 is None else a * self.sigma2 + (1 - a) * sigma2
        self.tau2 = tau2 if self.tau2 is None else a * self.tau2 + (1 - a) * tau2

    def state_dict(self) -> dict:
        return {"rows": [list(map(list, k)) for k in self.prior.rows], "ys": list(self.prior.ys),
                "sigma2": self.sigma2, "tau2": self.tau2}

    def load_state_dict(self, state: dict) -> None:
        self.prior.rows = [tuple(tuple(f) for f in k) for k in state.get("rows", [])]
        self.prior.ys = list(state.get("ys", []))
        self.sigma2, self.tau2 = state.get("sigma2"), state.get("tau2")


def make_estimator(name: str, **kwargs: Any) -> AdvantageEstimator:
    """Build an estimator by name (see ESTIMATORS); unknown names raise with the valid list."""
    if name == "group_mean":
        return GroupMean()
    if name == "group_std":
        return GroupStd(**kwargs)
    if name == "leave_one_out":
        return LeaveOneOut()
    if name == "rae":
        return RAE(**kwargs)
    if name == "crab":
        return Crab(**kwargs)
    raise ValueError(f"unknown advantage estimator {name!r}; choose one of {', '.join(ESTIMATORS)}")


def broadcast_to_samples(advantages: np.ndarray, sample_episode: Sequence[int]) -> np.ndarray:
    """Advantage of each training sample (one turn = one sample) from its episode's scalar."""
    return np.asarray(advantages, np.float32)[np.asarray(sample_episode, np.int64)]
