#!/usr/bin/env bash
# Runs the official MCP conformance suite's server scenarios that apply to serena-memory
# against a real server over streamable HTTP, serving a copy of the example project.
#
#   bash scripts/conformance.sh             # needs node >= 20 and npm
#   SCENARIOS="ping tools-list" bash scripts/conformance.sh
#
# Scenarios that need the suite's own fixtures (a prompt named test_simple_prompt, a
# resource test://static-text, tools that sample or elicit) do not apply and are left out.
set -euo pipefail
cd "$(dirname "$0")/.."

# 0.1.12 is the newest release that runs on Node 20 (later ones need Node 22's fs.globSync).
SUITE_VERSION=0.1.12
SCENARIOS="${SCENARIOS:-server-initialize ping tools-list resources-list prompts-list dns-rebinding-protection}"

if [ ! -x .venv/bin/serena ]; then
    python3 -m venv .venv
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
fi
suite=.conformance
if [ ! -x "$suite/node_modules/.bin/conformance" ]; then
    mkdir -p "$suite"
    npm install --silent --prefix "$suite" "@modelcontextprotocol/conformance@$SUITE_VERSION" >/dev/null
fi

work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
cp -r examples/demo "$work/project"
port=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
SERENA_HOME="$work/home" .venv/bin/serena start-mcp-server --project "$work/project" \
    --transport streamable-http --host 127.0.0.1 --port "$port" --no-dashboard \
    >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.2
done

failed=0
for scenario in $SCENARIOS; do
    if "$suite/node_modules/.bin/conformance" server --url "http://127.0.0.1:$port/mcp" \
        --scenario "$scenario" >"$work/$scenario.log" 2>&1; then
        echo "PASS $scenario: $(grep -E '^Passed:' "$work/$scenario.log")"
    else
        echo "FAIL $scenario"
        cat "$work/$scenario.log"
        failed=1
    fi
done
exit "$failed"
