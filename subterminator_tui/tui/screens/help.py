"""The help screen (``?`` or F1): the keys of the screen in front of you, from the registry."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Label, Static

from subterminator_tui.tui.actions import BY_ID, bindings


def help_rows(app: App[Any], screen: Screen[Any]) -> list[tuple[str, str, str]]:
    """(keys, name, what it does) for every registry action that works on ``screen`` now.

    Read from the screen's active bindings, so a remapped key shows as remapped and an
    action not offered (guidance without a model) is not listed.
    """
    keys: dict[str, list[str]] = {}
    for active in screen.active_bindings.values():
        binding_id = active.binding.id or ""
        if binding_id in BY_ID and active.enabled:
            shown = app.get_key_display(active.binding)
            keys.setdefault(binding_id, [])
            if shown not in keys[binding_id]:
                keys[binding_id].append(shown)
    rows = [
        ("/".join(found), BY_ID[binding_id].description, BY_ID[binding_id].help)
        for binding_id, found in keys.items()
        if binding_id != "help.close"
    ]
    rows.append(("^p", "Commands", "Every command, searchable (approve, stop, theme...)"))
    return rows


class HelpScreen(ModalScreen[None]):
    """A table of the keys; Esc, ?, F1 or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("help")  # type: ignore[assignment]

    def __init__(self, title: str, rows: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.rows = rows

    def compose(self) -> ComposeResult:
        """The title and the table."""
        with Vertical(id="help-dialog", classes="dialog"):
            yield Label(f"Keys: {self.title_text}", classes="title")
            table: DataTable[str] = DataTable(id="help-keys", cursor_type="none")
            table.add_columns("Key", "Action", "What it does")
            for row in self.rows:
                table.add_row(*row)
            yield table
            yield Static("Esc, ? or F1 closes this", classes="keys")

    def action_close(self) -> None:
        """Back to the screen it was opened over."""
        self.dismiss(None)
