"""The URL bar: the current or selected page, and whether its domain is allowed."""

from __future__ import annotations

from rich.markup import escape
from textual.widgets import Static

from subterminator_tui.browser.snapshot import NormalizedSnapshot


class UrlBar(Static):
    """``✓ allowed  https://…  Title``, or a warning when the page left the service's domains."""

    def show(self, snapshot: NormalizedSnapshot | None, *, allowed: bool, label: str = "") -> None:
        """Show ``snapshot`` (None clears)."""
        self.set_class(not allowed, "outside")
        if snapshot is None:
            self.update("No page yet")
            return
        mark = "✓ allowed" if allowed else "⛔ outside the allowed domains"
        prefix = f"[b]{escape(label)}[/b]  " if label else ""
        self.update(f"{prefix}{mark}  [b]{escape(snapshot.url)}[/b]  {escape(snapshot.title)}")
