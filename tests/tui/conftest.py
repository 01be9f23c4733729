"""Helpers for the app's tests: the CLI's factory, waiting, reading the screen, and scenes."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest
from rich.text import Text
from textual.app import App
from textual.content import Content
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Input

from subterminator_tui.practice.demoflix import DemoflixState
from subterminator_tui.practice.sites import practice_hint
from subterminator_tui.serve.config import ServeConfig
from subterminator_tui.serve.oversight import approvals
from subterminator_tui.serve.server.http import HttpOptions, http_transport
from subterminator_tui.session import CancelSession, RunRequest, RunSession
from subterminator_tui.session.browser import BrowserStarter, fresh_browser
from subterminator_tui.settings import load_settings
from subterminator_tui.tui.app import SubTerminatorApp
from subterminator_tui.tui.operator_console import OperatorConsole
from subterminator_tui.tui.run_app import create_app
from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from subterminator_tui.tui.screens.end import EndScreen
from subterminator_tui.tui.screens.error import ErrorScreen
from subterminator_tui.tui.screens.handoff import HandoffScreen
from subterminator_tui.tui.screens.help import HelpScreen
from subterminator_tui.tui.screens.quit import QuitScreen
from subterminator_tui.tui.widgets.snapshot_tree import SnapshotTree
from subterminator_tui.tui.widgets.turn_log import TurnLog
from tests.conftest import browser_parts_missing
from tests.fakes.scripted_session import (
    ScriptedSession,
    failing_session,
    freeze_header_clock,
    login_handoff,
    long_snapshot,
)
from tests.support.shared_browser import SharedBrowser

#: Every app test runs in this terminal size (snapshots depend on it).
SIZE = (140, 40)


def console_over_http(
    tmp_path: Path,
    practice_url: str,
    *,
    image_previews: bool,
    services: tuple[Path, ...] = (),
) -> OperatorConsole:
    """``serve --http 127.0.0.1:0 --no-auth --tui`` as a test builds it: journal and
    profiles under ``tmp_path``, practice services on ``practice_url``."""
    config = ServeConfig(
        settings=load_settings(journal=tmp_path / "journal.sqlite3"),
        profile_root=tmp_path / "profiles",
        practice_url=practice_url,
        services=services,
    )
    options = HttpOptions("127.0.0.1", 0, tmp_path / "tokens.json", no_auth=True)
    return OperatorConsole(
        config, lambda announce: http_transport(options, announce), image_previews=image_previews
    )


#: A real run reaches its checkpoint in a few seconds; this only bounds a hang.
RUN_DEADLINE = 60.0


async def wait_until(
    pilot: Pilot[int],
    condition: Callable[[], bool],
    what: str,
    within: float = RUN_DEADLINE,
    *,
    seen: Callable[[], str] | None = None,
) -> None:
    """Let the app run until ``condition()`` holds; fail naming ``what`` after ``within`` s,
    and what ``seen()`` says was there instead.

    Returns after one more idle pass, so a screen that just came up has been laid out.
    """
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            instead = f"; instead: {seen()}" if seen is not None else ""
            raise AssertionError(f"timed out after {within:.0f} s waiting for {what}{instead}")
        # Poll interval only: the condition decides, not the delay.
        await pilot.pause(0.05)
    await pilot.pause()


@pytest.fixture(autouse=True)
def fixed_approval_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The operator's approval codes from a fixed key: a snapshot shows the same code every
    run (a running server keys them with a secret of its own)."""
    monkeypatch.setattr(approvals, "_CODE_KEY", b"snapshot tests: a fixed approval key")


@pytest.fixture(autouse=True)
def frozen_header_clock() -> Iterator[None]:
    """Every app test sees 00:00 in the header, however long it ran."""
    undo = freeze_header_clock()
    yield
    undo()


def scripted_app(session: RunSession) -> SubTerminatorApp:
    """The app ``subterminator cancel`` builds, driven by a scripted session."""
    return create_app(load_settings(image_previews=False), session)


@dataclass
class PracticeRun:
    """A real run of a practice service in the app, with the practice site's live state."""

    request: RunRequest
    session: CancelSession | None = None
    #: Starts the run's browser: a fresh one, or the worker's shared one (``shared_runs``).
    start_browser: BrowserStarter = fresh_browser

    @classmethod
    def of(
        cls,
        service: str,
        tmp_path: Path,
        *,
        pilot: str = "auto",
        shared: SharedBrowser | None = None,
    ) -> PracticeRun:
        """Headless, with a private profile under ``tmp_path``, or in ``shared``'s browser
        (a test that needs no fresh one; it runs in the worker's loop: ``in_worker_loop``)."""
        missing = browser_parts_missing()
        if missing:
            pytest.skip(missing)
        profile = tmp_path / "profile"
        request = RunRequest(service, pilot=pilot, headless=True, profile_dir=str(profile))
        return cls(request, start_browser=shared or fresh_browser)

    @property
    def profile(self) -> Path:
        """The run's browser profile directory."""
        assert self.request.profile_dir is not None
        return Path(self.request.profile_dir)

    def app(self) -> SubTerminatorApp:
        """The app and session ``subterminator cancel`` builds, kept here to read the site."""
        self.session = CancelSession(self.request, start_browser=self.start_browser)
        return create_app(load_settings(image_previews=False), self.session)

    @property
    def state(self) -> DemoflixState:
        """The practice server's state (still readable after the run closed the server)."""
        assert self.session is not None and self.session.browser is not None, (
            "the run never got its browser"
        )
        practice = self.session.browser.practice
        assert practice is not None, "these tests run practice services"
        return practice.state


