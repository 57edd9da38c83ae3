"""Reasoning Gym transfer protocol: certify the scorers and time the pipeline on CPU.

    python bench/reasoning_gym_smoke.py                      # both parts, full 31 x 100 certification
    python bench/reasoning_gym_smoke.py --problems 20 --skip-certify

1. Certification: an oracle that answers every problem of the 31 protocol tasks with its gold
   answer must score strict accuracy 1.0 on every task through `run_transfer` (the package's own
   `score_answer`, our `<answer>` extraction), and a policy answering nonsense 0.0.
2. Smoke: the tiny local model (rl.tiny, CPU) on a few tasks; prints problems/s (each problem
   with all its attempts). Figures are wall seconds on a shared machine: quote them as noisy.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from eval.reasoning_transfer import problems, run_transfer, transfer_tasks  # noqa: E402
from rl.policies.base import Completion, SamplingParams  # noqa: E402


class Oracle:
    """Answers with the gold answers (`gold[question]`: one per occurrence, in problem order, since
    a few codeio questions repeat with different gold inputs), or with nonsense when gold is None."""

    name = "oracle"

    def __init__(self, gold: dict[str, list[str]] | None):
        self.gold = gold

    def complete(self, conversations, sampling):
        seen: dict[str, int] = {}
        texts = []
        for c in conversations:
            q = c[-1]["content"]
            k = seen[q] = seen.get(q, -1) + 1
            texts.append(f"<answer>{self.gold[q][k] if self.gold is not None else 'no idea'}</answer>")
        return [Completion(t, [1], [2], [0.0], "stop") for t in texts]


def certify(n: int, seed: int) -> bool:
    tasks = transfer_tasks()
    t0 = time.perf_counter()
    gold: dict[str, list[str]] = {}
    for t in tasks:
        for e in problems(t, n, seed)[1]:
            gold.setdefault(e["question"], []).append(str(e["answer"]))
    right = run_transfer(Oracle(gold), tasks, n, 1, seed, SamplingParams(), n_resamples=100)
    wrong = run_transfer(Oracle(None), tasks, n, 1, seed, SamplingParams(), n_resamples=100)
    bad = [t for t in tasks if right["tasks"][t]["accuracy"] != 1.0 or wrong["tasks"][t]["accuracy"] != 0.0]
    print(f"certify: {len(tasks)} tasks x {n} problems, gold answers -> {right['overall']['accuracy']:.3f}, "
          f"nonsense -> {wrong['overall']['accuracy']:.3f}; failing tasks: {bad or 'none'} "
          f"({time.perf_counter() - t0:.1f} s)")
    return not bad


def smoke(tasks: list[str], n: int, attempts: int, max_new_tokens: int) -> None:
    from rl.policies.local import load_local_policy
    policy = load_local_policy(None)
    sampling = SamplingParams(temperature=0.6, top_p=0.9, max_new_tokens=max_new_tokens)
    run_transfer(policy, tasks[:1], 1, 1, 0, sampling, n_resamples=100)  # compile outside the timing
    doc = run_transfer(policy, tasks, n, attempts, 0, sampling, n_resamples=1000)
    print(f"smoke: tiny local model, {len(tasks)} tasks x {n} problems x {attempts} attempts, "
          f"{max_new_tokens} new tokens: {doc['problems_per_second']:.2f} problems/s "
          f"({doc['seconds']:.1f} s), accuracy {doc['overall']['accuracy']:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--problems", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-certify", action="store_true")
    ap.add_argument("--smoke-tasks", default="basic_arithmetic,maze,coin_flip")
    ap.add_argument("--smoke-problems", type=int, default=8)
    ap.add_argument("--max-new-tokens", type=int, default=32)
    args = ap.parse_args()
    ok = True if args.skip_certify else certify(args.problems, args.seed)
    smoke(args.smoke_tasks.split(","), args.smoke_problems, 3, args.max_new_tokens)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
