"""The pending or selected call's arguments, as pretty JSON."""

from __future__ import annotations

import json

from textual.containers import VerticalScroll
from textual.highlight import highlight
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
        # Textual's highlighter colours with the theme's variables, so the pane follows the theme.
        body.update(highlight(text, language="json"))
