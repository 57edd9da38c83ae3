"""Start a vLLM server for a local model directory and keep it running until Ctrl-C.

    python scripts/launch_vllm.py --model /path/to/hf_checkpoint [--port 8000]

Logic lives in rl/vllm_server.py; the vLLM venv comes from scripts/ci/vllm_venv.sh.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time

from rl.vllm_server import VLLMServerError, launch_vllm_server


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="Hugging Face-layout checkpoint directory")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--served-model-name", default=None, help="name clients ask for (default: dir name)")
    ap.add_argument("--max-model-len", type=int, default=512)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--kv-cache-gb", type=int, default=1, help="VLLM_CPU_KVCACHE_SPACE")
    ap.add_argument("--python", default=None, help="the vLLM venv's python (default: $GLYPHJAX_VLLM_VENV)")
    ap.add_argument("--log", default=None, help="server log file")
    ap.add_argument("extra", nargs=argparse.REMAINDER, help="after --: extra vLLM arguments")
    args = ap.parse_args(argv)
    extra = [a for a in args.extra if a != "--"]
    # Ctrl-C and `kill PID` both stop the server cleanly (a background job may ignore SIGINT).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        server = launch_vllm_server(args.model, python=args.python, host=args.host, port=args.port,
                                    served_model_name=args.served_model_name,
                                    max_model_len=args.max_model_len, dtype=args.dtype,
                                    kv_cache_gb=args.kv_cache_gb, extra_args=extra, log_path=args.log)
    except VLLMServerError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"vLLM serving {server.model!r} at {server.url} (log {server.log_path}); Ctrl-C stops it", flush=True)
    try:
        while server.process.poll() is None:
            time.sleep(2)
        print(f"server exited with code {server.process.returncode}; log tail:\n{server.log_tail()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
