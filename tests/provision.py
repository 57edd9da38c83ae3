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
