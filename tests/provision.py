"""Provision what a test needs on first use: the README's test command sets the machine up itself.

`ensure(name, ready, script)` returns at once when `ready()` is true; otherwise it runs the
idempotent set-up script (scripts/ci/*.sh) once, under an exclusive file lock so that parallel
pytest workers never run it twice, and checks `ready()` again. A set-up that fails raises
`ProvisionError` with the script's log path: the test then FAILS (it is never skipped).
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parent.parent
LOCK_DIR = Path(os.environ.get("GLYPHJAX_PROVISION_DIR", Path.home() / ".cache" / "glyphjax" / "provision"))


class ProvisionError(RuntimeError):
    """A set-up script ran and the resource is still not ready."""


def ensure(name: str, ready: Callable[[], bool], script: str | os.PathLike) -> None:
    """Make `ready()` true by running `script` (bash) once per machine; see the module docstring."""
    if ready():
        return
    LOCK_DIR.mkdir(parents=True, exist_ok=True)
    log = LOCK_DIR / f"{name}.log"
    with open(LOCK_DIR / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be provisioning: wait for it
        if ready():
            return
        script = Path(script)
        if not script.is_absolute():
            script = REPO / script
        print(f"\n[provision] {name}: running {script} (log: {log})", file=sys.stderr, flush=True)
        with open(log, "w") as out:
            rc = subprocess.run(["bash", str(script)], stdout=out, stderr=subprocess.STDOUT,
                                cwd=REPO).returncode
        if rc != 0 or not ready():
            tail = log.read_text(errors="replace").splitlines()[-15:]
            raise ProvisionError(f"{name}: {script.name} exited {rc} and {name} is still not ready; "
                                 f"log {log}:\n" + "\n".join(tail))


def vllm_venv_ready() -> bool:
    """The vLLM venv (rl/vllm_server.py finds it) imports vllm."""
    from rl.vllm_server import VLLMServerError, vllm_python
    try:
        vllm_python()
        return True
    except VLLMServerError:
        return False


VLLM_VENV = ("vllm-venv", vllm_venv_ready, "scripts/ci/vllm_venv.sh")


def start_in_background(name: str, ready: Callable[[], bool], script: str | os.PathLike) -> threading.Thread | None:
    """Run `ensure` in a daemon thread (the set-up overlaps the tests that do not need it); callers
    of `ensure` elsewhere wait on its lock. None when already ready. A failure is not raised here:
    the tests that need the resource call `ensure` again and fail with the log."""
    if ready():
        return None

    def run() -> None:
        try:
            ensure(name, ready, script)
        except Exception as e:  # reported by the tests that need it
            print(f"\n[provision] {name}: background set-up failed: {e}", file=sys.stderr, flush=True)
    thread = threading.Thread(target=run, name=f"provision-{name}", daemon=True)
    thread.start()
    return thread
