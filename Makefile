# The entry points the README names. Each sets up whatever is missing first.
.PHONY: demo bench bench-peers test test-unit test-slow setup setup-tests lint lint-checks

setup:
	@scripts/setup.sh

setup-tests:
	@scripts/setup.sh --for-tests

demo: setup
	.venv/bin/subterminator cancel demoflix

# The benchmark over the practice scenarios (source checkout only, see docs/bench.md);
# options through BENCH_ARGS, e.g. make bench BENCH_ARGS="--scenario gauntlet-basic".
bench: setup
	.venv/bin/python -m subterminator_bench $(BENCH_ARGS)

# The gauntlet on serve, Playwright MCP and Chrome DevTools MCP with the same scripted agent
# (docs/peers.md): the table, its JSON and chart in docs/peers/, the page docs/peers.md.
PEERS_SERVERS ?= subterminator,subterminator-playwright,playwright-mcp,chrome-devtools-mcp
bench-peers: setup-tests
	.venv/bin/python -m subterminator_bench --servers $(PEERS_SERVERS) --output docs/peers \
		--page docs/peers.md $(BENCH_ARGS)

lint: setup-tests
	@$(MAKE) --no-print-directory lint-checks

# The checks themselves, on a set-up checkout (make test runs them beside the tests).
lint-checks:
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy
	.venv/bin/lint-imports
	# The manual in docs/: strict, so a broken link fails the build (offline: bundled theme).
	.venv/bin/mkdocs build --strict --quiet --site-dir build/site

# Every test run starts Python processes (workers, CLI and serve children) that import the
# same modules: each compiles them once into build/pycache (out of the source tree) and
# the rest read that. An environment that says not to write bytecode would have every
# process compile every module again, and every worker rewrite every test's assertions
# (an empty PYTHONDONTWRITEBYTECODE is unset, to Python).
test test-unit test-slow: export PYTHONDONTWRITEBYTECODE =
test test-unit test-slow: export PYTHONPYCACHEPREFIX = $(CURDIR)/build/pycache

# Five workers on two cores: a browser test mostly waits on Chromium (one worker kept
# the CPUs a third busy), so they overlap their waits (four left the machine idle 6-8%
# of a run, five 2-3%; docs/tests.md). Work stealing: a worker that runs out takes tests
# queued on another, so the run does not end on one worker's long tail.
# The lint runs beside the set-up's last step and the tests (scripts/test.sh, which sets
# up first): they wait while it computes.
# The 30 slowest tests are listed at the end: where the next speed-up should look.
test:
	@scripts/test.sh -q -m "not slow" -n 5 --dist worksteal --durations=30

# The fast inner loop: the unit tests only (no browser, no Playwright MCP, no lint).
# Two workers: the machine's cores, since these tests are CPU-bound, not waiting.
test-unit: setup-tests
	.venv/bin/pytest -q -n 2 tests/unit

# The long tests make test leaves out (the traps' honest walks, proof the traps are real).
test-slow: setup-tests
	.venv/bin/pytest -q -m slow