def plain(widget: Widget) -> str:
    """The text a Static or Label shows, without markup."""
    visual = widget.render()
    if isinstance(visual, Content | Text):
        return visual.plain
    return str(visual)


def screen_text(app: App[int]) -> str:
    """Everything on the terminal right now (the active screen over the ones below), as text."""
    svg = app.export_screenshot()
    lines = re.findall(r"<text [^>]*>(.*?)</text>", svg, flags=re.DOTALL)
    return html.unescape("".join(lines)).replace("\xa0", " ")


def quiet(app: App[int]) -> None:
    """No animations and no blinking cursors, so a screenshot is the same every time."""
    app.animation_level = "none"
    for screen in app.screen_stack:
        for widget in screen.query(Input):
            widget.cursor_blink = False


# --- scenes: the screens the snapshot tests pin and scripts/screenshots.py exports ------------

RunBefore = Callable[[Pilot[int]], Awaitable[None]]
#: One step on the way to a scene's screen.
Step = Callable[[SubTerminatorApp, Pilot[int]], Awaitable[None]]


@dataclass(frozen=True)
class Scene:
    """A scripted app and the steps that bring it to one screen, quiet and laid out."""

    app: App[int]
    run_before: RunBefore


def _scene(session: ScriptedSession, *steps: Step) -> Scene:
    app = scripted_app(session)

    async def run_before(pilot: Pilot[int]) -> None:
        for step in steps:
            await step(app, pilot)
        quiet(app)
        await pilot.pause()

    return Scene(app, run_before)


def _until(condition: Callable[[SubTerminatorApp], bool], what: str) -> Step:
    async def step(app: SubTerminatorApp, pilot: Pilot[int]) -> None:
        await wait_until(pilot, lambda: condition(app), what, within=10)

    return step


def _press(*keys: str) -> Step:
    async def step(app: SubTerminatorApp, pilot: Pilot[int]) -> None:
        await pilot.press(*keys)

    return step


def _rows(count: int) -> Callable[[SubTerminatorApp], bool]:
    return lambda app: app.query_one(TurnLog).row_count == count


def _on_screen(kind: type[Screen[object]]) -> Callable[[SubTerminatorApp], bool]:
    return lambda app: isinstance(app.screen, kind)


def mid_run_scene() -> Scene:
    """Turn 4 of demoflix running: the turn log, its arguments and the offer page's tree."""
    return _scene(ScriptedSession(hold_at_turn=4), _until(_rows(4), "turn 4 in the log"))


def checkpoint_scene() -> Scene:
    """The approval asked before "Finish cancellation"."""
    return _scene(ScriptedSession(), _until(_on_screen(CheckpointScreen), "the checkpoint"))


def handoff_scene() -> Scene:
    """The sign-in hand-off, both fields typed: the password shows as dots."""
    request = login_handoff(headed=True, hint=practice_hint())
    return _scene(
        ScriptedSession(handoffs=(request,)),
        _until(_on_screen(HandoffScreen), "the hand-off"),
        _press(*"demo", "enter", *"hunter22"),
    )


def end_scene() -> Scene:
    """After `y` at the checkpoint: cancelled and verified."""
    return _scene(
        ScriptedSession(),
        _until(_on_screen(CheckpointScreen), "the checkpoint"),
        _press("y"),
        _until(_on_screen(EndScreen), "the end screen"),
    )


def long_snapshot_scene() -> Scene:
    """A page of 5,000+ elements, the tree opened at the turn's target."""

    def targeted(app: SubTerminatorApp) -> bool:
        node = app.query_one(SnapshotTree).cursor_node
        return _rows(1)(app) and node is not None and "Cancel" in node.label.plain

    session = ScriptedSession(start_page=long_snapshot(5_000), hold_at_turn=1)
    return _scene(session, _until(targeted, "the targeted button"))


def stop_scene() -> Scene:
    """Ctrl+C at turn 2: "Stop the run?" with its keys."""
    return _scene(
        ScriptedSession(hold_at_turn=2),
        _until(_rows(2), "turn 2 in the log"),
        _press("ctrl+c"),
        _until(_on_screen(QuitScreen), "the stop question"),
    )


def help_scene() -> Scene:
    """F1 at turn 2: the keys of the run's main screen, from the action registry."""
    return _scene(
        ScriptedSession(hold_at_turn=2),
        _until(_rows(2), "turn 2 in the log"),
        _press("f1"),
        _until(_on_screen(HelpScreen), "the help screen"),
    )


def rejected_end_scene() -> Scene:
    """After `n` at the checkpoint: not cancelled, in plain words."""
    return _scene(
        ScriptedSession(),
        _until(_on_screen(CheckpointScreen), "the checkpoint"),
        _press("n"),
        _until(_on_screen(EndScreen), "the end screen"),
    )


