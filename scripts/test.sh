#!/usr/bin/env bash
# make test: the lint and the tests at once, failing when either fails.
# The tests mostly wait on Chromium while mypy and ruff compute, so running the two side
# by side takes about as long as the tests alone. The lint's output is held back and
# shown after the tests' (interleaved, neither would be readable).
set -uo pipefail
cd "$(dirname "$0")/.."

# On a fresh clone nothing is compiled yet (make test keeps bytecode in build/pycache):
# the workers, starting at once, would each compile the same five thousand modules and
# rewrite the same test modules' assertions. One collection first does it once for all
# (measured on a fresh clone: the workers' start 61 CPU s cold, 24 warm; the collection
# 20). A mark in the folder says it was done (the set-up's Python writes there too).
lint_log="$(mktemp)"
trap 'rm -f "$lint_log"' EXIT
make --no-print-directory lint-checks >"$lint_log" 2>&1 &
lint_pid=$!

# The collection's output and status are dropped: the run itself reports any error.
if [ -n "${PYTHONPYCACHEPREFIX:-}" ] && [ ! -e "$PYTHONPYCACHEPREFIX/.collected-once" ]; then
    .venv/bin/pytest --collect-only -q -n 0 tests >/dev/null 2>&1 || true
    mkdir -p "$PYTHONPYCACHEPREFIX" && touch "$PYTHONPYCACHEPREFIX/.collected-once"
fi

.venv/bin/pytest "$@"
tests_status=$?

wait "$lint_pid"
lint_status=$?
cat "$lint_log"
if [ "$lint_status" -ne 0 ]; then
    echo "make test: the lint failed (exit $lint_status); its output is above." >&2
fi
if [ "$tests_status" -ne 0 ]; then
    exit "$tests_status"
fi
exit "$lint_status"
