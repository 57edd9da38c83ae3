"""Reasoning Gym transfer evaluation: does game RL change a model's general reasoning?

Protocol (formulas.md §1, the GlyphBench paper): 31 tasks x 100 problems x 3 attempts, sampled at
temperature 0.6 and top-p 0.9 with a large output budget; the answer is the last
`<answer>...</answer>` block, scored by the dataset's own `score_answer`; an attempt succeeds when
that score is >= 1 (a few open-ended tasks give partial credit; the raw scores are kept too).
Strict accuracy divides successes by all attempts; pass@3 counts problems with any success.
Tasks weigh equally (overall and within a category). 95% intervals are percentile bootstrap
intervals over 10,000 resamples that resample problems within each task and keep a problem's
attempts together; the paired interval between two checkpoints resamples the per-problem
differences the same way (one draw shared by both runs).

Task list **(ours; the paper names 31 tasks but our copy does not list them)**: Reasoning Gym's
twelve categories (its module paths; the `composite` mixer left out), three tasks per category
and every task of a category that has fewer (code, geometry, induction: two; probability: one),
chosen for multi-step and grid/spatial structure and for strict scorers (a task whose gold answer
does not score 1, e.g. propositional_logic, is not used). `TRANSFER_TASKS` is the list.

Draw order (so an independent implementation reproduces the intervals): one
`numpy.random.default_rng(seed)`; tasks in sorted order; for each task `eval.stats.bootstrap_means`
over its per-problem values (attempt means, or differences of attempt means when paired).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from eval.stats import bootstrap_means, percentile_interval

TRANSFER_TASKS: dict[str, tuple[str, ...]] = {
    "algebra": ("simple_equations", "polynomial_multiplication", "complex_arithmetic"),
    "algorithmic": ("number_sorting", "spiral_matrix", "game_of_life"),
    "arc": ("arc_1d", "arc_agi", "rearc"),
    "arithmetic": ("basic_arithmetic", "chain_sum", "gsm_symbolic"),
    "code": ("bf", "codeio"),
    "cognition": ("color_cube_rotation", "rectangle_count", "number_sequence"),
    "games": ("maze", "mini_sudoku", "tower_of_hanoi"),
    "geometry": ("simple_geometry", "advanced_geometry"),
    "graphs": ("shortest_path", "largest_island", "course_schedule"),
    "induction": ("list_functions", "acre"),
    "logic": ("knights_knaves", "syllogism", "circuit_logic"),
    "probability": ("coin_flip",),
}

SYSTEM_PROMPT = ("Solve the problem. Think step by step, then give only the final answer inside "
                 "<answer></answer> tags, in the format the problem asks for.")
SUCCESS_SCORE = 1.0


def transfer_tasks() -> list[str]:
    """The 31 protocol tasks, category by category."""
    return [t for names in TRANSFER_TASKS.values() for t in names]


def task_category(task: str) -> str:
    """A Reasoning Gym dataset's category: the package module it lives in (`reasoning_gym.<cat>.*`)."""
    from reasoning_gym.factory import DATASETS
    if task not in DATASETS:
        raise ValueError(f"unknown Reasoning Gym task {task!r}; e.g. {', '.join(transfer_tasks()[:5])} "
                         f"(all {len(DATASETS)}: reasoning_gym.factory.DATASETS)")
    return DATASETS[task][0].__module__.split(".")[1]


def problems(task: str, n: int, seed: int) -> tuple[Any, list[dict]]:
    """(dataset, its first n problems) for `task` generated from `seed`. A few generators (codeio
    runs reference code) also draw from Python's and numpy's global RNGs, so those are seeded
    from `seed` during generation and restored afterwards: the problems depend on the seed alone."""
    import random

    import reasoning_gym
    task_category(task)
    saved = random.getstate(), np.random.get_state()
    try:
        random.seed(int(seed))
        np.random.seed(int(seed) % 2**32)
        dataset = reasoning_gym.create_dataset(task, seed=int(seed), size=int(n))
        return dataset, [dataset[i] for i in range(int(n))]
    finally:
        random.setstate(saved[0])
        np.random.set_state(saved[1])


def score_completion(dataset: Any, entry: dict, text: str) -> float:
    """The dataset's own score of the completion's last `<answer>` block (0 when there is none)."""
    from reasoning_gym.utils import extract_answer
    answer = extract_answer(text or "")
    return 0.0 if answer is None else float(dataset.score_answer(answer, entry))


def conversation(entry: dict) -> list[dict]:
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": entry["question"]}]


