"""Run a service in-process through the same path the CLI takes, with a scripted person."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import pytest

from subterminator_tui.practice.demoflix import DemoflixState
from subterminator_tui.results import TaskResult
from subterminator_tui.session import RunRequest, prepared_run
from subterminator_tui.session.browser import BrowserStarter, fresh_browser
from subterminator_tui.settings import load_settings
from tests.conftest import browser_parts_missing
from tests.fakes.human import RecordingReporter, ScriptedHuman


@dataclass
class FinishedRun:
    """A run's result and everything around it that a test may check."""

    result: TaskResult
    state: DemoflixState
    human: ScriptedHuman
    reporter: RecordingReporter
    run_dir: Path
    journal_path: Path


async def run_service(
    request: RunRequest,
    human: ScriptedHuman,
    tmp_path: Path,
    start_browser: BrowserStarter = fresh_browser,
) -> FinishedRun:
    """Run ``request`` against its practice site with a private profile (in a browser
    ``start_browser`` gives: a module's shared one, or a fresh one)."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    if request.profile_dir is None:
        request = dataclasses.replace(request, profile_dir=str(tmp_path / "profile"))
    reporter = RecordingReporter()
    async with prepared_run(request, start_browser=start_browser) as prepared:
        site = prepared.browser.practice
        assert site is not None, "these tests run practice services"
        if human.on_approve is None:
            human.on_approve = lambda _request: site.state.cancel_requests
        result = await prepared.run(human, reporter)
        run_dir = prepared.browser.gateway.plan.run_dir
    return FinishedRun(
        result, site.state, human, reporter, run_dir, load_settings().resolved_journal()
    )
