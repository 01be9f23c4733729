#!/usr/bin/env bash
# Idempotent set-up for a fresh machine: the virtualenv with the package, the
# pinned Node side, and a Chrome or Chromium. Re-running skips what is done.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "SubTerminator needs Python >= 3.11 (set PYTHON=/path/to/python3.11)." >&2
    exit 2
fi

# 1. The virtual environment, reinstalled only when pyproject.toml changes. It installs
#    in the background while npm installs the Node side (step 2): both mostly wait on
#    downloads, so side by side they take about as long as the longer one.
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
stamp=".venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
pip_pid=""
# uv (from PyPI, pinned) resolves and installs the same requirements about six times
# faster than pip (10 s against 65 s on a fresh clone of a 2-core machine); where it
# cannot be installed, pip does the same install.
install_python() {
    if .venv/bin/python -m pip install --quiet --disable-pip-version-check 'uv==0.13.9' 2>/dev/null; then
        .venv/bin/uv pip install --quiet --python .venv/bin/python -e '.[test]'
    else
        .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
    fi
}
if [ ! -f "$stamp" ]; then
    install_python &
    pip_pid=$!
fi
finish_python() {
    if [ -n "$pip_pid" ]; then
        wait "$pip_pid"
        rm -f .venv/.installed-* && touch "$stamp"
        pip_pid=""
    fi
}
# A failure elsewhere must not leave the install running behind the person's prompt.
trap '[ -z "$pip_pid" ] || kill "$pip_pid" 2>/dev/null' EXIT

# 2. Node and the pinned Playwright MCP from package-lock.json (never @latest). The check
#    needs only the standard library, so it runs from the source tree while pip installs.
PYTHONPATH=. .venv/bin/python -m subterminator_tui.browser.node --check-only
# The tests also need the dev packages (the MCP Inspector, the conformance suite and the
# Node 22 it runs on); a plain set-up leaves them out.
npm_mode=(--omit=dev); mode=app
if [ "${1:-}" = "--for-tests" ]; then npm_mode=(); mode=tests; fi
lock_stamp="node_modules/.lock-$(sha256sum package-lock.json | cut -c1-16)-$mode"
if [ ! -f "$lock_stamp" ]; then
    npm ci --no-audit --no-fund --loglevel=error "${npm_mode[@]}"
    rm -f node_modules/.lock-* && touch "$lock_stamp"
fi

finish_python

# 3. A Chrome or Chromium (Playwright's own browser download is never used), and for
#    the tests (--for-tests) tmux, which runs the app in a real terminal. On
#    Debian/Ubuntu as root what is missing is installed with one apt-get update.
extra=()
if [ "${1:-}" = "--for-tests" ]; then extra=(--with tmux); fi
.venv/bin/python -m subterminator_tui.browser.discovery --install "${extra[@]}"
