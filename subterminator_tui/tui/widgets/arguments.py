"""The pending or selected call's arguments, as pretty JSON."""

from __future__ import annotations

import json

from rich.syntax import Syntax
from textual.containers import VerticalScroll
from textual.widgets import Static

from subterminator_tui.browser.calls import ToolCall


class ArgumentsPane(VerticalScroll):
    """Shows one call."""

    def compose(self):  # type: ignore[no-untyped-def]
        """The text area."""
        yield Static("No call yet", id="arguments-body")

    def show(self, call: ToolCall | None, title: str = "") -> None:
        """Show ``call``'s tool and arguments."""
        body = self.query_one("#arguments-body", Static)
        if call is None:
            body.update("No call yet")
            return
        text = json.dumps({"tool": call.name, "arguments": call.arguments}, indent=2)
        self.border_title = title or "Arguments"
        body.update(Syntax(text, "json", theme="ansi_dark", word_wrap=True))