def error_scene() -> Scene:
    """The run could not go on: a configuration error, its words and exit code 2."""
    from subterminator_tui.errors import ConfigurationError

    failure = ConfigurationError("ANTHROPIC_API_KEY is not set. Set it, or use --pilot playbook.")
    return _scene(failing_session(failure), _until(_on_screen(ErrorScreen), "the error screen"))


def console_scene(tmp_path: Path, *, held: bool, keys: bool = False) -> Scene:
    """The operator console with one session open; ``held``: a call waiting for the operator;
    ``keys``: its help screen (F1) over it."""
    from tests.support.operator_consoles import console

    app = console(tmp_path)

    async def run_before(pilot: Pilot[int]) -> None:
        # Waits bound a hang only (RUN_DEADLINE): how fast a loaded machine draws is not judged.
        await wait_until(pilot, lambda: app.parts is not None, "the server parts")
        assert app.parts is not None
        app.parts.registry.open("alice", "main", "demoflix")
        if held:
            # A fixed approval id: the question shows its code, and a snapshot must not move.
            with mock.patch(
                "subterminator_tui.serve.oversight.approvals.secrets.token_hex"
            ) as token:
                token.return_value = "5ca1ab1e0ddba11c"
                app.desk.submit(
                    "alice",
                    "main",
                    action="Click button 'Finish cancellation'",
                    why="Finishing the cancellation is irreversible",
                    url="http://127.0.0.1:8000/cancel/confirm",
                )
            await wait_until(
                pilot, lambda: isinstance(app.screen, CheckpointScreen), "the held call"
            )
        waiting = "1 waiting" if held else "0 waiting"

        def settled() -> bool:
            # The table itself: the held call's question names alice/main too.
            table = app.screen_stack[0].query_one("#sessions", DataTable)
            listed = table.row_count == 1 and "alice/main" in str(table.get_row_at(0))
            shown = screen_text(app)
            # Drawn at its measured widths: until the table measures itself again, a new
            # row's columns can be drawn at their headers' widths ("demofli").
            measured = any(
                "alice/main" in line and "demoflix" in line for line in shown.splitlines()
            )
            return listed and measured and f"1 session · {waiting}" in shown

        def seen() -> str:
            table = app.screen_stack[0].query_one("#sessions", DataTable)
            rows = [table.get_row_at(index) for index in range(table.row_count)]
            return f"rows {rows!r}, screen {screen_text(app)!r}"

        # The table and status line are redrawn on a timer: wait for the settled picture.
        await wait_until(pilot, settled, "the session in the table and status line", seen=seen)
        if keys:
            await pilot.press("f1")
            await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        quiet(app)
        await pilot.pause()

    return Scene(app, run_before)


#: Every question the app can put on screen, by name: the 80x24 walk visits each.
MODAL_SCENES: dict[str, Callable[[], Scene]] = {
    "checkpoint": checkpoint_scene,
    "handoff": handoff_scene,
    "stop": stop_scene,
    "end": end_scene,
    "end-rejected": rejected_end_scene,
    "error": error_scene,
}


def first_run(make: Callable[[ScriptedSession], Scene]) -> Callable[[], Scene]:
    """A scene as a first run shows it: `make demo`, the playbook driving, no model."""
    return lambda: make(ScriptedSession(model=None))


def _first_main(session: ScriptedSession) -> Scene:
    session.hold_at_turn = 4
    return _scene(session, _until(_rows(4), "turn 4 in the log"))


def _first_checkpoint(session: ScriptedSession) -> Scene:
    return _scene(session, _until(_on_screen(CheckpointScreen), "the checkpoint"))


def _first_end(session: ScriptedSession) -> Scene:
    return _scene(
        session,
        _until(_on_screen(CheckpointScreen), "the checkpoint"),
        _press("y"),
        _until(_on_screen(EndScreen), "the end screen"),
    )


def _first_handoff(session: ScriptedSession) -> Scene:
    session.handoffs = (login_handoff(headed=True, hint=practice_hint()),)
    return _scene(
        session,
        _until(_on_screen(HandoffScreen), "the hand-off"),
        _press(*"demo", "enter", *"hunter22"),
    )


#: The screenshots ``scripts/screenshots.py`` writes, by file name: a first run of the demo.
SCREENSHOT_SCENES: dict[str, Callable[[], Scene]] = {
    "main": first_run(_first_main),
    "checkpoint": first_run(_first_checkpoint),
    "handoff": first_run(_first_handoff),
    "end": first_run(_first_end),
}
#: The size the screenshots are taken at: the smallest terminal the app serves whole.
SCREENSHOT_SIZE = (100, 30)


async def stop_console(pilot: Pilot[int], app: OperatorConsole) -> None:
    """``q``, then ``s`` once the console asks "Stop the server?"."""
    await pilot.press("q")
    await wait_until(pilot, lambda: isinstance(app.screen, QuitScreen), "the stop question")
    await pilot.press("s")
    await wait_until(pilot, lambda: app.return_code is not None, "the console to exit")
