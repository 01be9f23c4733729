"""Which of the app's screens is up: what a Pilot test waits for."""

from __future__ import annotations

from subterminator_tui.tui.app import SubTerminatorApp
from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from subterminator_tui.tui.screens.end import EndScreen


def at_checkpoint(app: SubTerminatorApp) -> bool:
    """The checkpoint modal is the active screen."""
    return isinstance(app.screen, CheckpointScreen)


def at_end(app: SubTerminatorApp) -> bool:
    """The end screen is the active screen."""
    return isinstance(app.screen, EndScreen)
