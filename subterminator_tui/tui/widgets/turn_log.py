"""The turn log: one row per turn; selecting a row shows that turn's page and arguments."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement
from subterminator_tui.tui.plain import plain

#: Each outcome's theme colour (a Textual theme variable) and whether it is bold.
_OUTCOME_COLOURS: dict[str, tuple[str, bool]] = {
    "ok": ("success", False),
    "done": ("success", True),
    "error": ("error", False),
    "refused": ("error", False),
    "rejected": ("error", True),
    "guidance": ("warning", False),
    "unverified": ("warning", False),
}


@dataclass
class LoggedTurn:
    """What the log knows about one turn: its call, target, page, reasoning and outcome."""

    turn: int
    call: ToolCall
    target: SnapshotElement | None
    page: NormalizedSnapshot | None
    reasoning: str
    outcome: str = "running"
    latency: float | None = None
    message: str = ""

    @property
    def target_text(self) -> str:
        """The target's role and name from the snapshot, never the pilot's words."""
        if self.target is not None:
            return f"{self.target.role} '{self.target.label}'"
        for key in ("url", "key", "status"):
            if key in self.call.arguments:
                return str(self.call.arguments[key])
        return ""


class TurnLog(DataTable[Text | str]):
    """A row per turn."""

    class TurnSelected(Message):
        """The person picked a turn to look at."""

        def __init__(self, logged: LoggedTurn) -> None:
            super().__init__()
            self.logged = logged

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, id=id)
        self.turns: dict[int, LoggedTurn] = {}
        # Rows the cursor moved to by itself to follow a new turn. Their highlights arrive
        # later (after a burst of turns, after later turns) and are not the person's choice:
        # posted as TurnSelected they showed an old turn and stopped following the live page.
        self._followed_rows: set[int] = set()

    def on_mount(self) -> None:
        """The columns."""
        for label, key in (
            # The outcome comes right after the number: a narrow terminal keeps it in view.
            ("#", "turn"),
            ("Outcome", "outcome"),
            ("Tool", "tool"),
            ("Target", "target"),
            ("Time", "latency"),
            ("Reasoning", "reasoning"),
        ):
            self.add_column(label, key=key)

    def add_turn(self, logged: LoggedTurn) -> None:
        """A new turn, still running."""
        self.turns[logged.turn] = logged
        self.add_row(
            str(logged.turn),
            self._outcome(logged),
            logged.call.name.removeprefix("browser_"),
            plain(logged.target_text),
            "",
            plain(logged.reasoning[:80]),
            key=str(logged.turn),
        )
        if self.cursor_row == self.row_count - 2 or self.row_count == 1:
            # Exactly one highlight follows: add_row's own for the first row, the move's after.
            self._followed_rows.add(self.row_count - 1)
            self.move_cursor(row=self.row_count - 1, animate=False)

    def finish_turn(self, turn: int, outcome: str, latency: float, message: str) -> None:
        """A turn's outcome arrived."""
        logged = self.turns.get(turn)
        if logged is None:
            return
        logged.outcome, logged.latency, logged.message = outcome, latency, message
        self.update_cell(str(turn), "outcome", self._outcome(logged))
        self.update_cell(str(turn), "latency", f"{latency:.1f}s")

    def _outcome(self, logged: LoggedTurn) -> Text:
        """The outcome in the theme's colour for it (dim while running)."""
        variable, bold = _OUTCOME_COLOURS.get(logged.outcome, ("", False))
        colour = self.app.theme_variables.get(variable, "") if variable else ""
        style = " ".join(part for part in ("bold" if bold else "", colour) if part)
        return plain(logged.outcome, style=style or "dim")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Tell the app which turn to show."""
        if event.cursor_row in self._followed_rows:
            self._followed_rows.discard(event.cursor_row)
            return
        key = event.row_key.value
        if key is not None and int(key) in self.turns:
            self.post_message(self.TurnSelected(self.turns[int(key)]))
