#!/usr/bin/env bash
# Set up Governor in ./.venv and compile its engines. With --test, also the test tools and Debian's Chromium
# (browser tests); with --no-build, not the engines (make test builds them beside its first checks).
set -euo pipefail
cd "$(dirname "$0")/.."
test=0 build=1
for arg in "$@"; do
  case "$arg" in
    --test) test=1 ;;
    --no-build) build=0 ;;
    *) echo "setup: unknown option $arg (--test, --no-build)" >&2; exit 2 ;;
  esac
done
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# The versions the tests last passed on (constraints.txt, made by `make lock`); pyproject.toml keeps the
# ranges for people who install the package.
if [ "$test" = 1 ]; then
  .venv/bin/python -m pip install --quiet -c constraints.txt -e '.[test,cluster,native,env]'
  if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" = 0 ]; then
      ./scripts/apt-install.sh chromium
    else
      echo "setup: the browser tests need Debian's chromium: sudo apt-get install chromium" >&2
      exit 1
    fi
  fi
else
  .venv/bin/python -m pip install --quiet -c constraints.txt -e '.[native]'
fi
# The rules engines compiled with mypyc (replay/native.py), used automatically; without a C compiler
# this says so and the engines run as pure Python.
if [ "$build" = 1 ]; then
  .venv/bin/governor native build
fi
case ":$PATH:" in
  *":$PWD/.venv/bin:"*) ;;
  *) echo "governor: installed in ./.venv; run it as .venv/bin/governor, or 'source .venv/bin/activate' first to type governor" >&2 ;;
esac
