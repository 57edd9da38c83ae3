"""Per-seat evaluation of array policies against an opponent bot in two-player games.

    glyphjax-eval tasks=zerosum policy=random opponent=minimax opponent.depth=2

For every two-player task and each seat, the policy plays that seat and the opponent
(`glyphjax.core.bots`: random, scripted or minimax) every other seat, on the same held-out seeds,
so each policy plays both seats of every seed. Results: one run per policy and seat, labelled
`<policy>@seat<i>` (the policy's returns in that seat), and per task and seat the policy's win /
draw / loss rates with percentile-bootstrap intervals. Against an opponent the policy `random`
plays uniformly random *legal* moves (a random index would forfeit most games on an illegal
move) and `scripted` is the game's reference bot. Tasks with one seat, or without the bot asked
for, are skipped and listed.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

import glyphjax
from glyphjax.core.bots import BOTS, bot, seated
from eval.benchmark import TaskEvaluator
from eval.results import TaskResult
from eval.stats import mean_ci

OUTCOMES = ("win", "draw", "loss")


def opponent_label(name: str, depth: int) -> str:
    return f"minimax(depth={depth})" if name == "minimax" else name


def check_opponent(name: str, depth: int) -> None:
    """ValueError naming the key when the opponent config is unusable."""
    if name not in BOTS:
        raise ValueError(f"opponent.name={name!r} is not a bot; choose one of {', '.join(BOTS)}")
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise ValueError(f"opponent.depth={depth!r} must be an integer >= 1")


def playable(tasks: list[str], policy: str, opponent: str, depth: int) -> tuple[list[str], dict[str, str]]:
    """(tasks the policy can play against the opponent, {task: why not} for the others)."""
    ok, skipped = [], {}
    for task in tasks:
        env = glyphjax.make(task)
        if env.card.num_players < 2:
            skipped[task] = "one seat"
            continue
        try:
            bot(env, policy)
            bot(env, opponent, depth)
        except ValueError as e:
            skipped[task] = str(e)
            continue
        ok.append(task)
    return ok, skipped


def seat_evaluator(policy: str, opponent: str, depth: int, seat: int, batch_size: int = 4096) -> TaskEvaluator:
    """Evaluates `policy` in `seat` with `opponent` in every other seat; the policy's returns."""
    from eval.runner import evaluate_task

    def evaluate(task: str, seeds: np.ndarray) -> TaskResult:
        env = glyphjax.make(task)
        players = [bot(env, opponent, depth)] * env.card.num_players
        players[seat] = bot(env, policy)
        return evaluate_task(task, seated(env, players), seeds, batch_size, seat=seat)
    return evaluate


def outcome_rates(r: TaskResult, n_resamples: int, seed: int, confidence: float) -> dict:
    """{win|draw|loss: [rate, low, high]} of the returns in `r` (bootstrap intervals)."""
    signs = np.sign(r.returns)
    return {name: list(mean_ci((signs == s).astype(np.float64), n_resamples, seed, confidence))
            for name, s in zip(OUTCOMES, (1, 0, -1))}


def seat_summary(runs: Mapping[str, Mapping[str, TaskResult]], n_resamples: int, seed: int,
                 confidence: float) -> dict:
    """{policy: {task: {seat<i>: outcome rates}}} from the `<policy>@seat<i>` runs."""
    out: dict = {}
    for label, results in runs.items():
        policy, seat = label.rsplit("@", 1)
        for task, r in results.items():
            out.setdefault(policy, {}).setdefault(task, {})[seat] = outcome_rates(r, n_resamples, seed, confidence)
    return out


def print_seat_tables(seats: Mapping, opponent: str, file=None) -> None:
    """One table per policy: per task and seat, win / draw / loss rates with their intervals."""
    from rich.table import Table
    from eval.tables import _console
    console = _console(file)
    for policy, tasks in seats.items():
        t = Table(title=f"policy {policy} vs {opponent}, per seat: rate (bootstrap CI)", title_justify="left")
        for col in ("task", "seat", *OUTCOMES):
            t.add_column(col, justify="left" if col == "task" else "right")
        for task, by_seat in tasks.items():
            for seat, rates in sorted(by_seat.items()):
                t.add_row(task, seat.removeprefix("seat"),
                          *(f"{m:.1%} [{lo:.1%}, {hi:.1%}]" for m, lo, hi in (rates[o] for o in OUTCOMES)))
        console.print(t)
