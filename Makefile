# The two entry points the README names. Both set up whatever is missing first.
.PHONY: demo test setup lint

setup:
	@scripts/setup.sh

demo: setup
	.venv/bin/subterminator cancel demoflix

lint: setup
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy

test: lint
	.venv/bin/pytest -q
