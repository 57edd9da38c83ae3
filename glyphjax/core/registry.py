"""One registry of tasks: ids `suite/name` (or `suite/group/name`, e.g. the WITNESS splits
`witness/train/<game>`), task sets by suite, track and glob, and `make`.

Suites register a factory per id at import time (`register("classics/snake-easy", factory)`);
nothing is built until `make` asks for it, and each env is built once (envs are stateless).
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import fnmatch
import importlib
from typing import Callable, Iterable, Iterator

from glyphjax.core.host import is_host
from glyphjax.core.types import EXTENDED, STANDARD, Env

# Suite packages imported on first use of the registry (each registers its tasks on import).
SUITE_MODULES: tuple[str, ...] = (
    "glyphjax.suites.dummy",
    "glyphjax.suites.classics",
    "glyphjax.suites.minigrid",
    "glyphjax.suites.procgen",
    "glyphjax.suites.minihack",
    "glyphjax.suites.craftax",
    "glyphjax.suites.arcade",
    "glyphjax.witness.tasks",
    "glyphjax.zerosum",
)


class UnknownTaskError(KeyError):
    """A task id or pattern that names no registered task."""

    def __str__(self) -> str:  # KeyError quotes its message; show it plainly
        return str(self.args[0])


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    id: str
    factory: Callable[[], Env]
    track: str = STANDARD

    @property
    def suite(self) -> str:
        return self.id.split("/", 1)[0]


_REGISTRY: dict[str, TaskSpec] = {}
_ENVS: dict[str, Env] = {}
_LOADED = False


def register(task_id: str, factory: Callable[[], Env], track: str = STANDARD) -> None:
    """Register a task. Ids are `suite/name` or `suite/group/name`, lower-case, unique."""
    parts = task_id.split("/")
    if len(parts) not in (2, 3) or not all(parts) or task_id != task_id.lower() or " " in task_id:
        raise ValueError(f"task id {task_id!r} must look like 'suite/name' or 'suite/group/name' (lower case)")
    if track not in (STANDARD, EXTENDED):
        raise ValueError(f"{task_id}: track must be {STANDARD!r} or {EXTENDED!r}")
    if task_id in _REGISTRY:
        raise ValueError(f"task id {task_id!r} registered twice")
    _REGISTRY[task_id] = TaskSpec(task_id, factory, track)


@contextlib.contextmanager
def registered(task_id: str, factory: Callable[[], Env], track: str = STANDARD) -> Iterator[Env]:
    """Register a task for the duration of a `with` block and yield its env (tests, notebooks,
    docs: registry-wide code elsewhere never sees it afterwards)."""
    _load_suites()
    register(task_id, factory, track)
    try:
        yield make(task_id)
    finally:
        _REGISTRY.pop(task_id, None)
        _ENVS.pop(task_id, None)


def _load_suites() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    for mod in SUITE_MODULES:
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as e:  # a suite not built yet is simply absent
            if e.name != mod:
                raise


def all_ids() -> list[str]:
    _load_suites()
    return sorted(_REGISTRY)


def spec(task_id: str) -> TaskSpec:
    _load_suites()
    try:
        return _REGISTRY[task_id]
    except KeyError:
        raise UnknownTaskError(_unknown_message(task_id)) from None


def make(task_id: str) -> Env:
    """The env for a registered id (built once, then shared: envs hold no mutable state)."""
    s = spec(task_id)
    if task_id not in _ENVS:
        env = s.factory()
        if env.card.id != task_id:
            raise RuntimeError(f"factory for {task_id!r} built a card with id {env.card.id!r}")
        _ENVS[task_id] = env
    return _ENVS[task_id]


def task_ids(pattern: str | Iterable[str] | None = None, *, suite: str | None = None,
             track: str | None = None) -> list[str]:
    """Task ids matching glob pattern(s) (`classics/*`, `*/snake-*`), a suite and/or a track.

    A pattern or list entry that matches nothing raises `UnknownTaskError` naming close ids,
    so a typo never silently shrinks a task set. `suite/` or a bare suite name means the suite.
    """
    ids = all_ids()
    if pattern is not None:
        patterns = [pattern] if isinstance(pattern, str) else list(pattern)
        chosen: list[str] = []
        for pat in patterns:
            pat = pat.strip()
            if pat in ("all", "*"):
                hits = ids
            elif "/" not in pat and not any(c in pat for c in "*?["):
                hits = [i for i in ids if i.split("/", 1)[0] == pat]  # a suite name
            else:
                hits = fnmatch.filter(ids, pat.rstrip("/") + ("/*" if pat.endswith("/") else ""))
            if not hits:
                raise UnknownTaskError(_unknown_message(pat))
            chosen.extend(h for h in hits if h not in chosen)
        ids = chosen
    if suite is not None:
        if suite not in suite_names():
            raise UnknownTaskError(f"unknown suite {suite!r}; registered suites: {', '.join(suite_names())}")
        ids = [i for i in ids if _REGISTRY[i].suite == suite]
    if track is not None:
        if track not in (STANDARD, EXTENDED):
            raise ValueError(f"unknown track {track!r}; use {STANDARD!r} or {EXTENDED!r}")
        ids = [i for i in ids if _REGISTRY[i].track == track]
    return ids


def programs(pattern: str | Iterable[str] | None = None) -> dict[str, list[str]]:
    """Distinct compiled programs among the ids matching `pattern` (as `task_ids`): {first id of
    the program: [its ids]}. Ids of one program differ only in traced params (`Env.program`), so
    one compile serves them all and one vmapped batch can mix them."""
    groups: dict[tuple, list[str]] = {}
    for task_id in task_ids(pattern):
        groups.setdefault(make(task_id).program, []).append(task_id)
    return {ids[0]: ids for ids in groups.values()}


def suite_names() -> list[str]:
    return sorted({s.suite for s in (_REGISTRY[i] for i in all_ids())})


def _unknown_message(task_id: str) -> str:
    if is_host(task_id):
        return (f"{task_id!r} is a host env (a real game, not JAX): make it with "
                f"glyphjax.core.host.make_host({task_id!r}); rl.rollout.run_rollouts plays it directly")
    ids = sorted(_REGISTRY)
    close = difflib.get_close_matches(task_id, ids, n=5, cutoff=0.5)
    if not close:  # also try the name part alone
        name = task_id.split("/")[-1]
        close = [i for i in ids if name and name.split("-")[0] in i][:5]
    hint = f"; closest: {', '.join(close)}" if close else ""
    return (f"unknown task id {task_id!r}{hint}. "
            f"List tasks with glyphjax.task_ids() ({len(ids)} registered).")
