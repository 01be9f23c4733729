"""Fixtures shared by the integration tests: CLI children with a private profile."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from subterminator_tui.browser.processes import kill_browser_processes
from subterminator_tui.practice.demoflix import DemoflixServer
from tests.conftest import browser_parts_missing, wait_until_no_profile_processes
from tests.fakes.provider_env import clear_provider_env
from tests.integration.cli_children import Cli
from tests.support.records_site import RecordsSite
from tests.support.serve_clients import TerminalOperator


@pytest.fixture
def cli(tmp_path: Path, isolated_home: Path) -> Iterator[Cli]:
    """Children with a private profile; killed if still running, profile checked after."""
    with reaped(Cli(profile=tmp_path / "profile", home=isolated_home)) as runner:
        yield runner


@contextmanager
def reaped(runner: Cli) -> Iterator[Cli]:
    """``runner``, its children killed on exit if still running; a child that ended by
    itself must have left no process on its profile."""
    try:
        yield runner
    finally:
        killed = False
        for child in runner.children:
            if child.poll() is None:
                child.kill()
                child.wait()
                killed = True
            for stream in (child.stdin, child.stdout, child.stderr):
                if stream is not None:
                    stream.close()
        left = wait_until_no_profile_processes(runner.profile)
        if left:
            kill_browser_processes(runner.profile)
            if not killed:
                pytest.fail(f"processes still use the profile after the run: {left}")


@pytest.fixture
def browser_cli(cli: Cli) -> Cli:
    """``cli``, for tests that start the real browser."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    return cli


@pytest.fixture
def browser_without_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skip without the real browser parts; no real key may leak into a scripted run."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    clear_provider_env(monkeypatch)


@pytest.fixture
def records_site(tmp_path: Path) -> Iterator[RecordsSite]:
    """The console lab site (call records, console levels, a slow page); skipped without
    the browser parts."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with RecordsSite(tmp_path) as running:
        yield running


@pytest.fixture
def operator() -> Iterator[TerminalOperator]:
    """The operator's terminal: a pseudo-terminal a served `subterminator serve` asks on."""
    terminal = TerminalOperator()
    yield terminal
    terminal.close()


@pytest.fixture
def remembered_demoflix() -> Iterator[DemoflixServer]:
    """Demoflix with a remembered sign-in, as the service expects; skipped without a browser."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with DemoflixServer(["remembered"]) as server:
        yield server
