"""Small recorded runs for tests and demos: trajectories in the rl/trajectory.py JSONL format,
made from glyphjax rollouts with scripted "model" text instead of a language model.

Each turn's completion is a short reasoning text ending in `<action>NAME</action>`; every
`fail_every`-th turn the text has no tag (a parse failure: the turn is a no-op), and `inject`
text (e.g. a `<script>`) can be put into the reasoning to test that viewers escape it.
"""

from __future__ import annotations

import os
from typing import Sequence

import numpy as np

import glyphjax


def synthetic_episode(task: str, seed: int, fail_every: int = 5, inject: str | None = None,
                      memory: bool = False, max_turns: int | None = None) -> dict:
    """One episode dict (rl.trajectory.EpisodeRecord.to_dict() layout) of random actions."""
    from glyphjax.harness.prompt import HarnessConfig, system_prompt
    env = glyphjax.make(task)
    card = env.card
    rng = np.random.default_rng(seed)
    T = card.max_steps if max_turns is None else min(max_turns, card.max_steps)
    actions = rng.integers(0, card.num_actions, T).astype(np.int32)
    fails = np.zeros(T, bool)
    if fail_every:
        fails[fail_every - 1::fail_every] = True
    actions = np.where(fails, -1, actions)
    frames, trans = glyphjax.replay(env, seed, actions)
    done = np.asarray(trans.terminated) | np.asarray(trans.truncated)
    length = int(np.argmax(done)) + 1 if done.any() else T
    obs = glyphjax.render_batch(card, frames)
    turns = []
    for t in range(length):
        a = int(actions[t])
        if a < 0:
            text, status, name = f"Turn {t}: the board is confusing; I will think more.", "no_tag", None
        else:
            name = card.actions[a]
            text = f"Turn {t}: I look at the grid and choose {name.lower()}.\n<action>{name}</action>"
        if inject and t % 3 == 1:
            text = f"{inject}\n{text}"
        prompt_ids = list(range(100 + t % 7))
        completion_ids = list(range(len(text) // 4 + 1))
        turns.append({
            "t": t, "observation": obs[t].render(), "history_shown": 0, "history_dropped": 0,
            "prompt_ids": prompt_ids, "completion_ids": completion_ids,
            "logprobs": [-0.5] * len(completion_ids), "completion": text,
            "finish_reason": "stop", "parse_status": status if a < 0 else "ok", "action": a,
            "action_name": name, "reward": float(trans.reward[t]),
            "terminated": bool(trans.terminated[t]), "truncated": bool(trans.truncated[t]),
            "prompt_tokens": len(prompt_ids), "completion_tokens": len(completion_ids),
            "memory": (f"notes after {t} turns: keep away from walls" if memory else None),
            "memory_update": None,
        })
    statuses: dict[str, int] = {}
    for tr in turns:
        statuses[tr["parse_status"]] = statuses.get(tr["parse_status"], 0) + 1
    harness = HarnessConfig(name="memory" if memory else "basic", memory=memory)
    return {
        "task": task, "seed": int(seed), "harness": harness.name, "policy": "fixture",
        "system_prompt": system_prompt(card, harness), "turns": turns,
        "return": float(np.sum(np.asarray(trans.reward[:length], np.float64))), "length": length,
        "terminated": bool(np.any(trans.terminated[:length])), "truncated": bool(np.any(trans.truncated[:length])),
        "prompt_tokens": sum(t["prompt_tokens"] for t in turns),
        "completion_tokens": sum(t["completion_tokens"] for t in turns),
        "parse_failures": sum(t["parse_status"] != "ok" for t in turns), "parse_status_counts": statuses,
        "truncations": 0, "context_drops": 0, "context_overflows": 0, "schema": 1,
    }


def write_fixture(path: str | os.PathLike, tasks: Sequence[str], seeds: Sequence[int], **kw) -> list[dict]:
    """Write one synthetic episode per (task, seed) to a JSONL file; returns the episode dicts."""
    import json
    eps = [synthetic_episode(t, s, **kw) for t in tasks for s in seeds]
    with open(path, "w", encoding="utf-8") as f:
        for e in eps:
            f.write(json.dumps(e, ensure_ascii=False) + "\n")
    return eps
