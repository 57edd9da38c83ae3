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
- `rae`: `b_i` = running mean return per (variant, seat) from *earlier* batches: an exponential
  moving average per key, `b <- decay * b + (1 - decay) * R` for each of the key's episodes in
  batch order (SPIRAL's per-(game, role) EMA, decay 0.95; gamesmith.md §5.3: unseen keys start
  at 0), applied after the batch's advantages are taken, so b_i never depends on trajectory i.
- `crab`: `b_i = w ybar_{g,-i} + (1 - w) m_g`, `w = K'_g / (K'_g + kappa)`, with `ybar_{g,-i}`
  the leave-one-out mean of the other `K'_g` episodes of the same variant and seat in this batch
  and `m_g` a prior: **ours**: ridge regression over one-hot descriptor fields and the seat (plus
  an unpenalised intercept, ridge lambda 1), refitted before each batch from all earlier batches
  (0 before any data). `kappa` is fixed (4) or adaptive: `kappa_hat = sigma2_hat / tau2_hat`
  from the batches before this one (one batch of lag; gamesmith.md §5.3 eq 9): sigma2_hat the
  pooled within-group sample variance, tau2_hat = mean_g (ybar_g - m_g)^2 - mean_g sigma2_hat /
  K_g, both smoothed by an EMA across batches (decay 0.9), tau2_hat floored at 1e-3 and kappa_hat
  clipped to [0.5, 64] (all **ours**, as gamesmith.md §5.3 states them).

`moments` computes eq 9's sigma2_hat / tau2_hat of one batch and `tau2_encoding` the variance
across encodings (gamesmith.md §5.3); `Crab.diagnostics()` reports the smoothed values the
trainer logs per update.
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
        adv = batch.returns - np.array([self.mean.get(k, 0.0) for k in keys])
        for k, r in zip(keys, batch.returns.tolist()):  # then the EMA, episode by episode
            self.mean[k] = self.decay * self.mean.get(k, 0.0) + (1 - self.decay) * r
        return adv

    def state_dict(self) -> dict:
        return {"mean": [[list(map(list, k)), v] for k, v in self.mean.items()]}

    def load_state_dict(self, state: dict) -> None:
        self.mean = {tuple(tuple(f) for f in k): v for k, v in state.get("mean", [])}


class RidgePrior:
    """m_g: ridge regression of returns on one-hot descriptor fields and seat (intercept free).
    Unseen field values get no one-hot column (they fall back to the intercept + other fields).
    Keeps the sufficient statistics (counts, co-occurrences, sums of returns per column), so a
    refit costs O(columns^3) however many episodes came before."""

    def __init__(self, l2: float = 1.0):
        self.l2 = l2
        self.rows: list[tuple] = []  # variant keys of all earlier episodes (the checkpointed state)
        self.ys: list[float] = []
        self._reset_stats()

    def _reset_stats(self) -> None:
        self._n, self._sy = 0, 0.0
        self._nc: dict = {}  # column -> count
        self._syc: dict = {}  # column -> sum of returns
        self._ncc: dict = {}  # (column, column) -> co-occurrence count
        self._coef: dict | None = None
        self._intercept = 0.0

    def add(self, keys: Sequence[tuple], y: np.ndarray) -> None:
        for row, v in zip(keys, np.asarray(y, np.float64).tolist()):
            self.rows.append(row)
            self.ys.append(float(v))
            self._n += 1
            self._sy += v
            for fv in row:
                self._nc[fv] = self._nc.get(fv, 0) + 1
                self._syc[fv] = self._syc.get(fv, 0.0) + v
                for gv in row:
                    self._ncc[fv, gv] = self._ncc.get((fv, gv), 0) + 1

    def load(self, rows: Sequence[tuple], ys: Sequence[float]) -> None:
        """Replace the data (a checkpoint's `rows`/`ys`) and rebuild the statistics."""
        self.rows, self.ys = [], []
        self._reset_stats()
        self.add(list(rows), np.asarray(ys, np.float64))

    def refit(self) -> None:
        if not self._n:
            self._coef, self._intercept = None, 0.0
            return
        columns = sorted(self._nc, key=repr)
        nc = np.array([self._nc[c] for c in columns], np.float64)
        syc = np.array([self._syc[c] for c in columns])
        ncc = np.array([[self._ncc.get((a, b), 0) for b in columns] for a in columns], np.float64)
        xm, ym = nc / self._n, self._sy / self._n
        xtx = ncc - self._n * np.outer(xm, xm)  # centred X^T X
        xty = syc - nc * ym  # centred X^T y
        beta = np.linalg.solve(xtx + self.l2 * np.eye(len(columns)), xty)
        self._coef = dict(zip(columns, beta))
        self._intercept = float(ym - xm @ beta)

    def predict(self, keys: Sequence[tuple]) -> np.ndarray:
        if self._coef is None:
            return np.zeros(len(keys))
        return np.array([self._intercept + sum(self._coef.get(fv, 0.0) for fv in k) for k in keys])


TAU2_FLOOR = 1e-3  # gamesmith.md §5.3 (ours): floor of the smoothed prior error
KAPPA_RANGE = (0.5, 64.0)  # gamesmith.md §5.3 (ours): clip of the adaptive kappa


