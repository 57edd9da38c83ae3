"""Task sets from config: glob patterns, optional track filter and exclusions."""

from __future__ import annotations

import fnmatch
from typing import Any, Iterable

import glyphjax


def resolve_tasks(ids: Iterable[str] | str, track: str | None = None,
                  exclude: Iterable[str] | None = None) -> list[str]:
    """Registered task ids matching `ids` (ids, globs or suite names), in order of first match.

    An entry matching nothing raises `glyphjax.UnknownTaskError` naming close ids.
    """
    if isinstance(ids, str):
        ids = [ids]
    chosen = glyphjax.task_ids([str(i) for i in ids], track=track)
    for pat in exclude or ():
        chosen = [t for t in chosen if not fnmatch.fnmatch(t, str(pat))]
    if not chosen:
        raise glyphjax.UnknownTaskError(f"the task set {list(ids)} (track={track}, exclude={list(exclude or [])}) "
                                        "selects no registered task")
    return chosen


def tasks_from_config(tasks_cfg: Any) -> list[str]:
    get = tasks_cfg.get if hasattr(tasks_cfg, "get") else (lambda k, d=None: getattr(tasks_cfg, k, d))
    if get("mixture", None):
        from rl.mixture import mixture_tasks
        return mixture_tasks(dict(get("mixture")), get("track", None) or "standard")[0]
    ids = get("ids", None)
    if ids is None:
        raise ValueError("the task set has no ids; use tasks=snake|classics|minigrid|standard|dummy|all "
                         "or tasks.ids='[classics/snake-easy]'")
    return resolve_tasks(list(ids) if not isinstance(ids, str) else [ids], get("track", None),
                         get("exclude", None))
