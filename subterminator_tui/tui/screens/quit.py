"""Asked before a running run is stopped."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from subterminator_tui.tui.widgets.key_hints import KeyHints


class QuitScreen(ModalScreen[bool]):
    """``y`` stops the run and closes the browser; ``n`` or Esc goes back."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "stop", "Stop", id="quit.yes", tooltip="Stop the run and close the browser"),
        Binding("n,escape", "stay", "Back", id="quit.no", tooltip="Keep running"),
    ]

    def compose(self) -> ComposeResult:
        """The question."""
        with Vertical(id="quit-dialog", classes="dialog"):
            yield Label("Stop the run?", classes="title")
            yield Static("The browser will be closed. Nothing more will be clicked.")
            yield KeyHints({"stop": "stop", "stay": "keep running"}, classes="keys")

    def action_stop(self) -> None:
        """Stop."""
        self.dismiss(True)

    def action_stay(self) -> None:
        """Keep going."""
        self.dismiss(False)
