#!/usr/bin/env bash
# Starts the serena-memory MCP server over streamable HTTP on 127.0.0.1 for the example
# project (installing serena-memory into .venv first if needed).
#
#   bash scripts/start.sh                 # http://127.0.0.1:8000/mcp, project examples/demo
#   bash scripts/start.sh --rotate-token  # a new token (clients must be set up again)
#   PORT=9000 bash scripts/start.sh       # another port
#   bash scripts/start.sh --mode no-onboarding   # extra options go to start-mcp-server
#   PROJECT=/path/to/project bash scripts/start.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
# (Re)install when never done, or when pyproject.toml (the dependencies) changed since.
stamp=.venv/.serena-memory-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] \
    || ! .venv/bin/python -c "import serena_memory.mcp.server" >/dev/null 2>&1; then
    echo "Installing serena-memory into .venv..." >&2
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
    # Byte-compile now: an editable install never does, and where PYTHONDONTWRITEBYTECODE
    # is set every start would compile the sources again.
    .venv/bin/python -m compileall -q src >/dev/null
    touch "$stamp"
fi

PORT="${PORT:-8000}"
PROJECT="${PROJECT:-examples/demo}"
# The server prints the URL and the "Authorization: Bearer ..." header a client sends; the
# token is kept in $SERENA_HOME/mcp-token (~/.serena by default) and reused at every start.
echo "MCP server for $PROJECT (Ctrl-C stops it); a client needs the URL and header below:" >&2
exec .venv/bin/serena start-mcp-server --project "$PROJECT" \
    --transport streamable-http --host 127.0.0.1 --port "$PORT" "$@"
