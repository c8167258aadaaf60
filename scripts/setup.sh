#!/usr/bin/env bash
# Set up Governor in ./.venv and compile its engines. With --test, also the test tools and Debian's Chromium
# (browser tests).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
if [ "${1:-}" = "--test" ]; then
  .venv/bin/python -m pip install --quiet -e '.[test,cluster,native,env]'
  if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" = 0 ]; then
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
      echo "setup: the browser tests need Debian's chromium: sudo apt-get install chromium" >&2
      exit 1
    fi
  fi
else
  .venv/bin/python -m pip install --quiet -e '.[native]'
fi
# The rules engines compiled with mypyc (replay/native.py), used automatically; without a C compiler
# this says so and the engines run as pure Python.
.venv/bin/governor native build
