#!/usr/bin/env bash
# Installs everything the tests need (a virtual environment with the test extras, and
# Debian's chromium for the browser tests), then runs lint, format check, the import
# layering contracts, the type checker and every test.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
# Byte-compile now: an editable install never does, and where PYTHONDONTWRITEBYTECODE
# is set every start would compile the sources again.
.venv/bin/python -m compileall -q src >/dev/null

if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "Installing Debian's chromium for the browser tests..."
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "chromium is not installed; the browser tests will be skipped" \
             "(install it with: sudo apt-get install chromium)" >&2
    fi
fi

.venv/bin/ruff check .
.venv/bin/ruff format --check .
# The layers: core < integrity < agent < mcp, dashboard < cli (contracts in pyproject.toml).
.venv/bin/lint-imports --no-cache
# Types: zero errors (configuration in pyproject.toml).
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
