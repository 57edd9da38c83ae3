"""RHAE reports for WITNESS runs (witness.md §7): per-game RHAE-L5 / RHAE-L20, the dataset score
as mean +- std over seeds, solved level slots and completed runs.

    python -m eval.witness --split test --policy scripted --seeds 5

Reference counts are the bank's `ref_source` (solver-optimal until human counts exist); the
efficiency power p is `--power` (2 = ARC-AGI-3's square, the default; 1 the linear reading).
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Iterable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.witness.bank import ref_source
from glyphjax.witness.layout import MAX_LEVELS
from glyphjax.witness.score import DEFAULT_POWER, game_score
from glyphjax.witness.tasks import split_ids

WINDOWS = (5, 20)
SLOTS_PER_GAME = MAX_LEVELS  # level slots per (game, seed), as in the paper's 17 x 5 x 20


@dataclasses.dataclass(frozen=True)
class Run:
    """One run of one game: which levels were solved and with how many actions."""

    game: str
    seed: int
    solved: np.ndarray  # bool[MAX_LEVELS]
    actions: np.ndarray  # int[MAX_LEVELS]: a_k, the accepted CONFIRM included
    ref: np.ndarray  # int[MAX_LEVELS]: h_k
    n_levels: int
    level_failed: bool = False  # the run ended on a level's spent action budget (witness.md §2.3 (b))
    calls: int | None = None  # text policies: model calls the run made
    call_budget: int | None = None  # text policies: the run's call budget (§2.3 (c))

    @property
    def completed(self) -> bool:
        return bool(self.solved[:self.n_levels].all())

    @property
    def end(self) -> str:
        """Why the run ended (witness.md §2.3): `solved` (every level), `action budget` (a level's
        300 actions spent unsolved), `call budget` (the model-call budget spent), else `stopped`."""
        if self.completed:
            return "solved"
        if self.level_failed:
            return "action budget"
        if self.calls is not None and self.call_budget is not None and self.calls >= self.call_budget:
            return "call budget"
        return "stopped"

    def to_json(self) -> dict:
        """The per-run result: levels solved, actions per solved level, calls and why it ended."""
        n = self.n_levels
        return {"game": self.game, "seed": self.seed, "levels": n, "solved": int(self.solved[:n].sum()),
                "actions_at_solve": [int(a) if s else None for a, s in zip(self.actions[:n], self.solved[:n])],
                "calls": self.calls, "call_budget": self.call_budget, "end": self.end}


def rhae(run: Run, window: int, p: float = DEFAULT_POWER) -> float:
    """RHAE-L`window` of one run, x 100."""
    return float(rhae_all([run], window, p)[0])


def rhae_all(runs: Sequence[Run], window: int, p: float = DEFAULT_POWER) -> np.ndarray:
    """RHAE-L`window` x 100 of every run, in one vectorised call (float64[len(runs)])."""
    if not runs:
        return np.zeros(0)
    solved, actions, ref = (np.stack([getattr(r, f) for r in runs]) for f in ("solved", "actions", "ref"))
    n_levels = np.asarray([r.n_levels for r in runs])
    return 100.0 * np.asarray(game_score(solved, actions, ref, n_levels, window, p), np.float64)


def dataset_score(runs: Sequence[Run], window: int, p: float = DEFAULT_POWER) -> tuple[float, float]:
    """(mean, std) over seeds of the per-seed mean over games (std with ddof = 1; 0 for one seed)."""
    _, seed_of = np.unique([r.seed for r in runs], return_inverse=True)
    per_seed = np.bincount(seed_of, weights=rhae_all(runs, window, p)) / np.bincount(seed_of)
    return float(np.mean(per_seed)), float(np.std(per_seed, ddof=1)) if len(per_seed) > 1 else 0.0


def solved_slots(runs: Sequence[Run]) -> tuple[int, int]:
    """(solved level slots, all slots = runs x 20)."""
    return int(sum(r.solved[:r.n_levels].sum() for r in runs)), len(runs) * SLOTS_PER_GAME


def play_runs(task_ids: Iterable[str], policy: str, seeds: Sequence[int]) -> list[Run]:
    """Vmapped runs of an array policy (`random` or `scripted`) on each game, one per seed."""
    from eval.runner import array_policy

    runs = []
    for task_id in task_ids:
        env = glyphjax.make(task_id)
        res = glyphjax.rollout(env, array_policy(env, policy), jnp.asarray(np.asarray(seeds, np.uint32)),
                               keep_state=True)
        state = jax.device_get(res.final_state)
        params = env.default_params()
        ref, n = np.asarray(params.levels.ref), int(params.n_levels)
        for i, seed in enumerate(seeds):
            solved = np.asarray(state.solved[i])
            runs.append(Run(task_id, int(seed), solved, np.asarray(state.actions_at_solve[i]), ref, n,
                            bool(state.done[i]) and not solved[:n].all()))
    return runs


def run_from_actions(task_id: str, seed: int, actions: Sequence[int], calls: int | None = None,
                     call_budget: int | None = None) -> Run:
    """The Run a recorded action sequence yields (replayed through the engine: text-policy runs
    record actions, not states); `calls` / `call_budget`: the model calls it made and its budget."""
    from glyphjax.witness.harness import compiled
    env = glyphjax.make(task_id)
    key, params = jax.random.PRNGKey(seed), env.default_params()
    step = compiled(env)[0]
    state = env.reset(key, params)
    for a in actions:
        state, _ = step(key, state, jnp.int32(a), params)
    solved = np.asarray(state.solved)
    return Run(task_id, int(seed), solved, np.asarray(state.actions_at_solve), np.asarray(params.levels.ref),
               int(params.n_levels), bool(state.done) and not solved[:int(params.n_levels)].all(), calls, call_budget)


def report(runs: Sequence[Run], p: float = DEFAULT_POWER) -> str:
    """Per-game table and the dataset line, as text."""
    lines = [f"{'game':<44} {'levels':>6} {'RHAE-L5':>8} {'RHAE-L20':>9} {'solved':>8} {'complete':>8}"]
    by_game: dict[str, list[Run]] = {}
    for r in runs:
        by_game.setdefault(r.game, []).append(r)
    for g, mine in by_game.items():
        solved, slots = solved_slots(mine)
        lines.append(f"{g:<44} {mine[0].n_levels:>6} {rhae_all(mine, 5, p).mean():>8.1f} "
                     f"{rhae_all(mine, 20, p).mean():>9.1f} {solved:>4}/{slots:<3} "
                     f"{sum(r.completed for r in mine):>3}/{len(mine)}")
    (m5, s5), (m20, s20) = dataset_score(runs, 5, p), dataset_score(runs, 20, p)
    solved, slots = solved_slots(runs)
    if any(r.calls is not None for r in runs):
        ends = {e: sum(r.end == e for r in runs) for e in ("solved", "action budget", "call budget", "stopped")}
        lines.append(f"runs ended by: {', '.join(f'{e} {n}' for e, n in ends.items() if n)} "
                     f"(call budget {runs[0].call_budget} model calls per run)")
    lines.append(f"dataset: RHAE-L5 {m5:.1f} +- {s5:.1f}, RHAE-L20 {m20:.1f} +- {s20:.1f}; solved slots "
                 f"{solved}/{slots}; completed runs {sum(r.completed for r in runs)}/{len(runs)}; "
                 f"p = {p:g}; reference = {ref_source()}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="RHAE of an array policy over a WITNESS split.")
    ap.add_argument("--split", default="test", choices=("train", "val", "test"))
    ap.add_argument("--policy", default="scripted", choices=("random", "scripted"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--power", type=float, default=DEFAULT_POWER)
    args = ap.parse_args(argv)
    print(report(play_runs(split_ids(args.split), args.policy, list(range(args.seeds))), args.power))


if __name__ == "__main__":
    main()
