"""The operator console's sessions: a DataTable that draws its cells again once measured."""

from __future__ import annotations

from textual import events
from textual.widgets import DataTable


class SessionsTable(DataTable[str]):
    """A :class:`DataTable` whose cells are drawn again whenever its columns' widths move.

    The table measures a new row when it is next idle, but keeps what it drew before that
    at the old widths: under load the console showed "demofli" under a column wide enough
    for "demoflix", or a header at the old widths over a measured row, until something
    else changed. Drawing everything again right after the measuring, before the next
    paint, leaves no line at the old widths.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row")
        self._drawn_widths: tuple[int, ...] = ()

    def on_idle(self, _event: events.Idle) -> None:
        """After the table's own idle work (its measuring): redraw if the widths moved."""
        widths = tuple(column.content_width for column in self.columns.values())
        if widths != self._drawn_widths:
            self._drawn_widths = widths
            # Drops every line and cell the table keeps, and repaints it.
            self.notify_style_update()
