"""Start the app for one run, the way ``subterminator cancel`` does on a terminal."""

from __future__ import annotations

from subterminator_tui.cli.cancel import RunRequest, check_request, prepared_run
from subterminator_tui.orchestrator.events import Reporter
from subterminator_tui.orchestrator.gates import HumanGate
from subterminator_tui.orchestrator.result import TaskResult
from subterminator_tui.tui.app import RunSession, SubTerminatorApp


def session_for(request: RunRequest) -> RunSession:
    """The real run: practice site if any, browser, pilot, orchestrator."""

    async def session(gate: HumanGate, reporter: Reporter) -> TaskResult:
        async with prepared_run(request, gate, reporter) as prepared:
            return await prepared.orchestrator.run()

    return session


def create_app(request: RunRequest, *, session: RunSession | None = None) -> SubTerminatorApp:
    """The app the CLI runs; tests pass their own session and get the same app."""
    settings, _service = check_request(request)
    return SubTerminatorApp(session or session_for(request), keymap=dict(settings.keymap))


def run_tui(request: RunRequest) -> int:
    """Run the app; returns the process exit code (configuration errors raise before it starts)."""
    app = create_app(request)
    app.run()
    return app.return_code if app.return_code is not None else 1
