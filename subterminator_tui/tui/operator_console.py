"""`serve --tui`: the operator's console. Sessions, their live page, and held calls to decide.

The MCP server runs in a worker of this app (``exit_on_error=False``), over HTTP:
stdin and stdout belong to the terminal here. Every call a rule holds comes up,
oldest first, in the app's own checkpoint modal: ``y`` approves, ``n`` (or
guidance, which an external agent cannot take) rejects. Quitting closes every
session first, so no browser outlives the console.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path, PurePath
from typing import Any, ClassVar

from mcp.server.auth.provider import TokenVerifier
from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static
from textual.worker import Worker, WorkerState

from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.exit_codes import CONNECTION, FAILURE, INTERRUPTED, SUCCESS, TERMINATED
from subterminator_tui.guarded.gates import CheckpointRequest, Decision
from subterminator_tui.plurals import plural
from subterminator_tui.resources import styles_dir
from subterminator_tui.serve.config import ServeConfig
from subterminator_tui.serve.oversight.approvals import Approval, ApprovalDesk
from subterminator_tui.serve.server.lifecycle import ServerParts, Transport, server_parts
from subterminator_tui.serve.server.live_view import frames
from subterminator_tui.serve.sessions.browser_session import BrowserSession
from subterminator_tui.serve.sessions.sign_ins import load_session_sign_in, save_session_sign_in
from subterminator_tui.tui.actions import bindings
from subterminator_tui.tui.commands import question_commands, registry_commands
from subterminator_tui.tui.plain import escaped, plain
from subterminator_tui.tui.questions import Question, QuestionDesk, is_early_key
from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from subterminator_tui.tui.screens.help import HelpScreen, help_rows
from subterminator_tui.tui.screens.quit import QuitScreen
from subterminator_tui.tui.screens.sign_in_path import SignInPathScreen
from subterminator_tui.tui.widgets.live_page import LivePage
from subterminator_tui.tui.widgets.sessions_table import SessionsTable
from subterminator_tui.tui.widgets.snapshot_tree import SnapshotTree

#: How often the sessions table and the live page are redrawn from the registry.
REFRESH_SECONDS = 0.5
#: The sessions table's columns, each also its key.
COLUMNS = ("principal/session", "service", "browser", "page", "state")


def session_cells(session: BrowserSession) -> tuple[Text | str, ...]:
    """One session's row: every value as inert text, since page URLs are the page's own."""
    state = "held: waiting for you" if session.pending else (session.in_flight or "idle")
    page = session.page.url if session.page else "-"
    return (
        plain(session.key),
        plain(session.service.id),
        "open" if session.browser else "closed",
        plain(page),
        plain(state),
    )


class OperatorConsole(App[int]):
    """The server's operator: watches every principal's sessions, decides held calls."""

    TITLE = "SubTerminator serve"
    CSS_PATH: ClassVar[list[str | PurePath]] = [
        styles_dir() / "app.tcss",
        styles_dir() / "console.tcss",
    ]
    #: Under 30 rows the screen gets the class -short: dialogs keep their keys, details shrink.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]  # noqa: RUF012 (Textual's own type)
    BINDINGS: ClassVar[list[BindingType]] = bindings("console")  # type: ignore[assignment]

    def __init__(
        self,
        config: ServeConfig,
        make_transport: Callable[[Callable[[str], None]], Transport],
        *,
        token_verifier: TokenVerifier | None = None,
        issuer_url: str | None = None,
        image_previews: bool = True,
    ) -> None:
        super().__init__()
        self.config = config
        self.make_transport = make_transport
        self.token_verifier = token_verifier
        self.issuer_url = issuer_url
        self.image_previews = image_previews
        self.desk = ApprovalDesk()
        self.desk.subscribe(self._held)
        self.parts: ServerParts | None = None
        self.listening = ""
        self._queue: deque[Approval] = deque()
        #: Held calls and "stop the server?", one question on screen at a time.
        self.questions = QuestionDesk(self)
        self._stop_question: Question[bool] | None = None
        self._asking: Approval | None = None
        self._shown_page: object | None = None
        self._server: Worker[None] | None = None
        #: What each sign-in action did (shown as a notification too), oldest first.
        self.sign_in_outcomes: list[str] = []
        #: The session whose frames the live view follows (the selected one).
        self._watched: BrowserSession | None = None

    def compose(self) -> ComposeResult:
        """Status line, sessions beside the selected session's page, the footer."""
        yield Static("Starting the server...", id="console-status")
        with Horizontal(id="console-main"):
            table = SessionsTable(id="sessions")
            table.border_title = "Sessions"
            yield table
            with Vertical(id="console-page"):
                tree = SnapshotTree(id="snapshot")
                tree.border_title = "Live page"
                yield tree
                if self.image_previews:
                    yield LivePage(id="live-page")
        yield Footer()

    def on_mount(self) -> None:
        """The person's keymap, columns, SIGTERM, the server worker, the refresh timer."""
        if self.config.settings.keymap:
            self.set_keymap(dict(self.config.settings.keymap))
        table = self.query_one("#sessions", DataTable)
        for label in COLUMNS:
            table.add_column(label, key=label)
        # Nobody to ask: SIGTERM (a supervisor) and SIGHUP (the terminal window closed)
        # close every session as a confirmed quit does.
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGTERM, self._terminate, TERMINATED)
            loop.add_signal_handler(signal.SIGHUP, self._terminate, INTERRUPTED)
        self._server = self.run_server()
        self.set_interval(REFRESH_SECONDS, self.refresh_sessions)

    @work(exit_on_error=False, name="server", group="server")
    async def run_server(self) -> None:
        """The MCP server and its sessions, for as long as the console runs."""
        async with server_parts(
            self.config,
            token_verifier=self.token_verifier,
            issuer_url=self.issuer_url,
            desk=self.desk,
        ) as parts:
            self.parts = parts
            await self.make_transport(self.announce)(parts.server)

    def announce(self, url: str) -> None:
        """The transport listens at ``url``."""
        self.listening = url
        self._status()

    @on(Worker.StateChanged)
    def _server_state(self, event: Worker.StateChanged) -> None:
        if event.worker is not self._server or event.state != WorkerState.ERROR:
            return
        self.notify(
            escaped(f"The server stopped: {event.worker.error}"), severity="error", timeout=30
        )
        self.exit(CONNECTION, return_code=CONNECTION)

    # --- approvals ----------------------------------------------------------------------

    def _held(self, approval: Approval) -> None:
        self._queue.append(approval)
        self._ask_next()

    def _ask_next(self) -> None:
        while self._asking is None and self._queue:
            approval = self._queue.popleft()
            if approval.decision != "pending":
                continue
            self._asking = approval
            request = approval.checkpoint_request()
            self.questions.ask(partial(self._checkpoint, request, approval.code), self._decided)
        self._status()

    def action_help(self) -> None:
        """The keys of the screen in front of you (``?`` or F1)."""
        if isinstance(self.screen, HelpScreen):
            return
        title = getattr(self.screen, "HELP_TITLE", "the operator console")
        self.push_screen(HelpScreen(title, help_rows(self, self.screen)))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's commands, the question's answers while it is asked, help and stop."""
        yield from super().get_system_commands(screen)
        yield from question_commands(screen)
        yield from registry_commands("console", self)

    def _checkpoint(self, request: CheckpointRequest, code: str) -> CheckpointScreen:
        # Calls from agents: approving takes y and the approval's code, as on a plain terminal.
        return CheckpointScreen(request, preview=self.image_previews, approval_code=code)

    def _decided(self, decision: Decision | None) -> None:
        approval, self._asking = self._asking, None
        if approval is not None:
            # Guidance cannot steer another agent's loop: it rejects, and the agent reads it.
            self.desk.decide(approval.id, decision)
        self._ask_next()

    # --- the sessions and the live page ---------------------------------------------------

    def _sessions(self) -> list[BrowserSession]:
        return list(self.parts.registry.sessions.values()) if self.parts else []

    def refresh_sessions(self) -> None:
        """Bring the table up to the registry; show the selected session's latest page.

        Rows are updated in place, keyed by session, never cleared and refilled: a
        refill would reset the cursor and, until the table next measures itself, draw
        every column at its header's width.
        """
        if not self.is_running:
            # Closing: Textual removes the screen's widgets before it stops this timer.
            return
        table = self.query_one("#sessions", DataTable)
        sessions = self._sessions()
        keys = {str(session.key) for session in sessions}
        for row_key in [key for key in table.rows if key.value not in keys]:
            table.remove_row(row_key)
        for session in sessions:
            key = str(session.key)
            cells = dict(zip(COLUMNS, session_cells(session), strict=True))
            if key not in table.rows:
                table.add_row(*cells.values(), key=key)
                continue
            for column, value in cells.items():
                if table.get_cell(key, column) != value:
                    table.update_cell(key, column, value, update_width=True)
        selected = self._selected()
        if selected is not None:
            self._follow(selected)
            chosen = selected.page
            if chosen is not None and chosen is not self._shown_page:
                self._shown_page = chosen
                self.query_one("#snapshot", SnapshotTree).show_snapshot(chosen)
        self._status()

    def _follow(self, session: BrowserSession) -> None:
        """Show ``session``'s frames in the live view (image previews on), from now on."""
        if not self.image_previews or session is self._watched:
            return
        self._watched = session
        self.query_one(LivePage).clear()
        self._watch_frames(session)

    @work(exclusive=True, group="live-view", exit_on_error=False)
    async def _watch_frames(self, session: BrowserSession) -> None:
        # Frames are taken only while this worker runs: one watched session at a time.
        async for frame in frames(session):
            self.query_one(LivePage).show_frame(frame)

    # --- sign-ins: the operator's, never an agent's ------------------------------------------

    def _selected(self) -> BrowserSession | None:
        table = self.query_one("#sessions", DataTable)
        if not table.row_count:
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return next((s for s in self._sessions() if str(s.key) == row_key.value), None)

    def action_save_sign_in(self) -> None:
        """Ask for a file, then save the selected session's sign-in there (mode 0600)."""
        self._ask_sign_in_path(save=True)

    def action_load_sign_in(self) -> None:
        """Ask for a saved sign-in, then add it to the selected session."""
        self._ask_sign_in_path(save=False)

    def _ask_sign_in_path(self, *, save: bool) -> None:
        session = self._selected()
        if session is None:
            self.notify("No session is selected.", severity="warning")
            return
        verb = "Save" if save else "Load"
        note = (
            f"{session.service.name} cookies and storage of {session.key}, readable by you only."
            if save
            else f"A file saved for {session.service.name}; only its domains are loaded."
        )

        def chosen(path: Path | None) -> None:
            if path is not None:
                self._sign_in(session, path, save=save)

        self.push_screen(SignInPathScreen(f"{verb} the sign-in of {session.key}", note), chosen)

    @work(group="sign-in", exit_on_error=False)
    async def _sign_in(self, session: BrowserSession, path: Path, *, save: bool) -> None:
        try:
            if save:
                count = await save_session_sign_in(session, path)
                said = f"Saved {plural(count, 'cookie')} of {session.key} to {path}."
            else:
                count = await load_session_sign_in(session, path)
                said = f"Loaded {plural(count, 'cookie')} into {session.key}."
        except SubTerminatorError as error:
            self.sign_in_outcomes.append(f"error: {error}")
            self.notify(escaped(error), severity="error", timeout=15)
            return
        self.sign_in_outcomes.append(said)
        self.notify(escaped(said))

    def _status(self) -> None:
        where = f"listening on {self.listening}" if self.listening else "starting"
        waiting = len([a for a in self.desk.pending()])
        self.query_one("#console-status", Static).update(
            f"{where} · {plural(len(self._sessions()), 'session')} · {waiting} waiting for you"
        )

    # --- leaving ----------------------------------------------------------------------------

    def on_unmount(self) -> None:
        """The signals go back to their defaults when the console is gone."""
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            for signum in (signal.SIGTERM, signal.SIGHUP):
                loop.remove_signal_handler(signum)

    async def on_event(self, event: events.Event) -> None:
        """A key pressed before the question on screen was shown does not answer it."""
        if isinstance(event, events.Key) and is_early_key(self, event):
            return
        await super().on_event(event)

    def action_quit_console(self) -> None:
        """Ask first; then close every session (held calls rejected, browsers stopped) and exit.

        The exit code is 130 when sessions were open (their work was interrupted), else 0.
        """
        if self._stop_question is not None:
            return
        open_sessions = len(self._sessions())
        detail = (
            f"{plural(open_sessions, 'session')} open: held calls are "
            "rejected and every browser is closed."
        )
        self._stop_question = self.questions.ask(
            lambda: QuitScreen("Stop the server?", detail), self._quit_answered, first=True
        )

    async def action_quit(self) -> None:
        """Ctrl+Q and the palette's Quit: the same confirmed stop as q and Ctrl+C."""
        self.action_quit_console()

    def _quit_answered(self, stop: bool | None) -> None:
        self._stop_question = None
        if stop:
            code = INTERRUPTED if self._sessions() else SUCCESS
            self.run_worker(self._stop_then_exit(code), group="exit")

    def _terminate(self, code: int) -> None:
        self.run_worker(self._stop_then_exit(code), group="exit")

    async def _stop_then_exit(self, code: int) -> None:
        await self._stop_server()
        self.exit(code, return_code=code)

    async def _stop_server(self) -> None:
        server = self._server
        if server is not None and server.is_running:
            server.cancel()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await server.wait()


def run_console(console: OperatorConsole) -> int:
    """Run the console; its exit code."""
    result: Any = console.run()
    if result is not None:
        return int(result)
    if console.return_code:
        # Textual printed the traceback; the server, and every principal's sessions with
        # it, stopped with the console: say so, and never exit 0.
        print(
            "error: the operator console crashed, so the server stopped: every session was "
            "closed and every held call rejected.",
            file=sys.stderr,
        )
        return FAILURE
    return SUCCESS
