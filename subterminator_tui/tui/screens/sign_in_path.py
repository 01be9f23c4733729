"""Asks the operator for a sign-in file: where to save a session's sign-in, or which to load."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static


class SignInPathScreen(ModalScreen[Path | None]):
    """A file path (Enter), or nothing (Esc)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Back", tooltip="Do nothing"),
    ]

    def __init__(self, title: str, note: str) -> None:
        super().__init__()
        self.title_text = title
        self.note = note

    def compose(self) -> ComposeResult:
        """The question and the path box."""
        with Vertical(id="sign-in-dialog", classes="dialog"):
            yield Label(self.title_text, classes="title")
            yield Static(self.note)
            yield Input(placeholder="/path/to/sign-in.json", id="sign-in-path")
            yield Static("Enter: go · Esc: back", classes="keys")

    @on(Input.Submitted)
    def _chosen(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        self.dismiss(Path(text).expanduser() if text else None)

    def action_cancel(self) -> None:
        """Nothing is saved or loaded."""
        self.dismiss(None)
