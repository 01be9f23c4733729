"""Asked before a running run (or the server's sessions) is stopped."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widgets import Label, Static

from subterminator_tui.tui.actions import bindings
from subterminator_tui.tui.screens.question import QuestionScreen
from subterminator_tui.tui.widgets.key_hints import KeyHints

#: What stopping a cancellation run does, in the words the question uses.
RUN_STOP = ("Stop the run?", "The browser will be closed. Nothing more will be clicked.")


class QuitScreen(QuestionScreen[bool]):
    """``s`` stops and closes the browser; ``n`` or Esc goes back.

    Stopping has its own key: the ``y`` that approves a checkpoint never means "stop", so
    an answer meant for one question can never answer the other.
    """

    #: What the help screen calls this screen.
    HELP_TITLE = "stop?"

    BINDINGS: ClassVar[list[BindingType]] = bindings("quit")  # type: ignore[assignment]

    def __init__(self, title: str = RUN_STOP[0], detail: str = RUN_STOP[1]) -> None:
        super().__init__()
        self.title_text = title
        self.detail = detail

    def compose(self) -> ComposeResult:
        """The question."""
        with Vertical(id="quit-dialog", classes="dialog"):
            yield Label(self.title_text, classes="title")
            yield KeyHints({"stop": "stop", "stay": "keep running"}, classes="keys")
            yield Static(self.detail)

    def action_stop(self) -> None:
        """Stop."""
        self.dismiss(True)

    def action_stay(self) -> None:
        """Keep going."""
        self.dismiss(False)