def moments(y: np.ndarray, idx: np.ndarray, n: int, m: np.ndarray) -> tuple[float, float] | None:
    """One batch's (sigma2_hat, tau2_hat) of gamesmith.md §5.3 eq 9 for returns `y` in groups
    `idx` (n groups) with per-episode prior `m`; None when no group has two members. tau2_hat is
    not floored here (it may be negative from sampling noise)."""
    count, total = _group_stats(y, idx, n)
    mean = total / count
    dof = float(np.sum(count - 1))
    if dof <= 0:
        return None
    sigma2 = float(np.sum((y - mean[idx]) ** 2) / dof)  # = sum (K_g - 1) s_g^2 / sum (K_g - 1)
    m_g = np.zeros(n)
    m_g[idx] = m  # one prior per group
    tau2 = float(np.mean((mean - m_g) ** 2) - np.mean(sigma2 / count))
    return sigma2, tau2


def tau2_encoding(y: np.ndarray, group: Sequence[Hashable], encoding: Sequence[Hashable],
                  sigma2: float) -> float | None:
    """gamesmith.md §5.3 tau2_enc (ours): mean over groups holding >= 2 encodings of
    [variance across encodings of the per-encoding mean return - mean_e sigma2 / K_{g,e}];
    None when no group holds two encodings. 0 for a policy whose returns ignore the encoding."""
    cells: dict = {}
    for g, e, v in zip(group, encoding, np.asarray(y, np.float64).tolist()):
        cells.setdefault(g, {}).setdefault(e, []).append(v)
    terms = []
    for by_enc in cells.values():
        if len(by_enc) < 2:
            continue
        means = np.array([np.mean(v) for v in by_enc.values()])
        sizes = np.array([len(v) for v in by_enc.values()], np.float64)
        terms.append(float(np.var(means, ddof=1) - np.mean(sigma2 / sizes)))
    return float(np.mean(terms)) if terms else None


def shrinkage_baseline(y: np.ndarray, idx: np.ndarray, n: int, m: np.ndarray, kappa: float) -> np.ndarray:
    """Crab's b_i = w ybar_{g,-i} + (1 - w) m_i with w = K'_i / (K'_i + kappa) (w = 0 for a group
    of one: the prior alone; kappa = 0 is the leave-one-out mean wherever K' > 0)."""
    loo, k_other = leave_one_out_means(y, idx, n)
    if kappa > 0:
        w = k_other / (k_other + kappa)
    else:
        w = (k_other > 0).astype(np.float64)
    return w * loo + (1 - w) * m


class Crab:
    """Shrink the leave-one-out mean towards a corpus-wide prior (gamesmith.md §5.3)."""

    name = "crab"

    def __init__(self, kappa: float | str = 4.0, l2: float = 1.0, smoothing: float = 0.9):
        if kappa != "adaptive" and not (isinstance(kappa, (int, float)) and kappa >= 0):
            raise ValueError(f"crab kappa must be a number >= 0 or 'adaptive', got {kappa!r}")
        self.kappa_mode = kappa
        self.prior = RidgePrior(l2)
        self.smoothing = smoothing
        self.sigma2: float | None = None
        self.tau2: float | None = None  # smoothed, before the floor
        self.last_kappa = 4.0 if kappa == "adaptive" else float(kappa)

    def current_kappa(self) -> float:
        """The kappa this batch uses: fixed, or sigma2_hat / tau2_hat of earlier batches."""
        if self.kappa_mode != "adaptive":
            return float(self.kappa_mode)
        if self.sigma2 is None or self.tau2 is None:
            return 4.0  # no statistics yet: the paper's fixed value
        return float(np.clip(self.sigma2 / max(self.tau2, TAU2_FLOOR), *KAPPA_RANGE))

    def __call__(self, batch: EpisodeBatch) -> np.ndarray:
        keys = batch.variant_keys()
        y = batch.returns
        idx, n = _group_index(keys)
        self.prior.refit()  # from all earlier batches
        m = self.prior.predict(keys)
        self.last_kappa = self.current_kappa()
        adv = y - shrinkage_baseline(y, idx, n, m, self.last_kappa)
        got = moments(y, idx, n, m)
        if got is not None:
            a = self.smoothing
            sigma2, tau2 = got
            self.sigma2 = sigma2 if self.sigma2 is None else a * self.sigma2 + (1 - a) * sigma2
            self.tau2 = tau2 if self.tau2 is None else a * self.tau2 + (1 - a) * tau2
        self.prior.add(keys, y)
        return adv

    def diagnostics(self) -> dict:
        """Smoothed sigma2_hat, tau2_hat (floored), the kappa_hat they give and the kappa used last."""
        out = {"kappa_used": self.last_kappa}
        if self.sigma2 is not None:
            tau2 = max(self.tau2, TAU2_FLOOR)
            out.update(sigma2_hat=self.sigma2, tau2_hat=tau2,
                       kappa_hat=float(np.clip(self.sigma2 / tau2, *KAPPA_RANGE)))
        return out

    def state_dict(self) -> dict:
        return {"rows": [list(map(list, k)) for k in self.prior.rows], "ys": list(self.prior.ys),
                "sigma2": self.sigma2, "tau2": self.tau2}

    def load_state_dict(self, state: dict) -> None:
        self.prior.load([tuple(tuple(f) for f in k) for k in state.get("rows", [])], state.get("ys", []))
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
