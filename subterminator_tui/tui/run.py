"""Start the app for one run, the way ``subterminator cancel`` does on a terminal."""

from __future__ import annotations

import time
from collections.abc import Callable

from subterminator_tui.cli.cancel import PreparedRun, RunRequest, check_request, prepared_run
from subterminator_tui.orchestrator.events import Reporter
from subterminator_tui.orchestrator.gates import HumanGate
from subterminator_tui.orchestrator.result import TaskResult
from subterminator_tui.tui.app import RunSession, SubTerminatorApp
from subterminator_tui.tui.widgets.preview import prepare_terminal_graphics


def session_for(
    request: RunRequest, *, on_prepared: Callable[[PreparedRun], None] | None = None
) -> RunSession:
    """The real run: practice site if any, browser, pilot, orchestrator.

    ``on_prepared`` sees the prepared run before it starts; tests use it to read the
    practice site's live state while the app drives the run.
    """

    async def session(gate: HumanGate, reporter: Reporter) -> TaskResult:
        async with prepared_run(request, gate, reporter) as prepared:
            if on_prepared is not None:
                on_prepared(prepared)
            return await prepared.orchestrator.run()

    return session


def create_app(
    request: RunRequest,
    *,
    session: RunSession | None = None,
    clock: Callable[[], float] = time.monotonic,
    image_previews: bool = True,
) -> SubTerminatorApp:
    """The app the CLI runs; tests pass their own session, clock and previews and get the same app.

    The keymap comes from the settings either way, so a test can pin it with a config file.
    """
    settings, _service = check_request(request)
    return SubTerminatorApp(
        session or session_for(request),
        clock=clock,
        image_previews=image_previews,
        keymap=dict(settings.keymap),
    )


def run_tui(request: RunRequest) -> int:
    """Run the app; returns the process exit code (configuration errors raise before it starts)."""
    app = create_app(request)
    if app.image_previews:
        prepare_terminal_graphics()
    app.run()
    return app.return_code if app.return_code is not None else 1