def solve_task(policy: Any, task: str, n_problems: int, attempts: int, seed: int, sampling: Any
               ) -> dict:
    """Every attempt at `task`'s problems: raw scores [problems, attempts] and the completions.
    Attempt k samples with seed `sampling.seed + k`, so attempts differ under seeded servers."""
    import dataclasses
    dataset, entries = problems(task, n_problems, seed)
    convs = [conversation(e) for e in entries]
    scores = np.zeros((len(entries), attempts), np.float64)
    texts: list[list[str]] = [[] for _ in entries]
    for k in range(attempts):
        completions = policy.complete(convs, dataclasses.replace(sampling, seed=sampling.seed + k))
        for i, (entry, c) in enumerate(zip(entries, completions)):
            scores[i, k] = score_completion(dataset, entry, c.text)
            texts[i].append(c.text)
    return {"category": task_category(task), "scores": scores.tolist(), "completions": texts}


def _interval(samples: np.ndarray, confidence: float) -> list[float]:
    return list(percentile_interval(samples, confidence))


def summarise(successes: Mapping[str, np.ndarray], categories: Mapping[str, str], n_resamples: int = 10_000,
              seed: int = 0, confidence: float = 0.95) -> dict:
    """Strict accuracy per task, per category and overall (tasks weighted equally) with problem
    bootstrap intervals; pass@k per task. `successes[task]`: bool/0-1 [problems, attempts]."""
    rng = np.random.default_rng(seed)
    tasks = sorted(successes)
    per_problem = {t: np.asarray(successes[t], np.float64).mean(axis=1) for t in tasks}
    boot = {t: bootstrap_means(per_problem[t], n_resamples, rng) for t in tasks}
    out: dict = {"tasks": {}, "categories": {}}
    for t in tasks:
        s = np.asarray(successes[t], np.float64)
        out["tasks"][t] = {"category": categories[t], "accuracy": float(s.mean()),
                           "accuracy_ci": _interval(boot[t], confidence),
                           "pass_at_k": float(s.max(axis=1).mean()), "problems": s.shape[0], "attempts": s.shape[1]}
    for c in sorted({categories[t] for t in tasks}):
        ts = [t for t in tasks if categories[t] == c]
        out["categories"][c] = {"accuracy": float(np.mean([per_problem[t].mean() for t in ts])),
                                "accuracy_ci": _interval(np.mean([boot[t] for t in ts], axis=0), confidence),
                                "tasks": len(ts)}
    out["overall"] = {"accuracy": float(np.mean([per_problem[t].mean() for t in tasks])),
                      "accuracy_ci": _interval(np.mean([boot[t] for t in tasks], axis=0), confidence),
                      "tasks": len(tasks)}
    return out


def paired_problem_bootstrap(a: Mapping[str, np.ndarray], b: Mapping[str, np.ndarray], n_resamples: int = 10_000,
                             seed: int = 0, confidence: float = 0.95) -> dict:
    """Checkpoint A minus B on the same problems: per task and overall (tasks weighted equally) the
    mean accuracy difference, its paired interval (problems resampled within tasks, a problem's
    attempts kept together) and the share of resamples with A > B."""
    if set(a) != set(b):
        raise ValueError(f"paired comparison needs the same tasks; only in A: {sorted(set(a) - set(b))}, "
                         f"only in B: {sorted(set(b) - set(a))}")
    rng = np.random.default_rng(seed)
    tasks = sorted(a)
    diffs = {}
    for t in tasks:
        sa, sb = np.asarray(a[t], np.float64), np.asarray(b[t], np.float64)
        if sa.shape[0] != sb.shape[0]:
            raise ValueError(f"{t}: A has {sa.shape[0]} problems and B {sb.shape[0]}; pair runs of the same "
                             f"problems (same reasoning_gym.problems and seed)")
        diffs[t] = sa.mean(axis=1) - sb.mean(axis=1)
    boot = {t: bootstrap_means(diffs[t], n_resamples, rng) for t in tasks}
    overall = np.mean([boot[t] for t in tasks], axis=0)
    return {"mean_difference": float(np.mean([diffs[t].mean() for t in tasks])),
            "difference_ci": _interval(overall, confidence), "prob_a_better": float(np.mean(overall > 0)),
            "tasks": {t: {"mean_difference": float(diffs[t].mean()),
                          "difference_ci": _interval(boot[t], confidence)} for t in tasks}}


def strict(scores: Any) -> np.ndarray:
    """Raw scores -> strict successes (score >= 1)."""
    return np.asarray(scores, np.float64) >= SUCCESS_SCORE


def run_transfer(policy: Any, tasks: Sequence[str], n_problems: int, attempts: int, seed: int, sampling: Any,
                 n_resamples: int = 10_000, bootstrap_seed: int = 0, confidence: float = 0.95,
                 on_task: Callable[[str, dict], None] | None = None) -> dict:
    """The whole protocol with a text policy: per-task records, the summary, problems/s."""
    if n_problems < 1 or attempts < 1:
        raise ValueError(f"reasoning_gym needs problems >= 1 and attempts >= 1, got {n_problems} and {attempts}")
    start = time.perf_counter()
    records = {}
    for task in tasks:
        records[task] = solve_task(policy, task, n_problems, attempts, seed, sampling)
        if on_task is not None:
            on_task(task, records[task])
    seconds = time.perf_counter() - start
    summary = summarise({t: strict(r["scores"]) for t, r in records.items()},
                        {t: r["category"] for t, r in records.items()}, n_resamples, bootstrap_seed, confidence)
    return {"suite": "reasoning_gym", "records": records, **summary,
            "seconds": seconds, "problems_per_second": len(tasks) * n_problems / seconds}


