"""The app's actions in the command palette (Ctrl+P): the page tools always, and the answers
to the question on screen (approve, reject, guidance, stop) while it is asked.

Titles and words come from the action registry (``actions.py``), as the keys and the
help screen do.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.screen import Screen

from subterminator_tui.tui.actions import palette_actions
from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from subterminator_tui.tui.screens.quit import QuitScreen

if TYPE_CHECKING:
    from subterminator_tui.tui.app import SubTerminatorApp


def registry_commands(
    owner: str, target: object, *, about: str = "", left_out: Collection[str] = ()
) -> Iterable[SystemCommand]:
    """The palette's commands for ``owner``'s registry actions, each run on ``target``.

    ``about`` (the step a question is about) follows each one's words; the ids in
    ``left_out`` are not offered now.
    """
    for action in palette_actions(owner):
        if action.id not in left_out:
            words = f"{action.help}: {about}" if about else action.help
            yield SystemCommand(action.command, words, getattr(target, f"action_{action.action}"))


def app_commands(app: SubTerminatorApp, screen: Screen[object]) -> Iterable[SystemCommand]:
    """Search, follow, expand, help and stop; the question's answers while it is on screen."""
    yield from question_commands(screen)
    # Stopping is a question while the run lasts; after it, q simply leaves.
    yield from registry_commands("app", app, left_out=() if app.running else ("app.quit",))


def question_commands(screen: Screen[object]) -> Iterable[SystemCommand]:
    """The answers to the question on ``screen`` (the app's and the operator console's)."""
    if isinstance(screen, CheckpointScreen):
        # Guidance is offered only where a model drives (the screen knows).
        left_out = () if screen.guidance else ("checkpoint.guidance",)
        yield from registry_commands(
            "checkpoint", screen, about=screen.request.action, left_out=left_out
        )
    if isinstance(screen, QuitScreen):
        yield from registry_commands("quit", screen)
