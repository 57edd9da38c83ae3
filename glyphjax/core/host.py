"""Host environments: real games that are not JAX (NetHack through `nle`), behind the text protocol.

A host env is not in the JAX registry (`glyphjax.make`, conformance and vmapped tools never see
it): it has a `card` (TaskCard), `batch(seeds)` -> an object with `observations(rows)` (text),
`step(actions)` -> {reward, terminated, truncated} arrays, `errors` (episode -> why it failed)
and `close()`. The rollout engine (`rl.rollout.run_rollouts`) plays host ids through that batch
like a JAX task's, so LLM evaluation and training take them in the same episode lists.
"""

from __future__ import annotations

import importlib

# host task id -> "module:factory" (imported only when asked for, so a missing package only
# matters to whoever makes that task)
HOST_TASKS: dict[str, str] = {"nethack/full": "glyphjax.suites.nethack:NetHackEnv"}
_MADE: dict[str, object] = {}


def is_host(task_id: str) -> bool:
    return task_id in HOST_TASKS


def make_host(task_id: str):
    """The host env of a host task id (its import error names the package extra to install)."""
    if task_id not in HOST_TASKS:
        raise KeyError(f"{task_id!r} is not a host task; host tasks: {', '.join(sorted(HOST_TASKS))}")
    if task_id not in _MADE:
        module, name = HOST_TASKS[task_id].split(":")
        _MADE[task_id] = getattr(importlib.import_module(module), name)()
    return _MADE[task_id]
