"""Start the app for one run, the way ``subterminator cancel`` does on a terminal."""

from __future__ import annotations

import sys

from subterminator_tui.browser.page_capture import LiveFrames
from subterminator_tui.exit_codes import INTERRUPTED, TERMINATED
from subterminator_tui.orchestrator.endings import describe_ending
from subterminator_tui.session import CancelSession, RunRequest, RunSession
from subterminator_tui.settings import Settings, save_setting
from subterminator_tui.tui.actions import binding_ids
from subterminator_tui.tui.app import SubTerminatorApp
from subterminator_tui.tui.keymap import check_keymap
from subterminator_tui.tui.widgets.preview import prepare_terminal_graphics


class RunningBrowserFrames:
    """The live frames of a cancel session's browser: none before it starts."""

    def __init__(self, session: CancelSession) -> None:
        self.session = session

    async def jpeg_frame(self) -> bytes | None:
        """The running browser's viewport as JPEG bytes, or None."""
        browser = self.session.browser
        return await browser.gateway.jpeg_frame() if browser is not None else None


def create_app(settings: Settings, session: RunSession, command: str = "") -> SubTerminatorApp:
    """The app for ``session``, with the person's keymap and preview choice from ``settings``.

    An unknown binding id in the keymap is a ConfigurationError before anything starts.
    A cancel session's browser feeds the live view; another session (a test's) shows none.
    """
    frames: LiveFrames | None = (
        RunningBrowserFrames(session) if isinstance(session, CancelSession) else None
    )
    # One keymap serves the app and the operator console (`serve --tui`).
    check_keymap(settings.keymap, binding_ids())
    return SubTerminatorApp(
        session,
        image_previews=settings.image_previews,
        keymap=dict(settings.keymap),
        command=command,
        theme=settings.theme,
        save_theme=lambda name: save_setting("theme", name),
        live_frames=frames,
    )


def run_tui(request: RunRequest, command: str = "") -> int:
    """Run the app; returns the process exit code (configuration errors raise before it starts).

    After the app closes, the ending is printed too: the screen is gone, the words stay.
    """
    session = CancelSession(request)
    app = create_app(session.checked.settings, session, command)
    if app.image_previews:
        prepare_terminal_graphics()
    app.run()
    code = app.return_code if app.return_code is not None else 1
    for line, to_stderr in closing_lines(app, code):
        print(line, file=sys.stderr if to_stderr else sys.stdout)
    return code


def closing_lines(app: SubTerminatorApp, code: int) -> list[tuple[str, bool]]:
    """The lines printed after the app closes, each with whether it goes to stderr."""
    if app.ending is not None:
        mark = "✓ " if app.ending.success else "✗ "
        return [(mark + app.ending.happened, False), ("  " + app.ending.next_step, False)]
    if app.failure is not None:
        return [(f"error: {app.failure}", True)]
    if code in (INTERRUPTED, TERMINATED):
        stopped = describe_ending("interrupted", service=app.service_name, command=app.command)
        return [("✗ " + stopped.happened, False), ("  " + stopped.next_step, False)]
    return []
