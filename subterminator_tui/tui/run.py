"""Start the app for one run, the way ``subterminator cancel`` does on a terminal."""

from __future__ import annotations

from subterminator_tui.session import CancelSession, RunRequest, RunSession
from subterminator_tui.settings import Settings
from subterminator_tui.tui.app import SubTerminatorApp
from subterminator_tui.tui.keymap import CONSOLE_BINDING_IDS, binding_ids, check_keymap
from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from subterminator_tui.tui.screens.end import EndScreen
from subterminator_tui.tui.screens.error import ErrorScreen
from subterminator_tui.tui.screens.handoff import HandoffScreen
from subterminator_tui.tui.screens.quit import QuitScreen
from subterminator_tui.tui.widgets.preview import prepare_terminal_graphics

#: Everything in the app that declares key bindings a keymap may remap.
BINDING_OWNERS = (
    SubTerminatorApp,
    CheckpointScreen,
    HandoffScreen,
    EndScreen,
    ErrorScreen,
    QuitScreen,
)


def create_app(settings: Settings, session: RunSession) -> SubTerminatorApp:
    """The app for ``session``, with the person's keymap and preview choice from ``settings``.

    An unknown binding id in the keymap is a ConfigurationError before anything starts.
    """
    # One keymap serves the app and the operator console (`serve --tui`).
    check_keymap(settings.keymap, binding_ids(BINDING_OWNERS) | CONSOLE_BINDING_IDS)
    return SubTerminatorApp(
        session,
        image_previews=settings.image_previews,
        keymap=dict(settings.keymap),
    )


def run_tui(request: RunRequest) -> int:
    """Run the app; returns the process exit code (configuration errors raise before it starts)."""
    session = CancelSession(request)
    app = create_app(session.checked.settings, session)
    if app.image_previews:
        prepare_terminal_graphics()
    app.run()
    return app.return_code if app.return_code is not None else 1
