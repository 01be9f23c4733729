"""SubTerminatorApp: the run as it happens, with the person's keys on every irreversible step.

The orchestrator runs in an async worker (``exit_on_error=False``) and only
posts messages; the approval and hand-off gates are awaited inside that
worker with ``push_screen_wait``. One Worker.StateChanged handler turns the
outcome into the end screen or the error screen, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterable
from typing import ClassVar

from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets import Footer, Input
from textual.worker import Worker, WorkerState

from subterminator_tui.browser.page_capture import LiveFrames
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.exit_codes import FAILURE, INTERRUPTED, TERMINATED
from subterminator_tui.guarded.gates import CheckpointRequest
from subterminator_tui.orchestrator.endings import EndingWords, ending_of
from subterminator_tui.orchestrator.pause import RunPause
from subterminator_tui.plurals import plural
from subterminator_tui.resources import styles_dir
from subterminator_tui.results import TaskResult
from subterminator_tui.session.cancel_run import RunSession
from subterminator_tui.tui import messages
from subterminator_tui.tui.actions import bindings
from subterminator_tui.tui.bridge import AppGate, AppReporter
from subterminator_tui.tui.plain import escaped
from subterminator_tui.tui.questions import Question, QuestionDesk, is_early_key
from subterminator_tui.tui.screens.end import EndScreen
from subterminator_tui.tui.screens.error import ErrorScreen
from subterminator_tui.tui.screens.help import HelpScreen, help_rows
from subterminator_tui.tui.screens.quit import QuitScreen
from subterminator_tui.tui.widgets.arguments import ArgumentsPane
from subterminator_tui.tui.widgets.live_page import LivePage
from subterminator_tui.tui.widgets.run_header import RunHeader
from subterminator_tui.tui.widgets.snapshot_tree import SnapshotTree
from subterminator_tui.tui.widgets.turn_log import LoggedTurn, TurnLog
from subterminator_tui.tui.widgets.url_bar import UrlBar


class SubTerminatorApp(App[int]):
    """The full-screen front end of one run."""

    TITLE = "SubTerminator"
    #: Under 30 rows the screen gets the class -short: dialogs keep their keys, details shrink.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]  # noqa: RUF012 (Textual's own type)
    CSS_PATH = str(styles_dir() / "app.tcss")
    BINDINGS: ClassVar[list[BindingType]] = bindings("app")  # type: ignore[assignment]

    def __init__(
        self,
        session: RunSession,
        *,
        image_previews: bool = True,
        keymap: dict[str, str] | None = None,
        command: str = "",
        theme: str | None = None,
        save_theme: Callable[[str], None] | None = None,
        live_frames: LiveFrames | None = None,
    ) -> None:
        super().__init__()
        #: Where the live view's frames come from (None: the run shows none).
        self.live_frames = live_frames
        self._saved_theme = theme
        self._save_theme = save_theme
        self.session = session
        #: What to type to run it again, named in an ending's next step.
        self.command = command
        self.service_name = ""
        #: How the run ended, in words (None until it has); printed after the app closes.
        self.ending: EndingWords | None = None
        #: The error that ended the run, in words, when it could not go on.
        self.failure: str | None = None
        self.image_previews = image_previews
        self._user_keymap = keymap or {}
        self.result: TaskResult | None = None
        self.latest: NormalizedSnapshot | None = None
        self.latest_allowed = True
        self.follow_live = True
        self._quit_code: int | None = None
        self._run: Worker[TaskResult] | None = None
        #: Held while the person is asked whether to stop: the run waits at its next step.
        self.run_pause = RunPause()
        #: Every question the app asks, one on screen at a time.
        self.questions = QuestionDesk(self)
        self._stop_question: Question[bool] | None = None

    # --- layout -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """Header, URL bar, turn log and arguments beside the snapshot, footer."""
        yield RunHeader(id="run-header")
        yield UrlBar("No page yet", id="url-bar")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                log = TurnLog(id="turn-log")
                log.border_title = "Turns"
                yield log
                arguments = ArgumentsPane(id="arguments")
                arguments.border_title = "Arguments"
                yield arguments
            with Vertical(id="right"):
                yield Input(
                    placeholder="Search the page (Enter: next match, Esc: close)", id="search"
                )
                tree = SnapshotTree(id="snapshot")
                tree.border_title = "Accessibility snapshot"
                yield tree
                if self.image_previews:
                    yield LivePage(id="live-page")
        yield Footer()

    def on_mount(self) -> None:
        """Apply the user's keymap, catch SIGTERM and SIGHUP, start the run."""
        if self._user_keymap:
            self.set_keymap(self._user_keymap)
        if self._saved_theme in self.available_themes:
            self.theme = self._saved_theme
        # The theme chosen in the palette is the next run's theme too.
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self.query_one("#search", Input).display = False
        # Nobody is there to ask: SIGTERM (a supervisor) and SIGHUP (the terminal window
        # closed) stop the run as a confirmed quit does, the browser closed first.
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGTERM, self._stop_run, TERMINATED)
            loop.add_signal_handler(signal.SIGHUP, self._stop_run, INTERRUPTED)
        self.query_one(RunHeader).start_clock()
        self._run = self.run_session()

    def _theme_changed(self, theme: Theme) -> None:
        if self._save_theme is not None and theme.name != self._saved_theme:
            self._saved_theme = theme.name
            self._save_theme(theme.name)

    def on_unmount(self) -> None:
        """The signals go back to their defaults when the app is gone."""
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            for signum in (signal.SIGTERM, signal.SIGHUP):
                loop.remove_signal_handler(signum)

    async def on_event(self, event: events.Event) -> None:
        """A key pressed before the question on screen was shown does not answer it."""
        if isinstance(event, events.Key) and is_early_key(self, event):
            return
        await super().on_event(event)

    @work(exclusive=True, exit_on_error=False, name="run", group="run")
    async def run_session(self) -> TaskResult:
        """The orchestrator, reporting through messages and asking through modals."""
        return await self.session(AppGate(self), AppReporter(self))

    # --- events from the run ----------------------------------------------------------

    def on_run_started(self, message: messages.RunStarted) -> None:
        """The header shows the service, the driver and whether checkpoints are on."""
        event, header = message.event, self.query_one(RunHeader)
        header.service = self.service_name = event.service_name
        header.driver = f"model {event.model}" if event.model else f"{event.pilot} pilot"
        header.max_turns = event.max_turns
        header.state = "running" if event.checkpoints else "running, CHECKPOINTS OFF"
        if not event.checkpoints:
            self.notify(
                "Checkpoints are off: nothing will ask before irreversible steps.",
                severity="warning",
                timeout=30,
            )

    def on_page_seen(self, message: messages.PageSeen) -> None:
        """The newest page, shown while the person follows the live run."""
        self.latest, self.latest_allowed = message.event.snapshot, message.event.allowed
        if self.follow_live:
            self._show_page(self.latest, self.latest_allowed, None, "Live")

    def on_turn_started(self, message: messages.TurnStarted) -> None:
        """A row in the turn log, and the call's target on the page."""
        event = message.event
        self.query_one(RunHeader).turn = event.turn
        logged = LoggedTurn(event.turn, event.call, event.target, self.latest, event.reasoning)
        self.query_one(TurnLog).add_turn(logged)
        if self.follow_live:
            self._show_turn(logged, live=True)

    def on_turn_finished(self, message: messages.TurnFinished) -> None:
        """The turn's outcome in its row, the tokens in the header, a frame in the live view."""
        event, header = message.event, self.query_one(RunHeader)
        header.tokens += event.input_tokens + event.output_tokens
        header.cached_tokens += event.cache_read_tokens
        self.query_one(TurnLog).finish_turn(event.turn, event.outcome, event.latency, event.message)
        if event.outcome not in ("ok", "done") and event.message:
            self.notify(escaped(event.message), title=f"Turn {event.turn}: {event.outcome}")
        if self.image_previews:
            self._frame_after_action()

    def on_no_action(self, message: messages.NoAction) -> None:
        """The model answered without a tool call: say so."""
        self.notify(f"The model answered without a tool call ({message.event.count}).")

    def on_notice(self, message: messages.Notice) -> None:
        """A notice from the run, as a notification."""
        warning = message.event.level == "warning"
        self.notify(escaped(message.event.text), severity="warning" if warning else "information")

    def on_run_finished(self, message: messages.RunFinished) -> None:
        """The run's totals and how it ended, in the header."""
        result, header = message.event.result, self.query_one(RunHeader)
        header.tokens = result.input_tokens + result.output_tokens
        header.cached_tokens = result.cache_read_tokens
        header.cost = result.cost
        header.state = ending_of(result, self.service_name, self.command).status

    @work(exclusive=True, group="live-view", exit_on_error=False)
    async def _frame_after_action(self) -> None:
        """The page as the browser shows it after the action, in the live view."""
        frame = await self.live_frames.jpeg_frame() if self.live_frames is not None else None
        if frame is not None:
            self.query_one(LivePage).show_frame(frame)

    def show_pending(self, request: CheckpointRequest) -> None:
        """Behind the checkpoint modal: the page with the targeted element highlighted."""
        if request.call is not None and self.latest is not None:
            target = request.target.ref if request.target else None
            self.query_one(SnapshotTree).show_snapshot(self.latest, target)
            self.query_one(ArgumentsPane).show(request.call, "Pending call")

    def clear_pending(self) -> None:
        """The checkpoint was answered."""
        self.query_one(ArgumentsPane).border_title = "Arguments"

    def _show_page(
        self, snapshot: NormalizedSnapshot | None, allowed: bool, target: str | None, label: str
    ) -> None:
        self.query_one(UrlBar).show(snapshot, allowed=allowed, label=label)
        if snapshot is not None:
            self.query_one(SnapshotTree).show_snapshot(snapshot, target)

    def _show_turn(self, logged: LoggedTurn, *, live: bool) -> None:
        target = logged.target.ref if logged.target else None
        label = "Live" if live else f"Turn {logged.turn}"
        self._show_page(logged.page, self.latest_allowed if live else True, target, label)
        self.query_one(ArgumentsPane).show(logged.call, f"Turn {logged.turn}")

    @on(TurnLog.TurnSelected)
    def _turn_selected(self, message: TurnLog.TurnSelected) -> None:
        log = self.query_one(TurnLog)
        newest = max(log.turns) if log.turns else 0
        self.follow_live = message.logged.turn == newest
        self._show_turn(message.logged, live=self.follow_live)

    # --- the end of the run ------------------------------------------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The run ended: summary, error screen, or the exit that was asked for."""
        if event.worker is not self._run or event.state in (
            WorkerState.PENDING,
            WorkerState.RUNNING,
        ):
            return
        self.query_one(RunHeader).stop_clock()
        if self._quit_code is not None or event.state == WorkerState.CANCELLED:
            # The worker's cleanup (browser closed) has run by now.
            self.exit(return_code=self._quit_code or INTERRUPTED)
            return
        # The run ended on its own: a stop question still on screen has nothing left to stop.
        if self._stop_question is not None:
            self.questions.withdraw(self._stop_question)
            self._stop_question = None
        if event.state == WorkerState.SUCCESS:
            result = event.worker.result
            assert result is not None
            self.result = result
            ending = self.ending = ending_of(result, self.service_name, self.command)
            self.questions.ask(lambda: EndScreen(result, ending), self._after_summary)
        elif event.state == WorkerState.ERROR:
            error = event.worker.error
            code = error.exit_code if isinstance(error, SubTerminatorError) else FAILURE
            message = str(error) if isinstance(error, SubTerminatorError) else repr(error)
            self.failure = message
            self.questions.ask(lambda: ErrorScreen(message, code), self._after_summary)

    def _after_summary(self, code: int | None) -> None:
        if code is not None and code >= 0:
            self.exit(return_code=code)

    @property
    def running(self) -> bool:
        """True while the run worker has not finished."""
        return self._run is not None and self._run.state in (
            WorkerState.PENDING,
            WorkerState.RUNNING,
        )

    def action_request_quit(self) -> None:
        """Ask before stopping a run (holding it meanwhile); after it ended, leave."""
        if not self.running:
            code = self.result.exit_code if self.result else FAILURE
            self.exit(return_code=code)
            return
        if self._stop_question is not None:
            return
        self.run_pause.hold()
        self._stop_question = self.questions.ask(QuitScreen, self._quit_answered, first=True)

    async def action_quit(self) -> None:
        """Ctrl+Q and the palette's Quit: the same confirmed stop as q and Ctrl+C."""
        self.action_request_quit()

    def _quit_answered(self, stop: bool | None) -> None:
        self._stop_question = None
        if stop:
            self._stop_run(INTERRUPTED)
        else:
            self.run_pause.release()

    def _stop_run(self, code: int) -> None:
        """Cancel the worker; its ``async with`` closes the browser before it reports CANCELLED."""
        self._quit_code = code
        if self._run is not None and self.running:
            self._run.cancel()
        else:
            self.exit(return_code=code)

    # --- page tools ---------------------------------------------------------------------

    def action_help(self) -> None:
        """The keys of the screen in front of you (``?`` or F1)."""
        if isinstance(self.screen, HelpScreen):
            return
        title = getattr(self.screen, "HELP_TITLE", "the run")
        self.push_screen(HelpScreen(title, help_rows(self, self.screen)))

    def action_search(self) -> None:
        """Open the search box over the snapshot."""
        search = self.query_one("#search", Input)
        search.display = True
        search.focus()

    @on(Input.Submitted, "#search")
    def _search(self, event: Input.Submitted) -> None:
        tree = self.query_one(SnapshotTree)
        found = tree.search(event.value) if event.value != tree.last_search else tree.next_match()
        tree.last_search = event.value
        self.notify(
            escaped(f"{plural(found, 'match')} for '{event.value}'") if found else "No match"
        )

    def action_close_search(self) -> None:
        """Close the search box and go back to the tree."""
        self.query_one("#search", Input).display = False
        self.query_one(SnapshotTree).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Esc closes the search box only while it is open."""
        if action == "close_search":
            return bool(self.query("#search") and self.query_one("#search", Input).display)
        return True

    def action_follow_live(self) -> None:
        """Back to the live page after looking at an older turn."""
        self.follow_live = True
        log = self.query_one(TurnLog)
        if log.row_count:
            log.move_cursor(row=log.row_count - 1)
        self._show_page(self.latest, self.latest_allowed, None, "Live")

    def action_toggle_tree(self) -> None:
        """Expand or collapse the whole snapshot tree."""
        tree = self.query_one(SnapshotTree)
        if all(child.is_expanded for child in tree.root.children):
            for child in tree.root.children:
                child.collapse_all()
        else:
            tree.root.expand_all()

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The app's actions in the command palette."""
        from subterminator_tui.tui.commands import app_commands

        yield from super().get_system_commands(screen)
        yield from app_commands(self, screen)
