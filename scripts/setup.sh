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

# 1. The virtual environment, reinstalled only when pyproject.toml changes. It is made
#    and installed in the background while npm installs the Node side (step 2): both
#    mostly wait on downloads, so side by side they take about as long as the longer
#    one. For the tests, the same background job then compiles their bytecode (below).
stamp=".venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
for_tests=0
if [ "${1:-}" = "--for-tests" ]; then for_tests=1; fi
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
# make test keeps bytecode in build/pycache (PYTHONPYCACHEPREFIX); on a fresh clone it is
# empty, and the test workers, starting at once, would each compile the same five thousand
# modules and rewrite the same test modules' assertions (measured: their start took 61 CPU
# s cold, 24 warm). One collection compiles it all for about 20, here, on the core npm
# leaves idle while it installs. A mark says it was done (this script's own Python writes
# to build/pycache too, so the folder's existence says nothing). Its output and status
# are dropped: the test run reports any collection error itself.
compile_for_tests() {
    if [ -n "${PYTHONPYCACHEPREFIX:-}" ] && [ ! -e "$PYTHONPYCACHEPREFIX/.collected-once" ]; then
        .venv/bin/pytest --collect-only -q -n 0 tests >/dev/null 2>&1 || true
        mkdir -p "$PYTHONPYCACHEPREFIX" && touch "$PYTHONPYCACHEPREFIX/.collected-once"
    fi
}
# make test (scripts/test.sh) has the lint start as soon as its tools are installed, beside
# the rest of the set-up: the collection above runs alone once npm is done, and the lint
# fills the other core (it took one core for 10 s at the end of every fresh set-up). Its
# output goes to SUBTERMINATOR_LINT_LOG, its exit status to that name with .status; the
# lock on that name with .lock is held until the lint ends (test.sh waits on it). The lint
# is started holding the lock, so whoever asks after this script returns finds it taken.
start_lint() {
    local log="${SUBTERMINATOR_LINT_LOG:-}"
    if [ -z "$log" ]; then return 0; fi
    exec 9>"$log.lock"
    flock 9
    (make --no-print-directory lint-checks >"$log" 2>&1; echo $? >"$log.status") &
    exec 9>&-
}
installing=0
[ -f "$stamp" ] || installing=1
python_side() {
    [ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
    if [ "$installing" = 1 ]; then install_python; fi
    start_lint
    if [ "$for_tests" = 1 ]; then compile_for_tests; fi
}
python_side &
python_pid=$!
finish_python() {
    if [ -n "$python_pid" ]; then
        wait "$python_pid"
        python_pid=""
        if [ "$installing" = 1 ]; then rm -f .venv/.installed-* && touch "$stamp"; fi
    fi
}
# A failure elsewhere must not leave the install running behind the person's prompt.
trap '[ -z "$python_pid" ] || kill "$python_pid" 2>/dev/null' EXIT

# 2. Node and the pinned Playwright MCP from package-lock.json (never @latest). The check
#    needs only the standard library, so it runs from the source tree, on the Python that
#    makes the virtual environment, while that is made and installed.
PYTHONPATH=. "$PYTHON" -m subterminator_tui.browser.node --check-only
# The tests also need the dev packages (the MCP Inspector, the conformance suite and the
# Node 22 it runs on); a plain set-up leaves them out.
npm_mode=(--omit=dev); mode=app
if [ "$for_tests" = 1 ]; then npm_mode=(); mode=tests; fi
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
if [ "$for_tests" = 1 ]; then extra=(--with tmux); fi
.venv/bin/python -m subterminator_tui.browser.discovery --install "${extra[@]}"
