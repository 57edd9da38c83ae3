"""Teacher trajectories for distillation from an array bot (gamesmith.md §5.1 on a CPU).

    python -m rl.teacher --tasks zerosum/tictactoe/base --seeds 64 --bot scripted --out teacher.jsonl

plays every seat of each episode with a `NarratedPlayer` (the bot's move plus a short line naming
it, in the response format the harness parses) and writes the records as JSON Lines, the same
files a vLLM or local teacher writes; `glyphjax-train rl.mode=sft rl.sft.data=[teacher.jsonl]`
trains on them. Bots: `random` (uniform over legal moves) and `scripted` (the task's own
scripted policy).
"""

from __future__ import annotations

import argparse
from typing import Callable, Sequence

from glyphjax.core.registry import make, task_ids
from glyphjax.core.rollout import random_legal_policy
from glyphjax.harness.prompt import HarnessConfig
from rl.rollout import NarratedPlayer, run_rollouts
from rl.trajectory import EpisodeRecord

BOTS = ("random", "scripted")


def narration(name: str | None) -> str:
    """The teacher's reply: one line of reasoning, then the action tag."""
    if name is None:
        return "I have no legal move."
    return f"The best move here is {name}.\n<action>{name}</action>"


def bot_player(task: str, bot: str, narrate: Callable[[str | None], str] = narration) -> NarratedPlayer:
    """The named bot of one task as a narrated player; ValueError for an unknown bot or a task
    without a scripted policy."""
    env = make(task)
    if bot == "random":
        return NarratedPlayer(random_legal_policy(env), "random-teacher", narrate)
    if bot == "scripted":
        if env.scripted_policy is None:
            raise ValueError(f"{task} has no scripted policy; use --bot random")
        return NarratedPlayer(env.scripted_policy, "scripted-teacher", narrate)
    raise ValueError(f"unknown bot {bot!r}; choose one of {', '.join(BOTS)}")


def write_teacher(tasks: Sequence[str], seeds: Sequence[int], bot: str, out: str,
                  harness: HarnessConfig | None = None) -> list[EpisodeRecord]:
    """Play every (task, seed) with the bot in every seat; write and return the records."""
    records: list[EpisodeRecord] = []
    for task in tasks:
        records += run_rollouts(bot_player(task, bot), [(task, int(s)) for s in seeds], harness, out_path=out)
    return records


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", nargs="+", required=True, help="task ids or globs")
    ap.add_argument("--seeds", type=int, default=64, help="episodes per task (seeds 0..N-1)")
    ap.add_argument("--bot", choices=BOTS, default="scripted")
    ap.add_argument("--history", type=int, default=0, help="history pairs in each prompt (the student's harness)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    recs = write_teacher(task_ids(a.tasks), range(a.seeds), a.bot, a.out, HarnessConfig(history=a.history))
    turns = sum(len(r.turns) for r in recs)
    print(f"wrote {len(recs)} seat records ({turns} teacher turns) to {a.out}")


if __name__ == "__main__":
    main()
