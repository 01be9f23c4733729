"""The subscriptions home: ``subterminator`` with no command.

What statements showed (``find --keep`` or ``a`` here) beside every service with a run
in the journal, each with what happened last (cancelled and verified on a day, sent
but not verified, billed elsewhere, a letter to send, what a later check read). The
keys come from the action registry: ``c`` cancels the selected one, ``r`` re-checks it,
``o`` writes its receipt, ``a`` adds a statement. Cancelling, re-checking and the
receipt leave the home with a :class:`HomeChoice`, and the command line runs it as the
command of the same name would: the run opens as it does today.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, ClassVar

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Input, Label, Static

from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.resources import styles_dir
from subterminator_tui.rules import load_services
from subterminator_tui.settings import Settings
from subterminator_tui.statements.finding import find_subscriptions
from subterminator_tui.statements.kept import keep, load_kept
from subterminator_tui.statements.overview import HomeRow, home_rows, read_journal
from subterminator_tui.tui.actions import binding_ids, bindings
from subterminator_tui.tui.commands import registry_commands
from subterminator_tui.tui.keymap import check_keymap
from subterminator_tui.tui.plain import escaped, plain
from subterminator_tui.tui.screens.help import HelpScreen, help_rows

#: The table's columns.
COLUMNS = ("Service", "Costs", "Status", "Last charge", "How to cancel")


@dataclass(frozen=True, slots=True)
class HomeChoice:
    """What the person chose to do next: a command line to run after the home closes."""

    argv: tuple[str, ...]


class StatementPathScreen(ModalScreen[str | None]):
    """Asks for a statement's path; Enter reads it, Esc goes back."""

    HELP_TITLE = "adding a statement"
    BINDINGS: ClassVar[list[BindingType]] = bindings("statement")  # type: ignore[assignment]

    def compose(self) -> ComposeResult:
        """The question, the path field, the keys."""
        with Vertical(id="statement-dialog", classes="dialog"):
            yield Label("Add a statement", classes="title")
            yield Static(
                "A bank or card export (CSV, OFX/QFX, camt.053, MT940). It is read here and "
                "only the subscriptions found are kept.",
                classes="hint",
            )
            yield Input(placeholder="path to the file", id="statement-path")
            yield Static("Enter reads it · Esc back", classes="keys")

    @on(Input.Submitted, "#statement-path")
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_close(self) -> None:
        """Back to the home without reading anything."""
        self.dismiss(None)


