#!/usr/bin/env bash
# Runs the Claude Agent SDK tests (Python: test_sdk.py, test_sdk_surface.py, test_sdk_sessions.py,
# test_sdk_hooks.py; TypeScript: test_sdk_ts.py) and the MCP SDK's serve --http test (test_http.py)
# against a built agent-tools binary:
#   tests/sdk/run.sh target/debug/agent-tools
# Creates a virtual environment beside this script (tests/sdk/.venv, reused on later runs) with
# the SDK version the test was written against, and ts/node_modules with the TypeScript SDK;
# those installs are the only network access.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
program="$(cd "$(dirname "${1:?usage: tests/sdk/run.sh PATH/TO/agent-tools}")" && pwd)/$(basename "$1")"
[ -x "$program" ] || { echo "error: $program is not an executable" >&2; exit 2; }
venv="$here/.venv"
sdk_version="0.2.189"
if ! "$venv/bin/python" -c "import claude_agent_sdk, sys; sys.exit(claude_agent_sdk.__version__ != '$sdk_version')" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "claude-agent-sdk==$sdk_version"
fi
cd "$here"
"$venv/bin/python" test_sdk.py "$program"
"$venv/bin/python" test_sdk_surface.py "$program"
"$venv/bin/python" test_sdk_sessions.py "$program"
"$venv/bin/python" test_sdk_hooks.py "$program"
# The TypeScript SDK, pinned in ts/package.json (without its optional bundled Claude Code), on the
# Node that .ci/run installs for the MCP tools (else the one on PATH).
node="$here/../../.ci/mcp/node_modules/.bin/node"
[ -x "$node" ] || node="$(command -v node)"
if [ ! -f "$here/ts/node_modules/@anthropic-ai/claude-agent-sdk/package.json" ]; then
  npm install --prefix "$here/ts" --omit=optional --no-audit --no-fund --loglevel=error >/dev/null
fi
"$venv/bin/python" test_sdk_ts.py "$program" "$node"
# `serve --http` from the MCP Python SDK (the Agent SDK installs `mcp`).
exec "$venv/bin/python" test_http.py "$program"
