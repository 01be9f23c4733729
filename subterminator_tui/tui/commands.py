"""The app's actions in the command palette (Ctrl+P): the page tools always, and the answers
to the question on screen (approve, reject, guidance, stop) while it is asked."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.screen import Screen

from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from subterminator_tui.tui.screens.quit import QuitScreen

if TYPE_CHECKING:
    from subterminator_tui.tui.app import SubTerminatorApp


def app_commands(app: SubTerminatorApp, screen: Screen[object]) -> Iterable[SystemCommand]:
    """Search, follow, expand, help and stop; the question's answers while it is on screen."""
    yield from question_commands(screen)
    yield SystemCommand("Search the page", "Find an element in the snapshot", app.action_search)
    yield SystemCommand(
        "Follow the live page", "Show the newest page and turn", app.action_follow_live
    )
    yield SystemCommand(
        "Expand or collapse the snapshot", "The whole tree at once", app.action_toggle_tree
    )
    yield SystemCommand("Help: keys", "The keys of the screen in front of you", app.action_help)
    if app.running:
        yield SystemCommand(
            "Stop the run", "Asks first, then closes the browser and exits", app.action_request_quit
        )


def question_commands(screen: Screen[object]) -> Iterable[SystemCommand]:
    """The answers to the question on ``screen`` (the app's and the operator console's)."""
    if isinstance(screen, CheckpointScreen):
        action = screen.request.action
        yield SystemCommand("Approve", f"Run this step: {action}", screen.action_approve)
        yield SystemCommand("Reject", f"End the run; never run: {action}", screen.action_reject)
        if screen.guidance:
            yield SystemCommand(
                "Guidance", "Tell the pilot what to do instead", screen.action_guidance
            )
    if isinstance(screen, QuitScreen):
        yield SystemCommand("Stop", "Stop and close the browser", screen.action_stop)
        yield SystemCommand("Keep running", "Back to the run", screen.action_stay)
