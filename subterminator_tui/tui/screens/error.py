"""The error screen: a failed run shown with its message and exit code, never a traceback."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widgets import Label, Static

from subterminator_tui.tui.actions import bindings
from subterminator_tui.tui.plain import plain_block
from subterminator_tui.tui.screens.question import QuestionScreen
from subterminator_tui.tui.widgets.key_hints import KeyHints


class ErrorScreen(QuestionScreen[int]):
    """What went wrong and what to do; ``q`` quits with the exit code."""

    #: What the help screen calls this screen.
    HELP_TITLE = "the run could not go on"

    BINDINGS: ClassVar[list[BindingType]] = bindings("error")  # type: ignore[assignment]

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__()
        self.message = message
        self.exit_code = exit_code

    def compose(self) -> ComposeResult:
        """The message."""
        with Vertical(id="error-dialog", classes="dialog bad"):
            yield Label("✗ The run could not go on", classes="title")
            yield Static(plain_block(self.message), id="error-message")
            yield Static(f"Exit code: {self.exit_code}", classes="row")
            yield KeyHints({"quit_run": "quit"}, classes="keys")

    def action_quit_run(self) -> None:
        """Quit with the exit code."""
        self.dismiss(self.exit_code)