class SubscriptionsHome(App[HomeChoice | None]):
    """The person's subscriptions and what happened to each."""

    TITLE = "SubTerminator"
    HELP_TITLE = "your subscriptions"
    CSS_PATH: ClassVar[list[str | PurePath]] = [
        styles_dir() / "app.tcss",
        styles_dir() / "home.tcss",
    ]
    BINDINGS: ClassVar[list[BindingType]] = bindings("home")  # type: ignore[assignment]

    def __init__(
        self,
        load_rows: Callable[[], Sequence[HomeRow]],
        add_statement: Callable[[Path], str],
        *,
        keymap: dict[str, str] | None = None,
    ) -> None:
        """``load_rows`` reads the rows (again after a statement is added);
        ``add_statement`` reads one file and keeps what it found, returning what to say."""
        super().__init__()
        self.load_rows = load_rows
        self.add_statement_file = add_statement
        self.keymap = keymap or {}
        self.rows: list[HomeRow] = []

    def compose(self) -> ComposeResult:
        """A line of what this is, the table (or how to fill it), the footer."""
        yield Static("Your subscriptions", id="home-title")
        table: DataTable[Any] = DataTable(id="subscriptions", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", id="home-empty")
        yield Static("", id="home-detail")
        yield Footer()

    def on_mount(self) -> None:
        """The person's keymap, the columns, the rows."""
        if self.keymap:
            self.set_keymap(self.keymap)
        table = self.query_one("#subscriptions", DataTable)
        for label in COLUMNS:
            table.add_column(label, key=label)
        self.refresh_rows()

    def refresh_rows(self) -> None:
        """Read the rows again and redraw the table."""
        self.rows = list(self.load_rows())
        table = self.query_one("#subscriptions", DataTable)
        table.clear()
        for index, row in enumerate(self.rows):
            table.add_row(
                plain(row.name),
                plain(row.cost or "-"),
                plain(row.status),
                plain(row.last_charge or "-"),
                plain(row.how_to_cancel),
                key=str(index),
            )
        empty = self.query_one("#home-empty", Static)
        empty.update(
            ""
            if self.rows
            else "Nothing yet. Press a to add a bank or card statement, or run "
            "subterminator find FILE --keep; services you cancel appear here too."
        )
        empty.display = not self.rows
        table.display = bool(self.rows)
        self._show_detail()

    @on(DataTable.RowHighlighted, "#subscriptions")
    def _highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        """The selected row's status and whole line of how to cancel, under the table."""
        row = self.selected()
        detail = self.query_one("#home-detail", Static)
        if row is not None:
            how = row.how_to_cancel_full or row.how_to_cancel
            detail.update(plain(f"{row.name}: {row.status}. {how}"))
        detail.display = row is not None

    def selected(self) -> HomeRow | None:
        """The row under the cursor, if any."""
        table = self.query_one("#subscriptions", DataTable)
        if not self.rows or table.cursor_row < 0 or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row]

    def action_cancel_selected(self) -> None:
        """Leave the home and run ``subterminator cancel SERVICE``."""
        row = self.selected()
        if row is None:
            return
        if not row.service_id:
            self.notify(
                escaped(row.how_to_cancel_full or row.how_to_cancel),
                title="Cancelled elsewhere"
                if row.how_to_cancel.startswith("at ")
                else "Not in the catalog",
                timeout=10,
            )
            return
        self.exit(HomeChoice(("cancel", row.service_id)))

    def action_check_selected(self) -> None:
        """Leave the home and run ``subterminator check SERVICE``."""
        row = self.selected()
        if row is None:
            return
        if not row.service_id:
            self.notify("Only a catalog service can be re-checked.", severity="warning")
            return
        self.exit(HomeChoice(("check", row.service_id)))

    def action_receipt_selected(self) -> None:
        """Leave the home and write the last run's receipt (``subterminator receipt RUN``)."""
        row = self.selected()
        if row is None:
            return
        if row.run_id is None:
            self.notify("No finished run of this service yet: no receipt.", severity="warning")
            return
        self.exit(HomeChoice(("receipt", str(row.run_id))))

    def action_add_statement(self) -> None:
        """Ask for a statement's path, then read it in a worker."""
        self.push_screen(StatementPathScreen(), self._read_statement)

    def _read_statement(self, answer: str | None) -> None:
        if answer:
            self._add(Path(answer).expanduser())

    @work(thread=True, exclusive=True, exit_on_error=False, group="statements")
    def _add(self, path: Path) -> None:
        # Reading a year of statements takes a moment: off the event loop.
        try:
            said = self.add_statement_file(path)
        except SubTerminatorError as problem:
            self.call_from_thread(
                self.notify, escaped(problem), title="Not added", severity="error", timeout=12
            )
            return
        self.call_from_thread(self.refresh_rows)
        self.call_from_thread(self.notify, escaped(said), title="Statement added")

    def action_quit_home(self) -> None:
        """Leave with nothing to run."""
        self.exit(None)

    def action_help(self) -> None:
        """The keys of the screen in front of you (``?`` or F1)."""
        if isinstance(self.screen, HelpScreen):
            return
        title = getattr(self.screen, "HELP_TITLE", self.HELP_TITLE)
        self.push_screen(HelpScreen(title, help_rows(self, self.screen)))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's commands and the home's own, in the registry's words."""
        yield from super().get_system_commands(screen)
        yield from registry_commands("home", self)


def create_home(settings: Settings, services: Sequence[Path] = ()) -> SubscriptionsHome:
    """The home as ``subterminator`` opens it: kept subscriptions, the journal, the keymap.

    An unknown binding id in the keymap is a ConfigurationError before anything starts.
    """
    check_keymap(settings.keymap, binding_ids())
    journal = settings.resolved_journal()

    def load_rows() -> list[HomeRow]:
        runs, checks = read_journal(journal)
        return home_rows(load_kept(), runs, checks)

    def add_statement(path: Path) -> str:
        report = find_subscriptions([path], load_services(services).all())
        keep(report)
        count = len(report.subscriptions)
        return f"{path.name}: {count} subscription{'s' if count != 1 else ''} kept."

    return SubscriptionsHome(load_rows, add_statement, keymap=dict(settings.keymap))
