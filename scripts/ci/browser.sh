#!/usr/bin/env bash
# Headless Chromium + chromedriver + Selenium for the replay-viewer browser test
# (tests/eval/test_replay_browser.py). Idempotent: installs only what is missing.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
fi
if ! python3 -c "import selenium" >/dev/null 2>&1; then
  python3 -m pip install -q "selenium>=4.20"
fi
