"""What identifies the results of an evaluation run, so a resume never serves stale episodes.

A finished task is reused from a partial file only when its key matches (`eval.benchmark.run_key`):
the policy label and seeds plus the identity built here from

- the resolved config minus what cannot change an episode (`NOT_RESULT_KEYS`: output paths,
  progress display, the task list and seeds (keyed separately), bootstrap settings); any other
  key, including one added later, is part of the identity (a needless recompute beats a stale
  result);
- the checkpoint's content: SHA-256 of the bytes of its weight, config and tokenizer files
  (`CHECKPOINT_SUFFIXES`, top level of the directory); per-file digests are cached under
  `$GLYPHJAX_CACHE` (default ~/.cache/glyphjax) keyed by path, size, mtime and ctime, so a
  file is re-read only after it changed;
- the code version: the package version plus the git commit of the source tree and a digest of
  its uncommitted changes to the packages, when it is a git checkout.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Mapping

NOT_RESULT_KEYS = frozenset({"out", "resume", "progress", "tasks", "seeds", "seed_start", "bootstrap",
                             "batch_size", "hydra", "run_dir", "out_dir", "output_dir"})
CHECKPOINT_SUFFIXES = (".safetensors", ".json", ".model", ".txt", ".jinja", ".tiktoken")
PACKAGES = ("glyphjax", "rl", "eval")
_CHUNK = 1 << 20


def digest(obj: Any) -> str:
    """Short SHA-256 of a JSON-able object (keys sorted)."""
    data = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str).encode("utf-8")
    return hashlib.sha256(data).hexdigest()[:16]


def config_identity(config: Mapping[str, Any]) -> dict[str, Any]:
    """The resolved config (a plain mapping) without the keys that cannot change an episode."""
    return {k: v for k, v in config.items() if k not in NOT_RESULT_KEYS}


def _cache_file() -> Path:
    root = os.environ.get("GLYPHJAX_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "glyphjax")
    return Path(root) / "file-digests.json"


def _load_cache(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _save_cache(path: Path, cache: dict[str, Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(cache), encoding="utf-8")
        tmp.replace(path)
    except OSError:  # a read-only home only costs re-hashing next time
        pass


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def checkpoint_files(path: str | os.PathLike) -> list[Path]:
    """The files whose bytes define a checkpoint: a file itself, or a directory's top-level
    weight/config/tokenizer files."""
    p = Path(path)
    if p.is_file():
        return [p]
    if not p.is_dir():
        return []
    return sorted(f for f in p.iterdir() if f.is_file() and f.suffix in CHECKPOINT_SUFFIXES
                  and not f.name.startswith("."))


def checkpoint_digest(path: str | os.PathLike) -> str:
    """SHA-256 over the names and bytes of `checkpoint_files(path)`; "none" when there are none
    (e.g. a served model name)."""
    files = checkpoint_files(path)
    if not files:
        return "none"
    cache_path = _cache_file()
    cache = _load_cache(cache_path)
    h = hashlib.sha256()
    changed = False
    for f in files:
        st = f.stat()
        key = str(f.resolve())
        stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
        hit = cache.get(key)
        if not hit or hit.get("stamp") != stamp:
            hit = {"stamp": stamp, "sha256": file_sha256(f)}
            cache[key] = hit
            changed = True
        h.update(f.name.encode("utf-8") + b"\0" + hit["sha256"].encode("ascii") + b"\n")
    if changed:
        _save_cache(cache_path, cache)
    return h.hexdigest()[:16]


def _git(root: Path, *args: str) -> bytes | None:
    try:
        p = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout if p.returncode == 0 else None


@functools.lru_cache(maxsize=None)
def code_version() -> str:
    """`<package version>[+g<commit>[.<digest of uncommitted package changes>]]`."""
    import glyphjax
    version = glyphjax.__version__
    root = Path(glyphjax.__file__).resolve().parent.parent
    commit = _git(root, "rev-parse", "HEAD")
    if not commit:
        return version
    version += "+g" + commit.decode().strip()[:12]
    diff = _git(root, "diff", "HEAD", "--", *PACKAGES)
    if diff:
        version += "." + hashlib.sha256(diff).hexdigest()[:8]
    return version


def array_identity() -> str:
    """The resume identity of an array-policy run: its episodes are a function of task, seed,
    policy (in the label) and code alone, so only the code version is added."""
    return f"array;code={code_version()}"


def run_identity(config: Mapping[str, Any], checkpoint: str | os.PathLike | None = None) -> str:
    """The identity string of a run: config digest, checkpoint content digest, code version."""
    ckpt = checkpoint_digest(checkpoint) if checkpoint else "none"
    return f"cfg={digest(config_identity(config))};ckpt={ckpt};code={code_version()}"
