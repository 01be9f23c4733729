#!/usr/bin/env bash
# The HTTP status table of `subterminator serve --http`, measured with curl (not a test).
#
#     benchmarks/serve_status_table.sh [PYTHON] [SOURCE_DIR]
#
# Starts a server on a free loopback port with tokens for alice, bob and carol (no
# browser is started: sessions open lazily), asks each question below with curl, and
# prints one Markdown row per question with the status it got. SOURCE_DIR runs another
# checkout of the code with the same interpreter (the figures before a change).
set -euo pipefail
PYTHON=${1:-.venv/bin/python}
PYTHON="$(cd "$(dirname "$PYTHON")" && pwd)/$(basename "$PYTHON")"  # absolute, still the venv's
SOURCE=$(realpath "${2:-$(pwd)}")
HOME_DIR=$(mktemp -d)
SERVER=""
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; wait 2>/dev/null; rm -rf "$HOME_DIR"' EXIT
export PYTHONPATH="$SOURCE" XDG_CONFIG_HOME="$HOME_DIR" SUBTERMINATOR_JOURNAL="$HOME_DIR/j.sqlite3"
serve() { (cd "$SOURCE" && exec "$PYTHON" -m subterminator_tui serve --tokens "$HOME_DIR/t.json" "$@"); }
ALICE=$(serve --new-token alice 2>/dev/null)
BOB=$(serve --new-token bob 2>/dev/null)
CAROL=$(serve --new-token carol 2>/dev/null)
# Started without the function, so $! is the server itself (the subshell execs it).
(cd "$SOURCE" && exec "$PYTHON" -m subterminator_tui serve --tokens "$HOME_DIR/t.json" \
  --http 127.0.0.1:0 --operator-tty none --practice 2>"$HOME_DIR/err") &
SERVER=$!
until grep -q "listening on" "$HOME_DIR/err"; do sleep 0.2; done
URL=$(grep -o 'http://[^ ]*/mcp' "$HOME_DIR/err")
BASE=${URL%/mcp}
HOSTPORT=${BASE#http://}
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
ACCEPT='Accept: application/json, text/event-stream'
JSON='Content-Type: application/json'

status() { curl -s -o /dev/null -w '%{http_code}' --max-time 20 "$@" || true; }
row() { printf '| %s | %s |\n' "$1" "$2"; }
# An MCP session of $1's token; prints its Mcp-Session-Id.
mcp_session() {
  curl -s -D - -o /dev/null -H "$ACCEPT" -H "$JSON" -H "Authorization: Bearer $1" \
    -d "$INIT" "$URL" | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}'
}
tool() {  # tool TOKEN SESSION_ID NAME ARGS
  curl -s -o /dev/null -H "$ACCEPT" -H "$JSON" -H "Authorization: Bearer $1" \
    -H "Mcp-Session-Id: $2" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$URL"
  curl -s -H "$ACCEPT" -H "$JSON" -H "Authorization: Bearer $1" -H "Mcp-Session-Id: $2" \
    -d "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"$3\",\"arguments\":$4}}" "$URL"
}

echo "| request | status |"
echo "|---|---|"
row "POST /mcp, no token" "$(status -H "$ACCEPT" -H "$JSON" -d "$INIT" "$URL")"
row "POST /mcp, a token no one holds" "$(status -H "$ACCEPT" -H "$JSON" -H 'Authorization: Bearer not-a-token' -d "$INIT" "$URL")"
row "POST /mcp, good token" "$(status -H "$ACCEPT" -H "$JSON" -H "Authorization: Bearer $ALICE" -d "$INIT" "$URL")"
row "POST /mcp, wrong Host" "$(status -H "$ACCEPT" -H "$JSON" -H "Authorization: Bearer $ALICE" -H 'Host: evil.example' -d "$INIT" "$URL")"
row "POST /mcp, wrong Origin" "$(status -H "$ACCEPT" -H "$JSON" -H "Authorization: Bearer $ALICE" -H 'Origin: http://evil.example' -d "$INIT" "$URL")"
row "POST /mcp, Origin: null" "$(status -H "$ACCEPT" -H "$JSON" -H "Authorization: Bearer $ALICE" -H 'Origin: null' -d "$INIT" "$URL")"
head -c 1100000 /dev/zero | tr '\0' ' ' > "$HOME_DIR/big"
row "POST /mcp, body over 1 MiB" "$(status -H "$ACCEPT" -H "$JSON" -H "Authorization: Bearer $ALICE" --data-binary @"$HOME_DIR/big" "$URL")"
row "POST /mcp, two Authorization headers" "$(status -H "$ACCEPT" -H "$JSON" -H "Authorization: Bearer $ALICE" -H "Authorization: Bearer $BOB" -d "$INIT" "$URL")"
row "GET live view, two Authorization headers" "$(status -H "Authorization: Bearer $ALICE" -H "Authorization: Bearer $BOB" "$BASE/sessions/main/screenshots")"
# Alice's MCP session and her browser session "main" (no browser starts).
SID=$(mcp_session "$ALICE")
tool "$ALICE" "$SID" session_open '{"name":"main","service":"demoflix"}' >/dev/null
row "POST /mcp, Bob's token on Alice's Mcp-Session-Id" "$(status -H "$ACCEPT" -H "$JSON" -H "Authorization: Bearer $BOB" -H "Mcp-Session-Id: $SID" -d '{"jsonrpc":"2.0","id":3,"method":"tools/list"}' "$URL")"
row "GET live view of Alice's session, Bob's token" "$(status --max-time 3 -H "Authorization: Bearer $BOB" "$BASE/sessions/main/screenshots")"
row "GET live view, no token" "$(status -H 'X: y' "$BASE/sessions/main/screenshots")"
row "GET live view, wrong Host" "$(status -H "Authorization: Bearer $ALICE" -H 'Host: evil.example' "$BASE/sessions/main/screenshots")"
row "GET live view, Origin: null" "$(status -H "Authorization: Bearer $ALICE" -H 'Origin: null' "$BASE/sessions/main/screenshots")"
# Carol opens MCP sessions until refused: the 17th is over the per-principal cap.
for _ in $(seq 1 16); do status -H "$ACCEPT" -H "$JSON" -H "Authorization: Bearer $CAROL" -d "$INIT" "$URL" >/dev/null; done
row "POST /mcp, the 17th MCP session of one principal" "$(status -H "$ACCEPT" -H "$JSON" -H "Authorization: Bearer $CAROL" -d "$INIT" "$URL")"
# Bob's token revoked: refused from the next request on, without a restart.
SID_BOB=$(mcp_session "$BOB")
serve --revoke-token bob >/dev/null 2>&1
row "POST /mcp, revoked token" "$(status -H "$ACCEPT" -H "$JSON" -H "Authorization: Bearer $BOB" -d "$INIT" "$URL")"
row "POST /mcp, revoked token on its open Mcp-Session-Id" "$(status -H "$ACCEPT" -H "$JSON" -H "Authorization: Bearer $BOB" -H "Mcp-Session-Id: $SID_BOB" -d '{"jsonrpc":"2.0","id":3,"method":"tools/list"}' "$URL")"