def run_from_config(cfg: Any, out: str | None) -> dict:
    """`glyphjax-eval suite=reasoning_gym ...`: build the text policy, run the protocol, pair it with
    `reasoning_gym.compare` when given, print the tables and write the results JSON to `out`."""
    from eval.benchmark import write_json
    from eval.llm import resolve_model
    from rl.llm_eval import make_policy
    from rl.policies.base import SamplingParams
    pol, rg = cfg.policy, cfg.reasoning_gym
    if pol.get("kind") != "llm":
        raise ValueError(f"suite=reasoning_gym needs a text policy (policy=vllm or policy=local), not {pol.name!r}")
    model = resolve_model(cfg)
    if not model:
        raise ValueError(f"policy={pol.name} needs model=... (a checkpoint path for local, the served model name for vllm)")
    tasks = list(rg.tasks) or transfer_tasks()
    for t in tasks:
        task_category(t)
    policy = make_policy(pol.name, model=model, server_url=cfg.server.url)
    sampling = SamplingParams(temperature=float(rg.temperature), top_p=float(rg.top_p),
                              max_new_tokens=int(rg.max_new_tokens), seed=int(pol.seed))
    doc = run_transfer(policy, tasks, int(rg.problems), int(rg.attempts), int(rg.seed), sampling,
                       int(cfg.bootstrap.resamples), int(cfg.bootstrap.seed), float(cfg.bootstrap.confidence),
                       on_task=lambda t, r: print(f"reasoning_gym {t}: accuracy {strict(r['scores']).mean():.3f}",
                                                  flush=True))
    doc["policy"] = f"{pol.name}:{model}"
    doc["protocol"] = {"problems": int(rg.problems), "attempts": int(rg.attempts), "seed": int(rg.seed),
                       "temperature": float(rg.temperature), "top_p": float(rg.top_p),
                       "max_new_tokens": int(rg.max_new_tokens)}
    if rg.compare:
        doc["comparison"] = compare_with(doc, load_results(str(rg.compare)), int(cfg.bootstrap.resamples),
                                         int(cfg.bootstrap.seed), float(cfg.bootstrap.confidence))
    print(summary_text(doc))
    if out:
        write_json(out, doc)
    return doc


def load_results(path: str) -> dict:
    """A reasoning_gym results JSON written by `run_from_config`."""
    import json
    from pathlib import Path
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if doc.get("suite") != "reasoning_gym" or "records" not in doc:
        raise ValueError(f"{path} is not a reasoning_gym results file (glyphjax-eval suite=reasoning_gym writes one)")
    return doc


def compare_with(a: dict, b: dict, n_resamples: int, seed: int, confidence: float) -> dict:
    """This run (A) minus another (B) on their common protocol: paired problem bootstrap."""
    if a.get("protocol", {}).get("seed") != b.get("protocol", {}).get("seed"):
        raise ValueError("the two runs used different reasoning_gym.seed values, so their problems differ; "
                         "pair runs made with the same seed")
    out = paired_problem_bootstrap({t: strict(r["scores"]) for t, r in a["records"].items()},
                                   {t: strict(r["scores"]) for t, r in b["records"].items()},
                                   n_resamples, seed, confidence)
    return {"a": a.get("policy"), "b": b.get("policy"), **out}


def summary_text(doc: dict) -> str:
    """Per-task, per-category and overall strict accuracy with intervals, as plain text lines."""
    def row(name: str, d: dict, extra: str = "") -> str:
        lo, hi = d["accuracy_ci"]
        return f"{name:28s} {d['accuracy']:6.3f}  [{lo:.3f}, {hi:.3f}]{extra}"
    lines = [f"Reasoning Gym transfer ({doc.get('policy', '?')}): strict accuracy, 95% problem-bootstrap interval"]
    lines += [row(t, d, f"  pass@{d['attempts']} {d['pass_at_k']:.3f}") for t, d in doc["tasks"].items()]
    lines += [row(f"[{c}]", d) for c, d in doc["categories"].items()]
    lines.append(row("overall", doc["overall"]) + f"  ({doc['problems_per_second']:.2f} problems/s)")
    if "comparison" in doc:
        c = doc["comparison"]
        lo, hi = c["difference_ci"]
        lines.append(f"A - B = {c['mean_difference']:+.3f} [{lo:+.3f}, {hi:+.3f}], P(A > B) = {c['prob_a_better']:.3f}")
    return "\n".join(lines)
