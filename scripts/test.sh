#!/usr/bin/env bash
# make test: the set-up, then the lint and the tests at once, failing when any fails.
# The tests mostly wait on Chromium while mypy and ruff compute, so running the two side
# by side takes about as long as the tests alone. The lint starts during the set-up, as
# soon as its tools are installed (scripts/setup.sh, start_lint). Its output is held back
# and shown after the tests' (interleaved, neither would be readable).
set -uo pipefail
cd "$(dirname "$0")/.."

lint_log="$(mktemp)"
trap 'rm -f "$lint_log" "$lint_log.status" "$lint_log.lock"' EXIT
# Waits for the lint to end: it holds the lock while it runs (never taken: it ended, or
# the set-up stopped before it started).
lint_ended() {
    flock "$lint_log.lock" true
}

# The set-up also compiles the tests' bytecode (--for-tests).
SUBTERMINATOR_LINT_LOG="$lint_log" scripts/setup.sh --for-tests
setup_status=$?
if [ "$setup_status" -ne 0 ]; then
    lint_ended
    exit "$setup_status"
fi

.venv/bin/pytest "$@"
tests_status=$?

lint_ended
lint_status="$(cat "$lint_log.status" 2>/dev/null || echo 1)"
cat "$lint_log"
if [ "$lint_status" -ne 0 ]; then
    echo "make test: the lint failed (exit $lint_status); its output is above." >&2
fi
if [ "$tests_status" -ne 0 ]; then
    exit "$tests_status"
fi
exit "$lint_status"
