"""The app's actions in the command palette (Ctrl+P)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.app import SystemCommand

if TYPE_CHECKING:
    from subterminator_tui.tui.app import SubTerminatorApp


def app_commands(app: SubTerminatorApp) -> Iterable[SystemCommand]:
    """Search, follow, expand and quit, with what each does."""
    yield SystemCommand("Search the page", "Find an element in the snapshot", app.action_search)
    yield SystemCommand(
        "Follow the live page", "Show the newest page and turn", app.action_follow_live
    )
    yield SystemCommand(
        "Expand or collapse the snapshot", "The whole tree at once", app.action_toggle_tree
    )
    yield SystemCommand(
        "Stop the run", "Asks first, then closes the browser and exits", app.action_request_quit
    )
