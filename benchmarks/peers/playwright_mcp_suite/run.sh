#!/usr/bin/env bash
# Run Playwright MCP's own test suite, with its own runner (@playwright/test), against
# `subterminator serve --tools playwright` (see README.md beside this file).
#
#   benchmarks/peers/playwright_mcp_suite/run.sh CHECKOUT [playwright test args...]
#
# CHECKOUT is a copy of github.com/microsoft/playwright-mcp at the tag to test (v0.0.79,
# commit 4c5077651542f68525a0b51e97bab2a32abc9290, the newest tag before the pinned
# 0.0.83, which its repository has no tag for). The copy is changed: its cli.js becomes
# serve_cli.js, so its fixture starts serve; keep a pristine copy elsewhere.
# BARE=1 runs the same copy against its own Playwright MCP instead (the baseline).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
checkout="$(cd "${1:?usage: run.sh CHECKOUT [args]}" && pwd)"
shift
cd "$checkout"
# The suite's own runner and client, as its package-lock.json pins them (browsers are
# not downloaded: both sides use Debian's Chromium).
[ -d node_modules/@playwright/test ] || npm ci --ignore-scripts --no-audit --no-fund
if [ "${BARE:-0}" = 1 ]; then
  [ -f cli.js.orig ] && cp cli.js.orig cli.js
  # Its fixture asks for Google Chrome; Debian's Chromium stands in for it.
  export PLAYWRIGHT_MCP_EXECUTABLE_PATH="${PLAYWRIGHT_MCP_EXECUTABLE_PATH:-$(command -v chromium)}"
  export PLAYWRIGHT_MCP_NO_SANDBOX=1
else
  [ -f cli.js.orig ] || cp cli.js cli.js.orig
  cp "$here/serve_cli.js" cli.js
  cp "$here/suite_services.toml" suite_services.toml
  export SUBTERMINATOR_BIN="${SUBTERMINATOR_BIN:-$root/.venv/bin/subterminator}"
fi
side=$([ "${BARE:-0}" = 1 ] && echo bare || echo serve)
export PLAYWRIGHT_JSON_OUTPUT_NAME="$checkout/results-$side.json"
# One worker: two cores shared with other work, and each test starts its own server.
exec npx playwright test --project=chrome --workers=1 --reporter=list,json "$@"
