#!/usr/bin/env bash
# make test: the lint and the tests at once, failing when either fails.
# The tests mostly wait on Chromium while mypy and ruff compute, so running the two side
# by side takes about as long as the tests alone. The lint's output is held back and
# shown after the tests' (interleaved, neither would be readable).
set -uo pipefail
cd "$(dirname "$0")/.."

# The bytecode is compiled once before this runs (scripts/setup.sh --for-tests).
lint_log="$(mktemp)"
trap 'rm -f "$lint_log"' EXIT
make --no-print-directory lint-checks >"$lint_log" 2>&1 &
lint_pid=$!

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
