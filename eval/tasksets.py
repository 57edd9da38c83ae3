"""Task sets from config: glob patterns, optional track filter and exclusions."""

from __future__ import annotations

import fnmatch
from typing import Any, Iterable

import glyphjax


def host_entries(ids: Iterable[str], track: str | None = None) -> tuple[list[str], list[str]]:
    """(host task ids named by `ids`, the other entries). An entry names host tasks when it
    matches a host id (`glyphjax.core.host.HOST_TASKS`, e.g. nethack/full) and spells out its
    suite (`nethack/full`, `nethack/*`, `nethack`); `*` or `all` never pull in a host game."""
    from glyphjax.core.host import HOST_TASKS, make_host
    hosts, rest = [], []
    for entry in ids:
        suite = entry.strip().split("/")[0]
        named = [h for h in HOST_TASKS if suite == h.split("/")[0]
                 and (fnmatch.fnmatch(h, entry.strip()) or entry.strip().rstrip("/") == suite)]
        if not named:
            rest.append(entry)
        hosts += [h for h in named if h not in hosts and (track is None or make_host(h).card.track == track)]
    return hosts, rest


def resolve_tasks(ids: Iterable[str] | str, track: str | None = None,
                  exclude: Iterable[str] | None = None, hosts: bool = False) -> list[str]:
    """Registered task ids matching `ids` (ids, globs or suite names), in order of first match;
    with `hosts`, also the host tasks they name (`host_entries`), after the JAX ones.

    An entry matching nothing raises `glyphjax.UnknownTaskError` naming close ids.
    """
    if isinstance(ids, str):
        ids = [ids]
    ids = [str(i) for i in ids]
    host_ids, ids = host_entries(ids, track) if hosts else ([], ids)
    chosen = (glyphjax.task_ids(ids, track=track) if ids else []) + host_ids
    for pat in exclude or ():
        chosen = [t for t in chosen if not fnmatch.fnmatch(t, str(pat))]
    if not chosen:
        raise glyphjax.UnknownTaskError(f"the task set {list(ids)} (track={track}, exclude={list(exclude or [])}) "
                                        "selects no registered task")
    return chosen


def tasks_from_config(tasks_cfg: Any, hosts: bool = False) -> list[str]:
    get = tasks_cfg.get if hasattr(tasks_cfg, "get") else (lambda k, d=None: getattr(tasks_cfg, k, d))
    if get("mixture", None):
        from rl.mixture import mixture_tasks
        return mixture_tasks(dict(get("mixture")), get("track", None) or "standard")[0]
    ids = get("ids", None)
    if ids is None:
        raise ValueError("the task set has no ids; use tasks=snake|classics|minigrid|standard|dummy|all "
                         "or tasks.ids='[classics/snake-easy]'")
    return resolve_tasks(list(ids) if not isinstance(ids, str) else [ids], get("track", None),
                         get("exclude", None), hosts=hosts)
