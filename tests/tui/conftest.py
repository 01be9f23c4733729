"""Helpers for the app's tests: the CLI's app factory, waiting on conditions, reading the screen."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.text import Text
from textual.content import Content
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input

from subterminator_tui.cli.cancel import PreparedRun, RunRequest
from subterminator_tui.practice.demoflix import DemoflixState
from subterminator_tui.tui.app import RunSession, SubTerminatorApp
from subterminator_tui.tui.run import create_app, session_for
from tests.conftest import browser_parts_missing
from tests.fakes.scripted_session import frozen_clock

#: Every app test runs in this terminal size (snapshots depend on it).
SIZE = (140, 40)
#: A real run reaches its checkpoint in a few seconds; this only bounds a hang.
RUN_DEADLINE = 60.0


async def wait_until(
    pilot: Pilot[int], condition: Callable[[], bool], what: str, within: float = RUN_DEADLINE
) -> None:
    """Let the app run until ``condition()`` holds; fail naming ``what`` after ``within`` s.

    Returns after one more idle pass, so a screen that just came up has been laid out.
    """
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {within:.0f} s waiting for {what}")
        # Poll interval only: the condition decides, not the delay.
        await pilot.pause(0.05)
    await pilot.pause()


def scripted_app(session: RunSession, request: RunRequest | None = None) -> SubTerminatorApp:
    """The app ``subterminator cancel demoflix`` builds, driven by a scripted session."""
    return create_app(
        request or RunRequest("demoflix"),
        session=session,
        clock=frozen_clock(),
        image_previews=False,
    )


@dataclass
class PracticeRun:
    """A real run of a practice service in the app, with the practice site's live state."""

    request: RunRequest
    prepared: PreparedRun | None = None

    @classmethod
    def of(cls, service: str, tmp_path: Path, *, pilot: str = "auto") -> PracticeRun:
        """Headless, with a private profile under ``tmp_path``."""
        missing = browser_parts_missing()
        if missing:
            pytest.skip(missing)
        profile = tmp_path / "profile"
        return cls(RunRequest(service, pilot=pilot, headless=True, profile_dir=str(profile)))

    @property
    def profile(self) -> Path:
        """The run's browser profile directory."""
        assert self.request.profile_dir is not None
        return Path(self.request.profile_dir)

    def app(self) -> SubTerminatorApp:
        """The CLI's app with the CLI's session, which reports its prepared run back here."""

        def seen(prepared: PreparedRun) -> None:
            self.prepared = prepared

        session = session_for(self.request, on_prepared=seen)
        return create_app(self.request, session=session, image_previews=False)

    @property
    def state(self) -> DemoflixState:
        """The practice server's state (still readable after the run closed the server)."""
        assert self.prepared is not None, "the run never got its browser"
        practice = self.prepared.browser.practice
        assert practice is not None, "these tests run practice services"
        return practice.state


def plain(widget: Widget) -> str:
    """The text a Static or Label shows, without markup."""
    visual = widget.render()
    if isinstance(visual, Content | Text):
        return visual.plain
    return str(visual)


def screen_text(app: SubTerminatorApp) -> str:
    """Everything on the terminal right now (the active screen over the ones below), as text."""
    svg = app.export_screenshot()
    lines = re.findall(r"<text [^>]*>(.*?)</text>", svg, flags=re.DOTALL)
    return html.unescape("".join(lines)).replace("\xa0", " ")


def quiet(app: SubTerminatorApp) -> None:
    """No animations and no blinking cursors, so a screenshot is the same every time."""
    app.animation_level = "none"
    for widget in app.screen.query(Input):
        widget.cursor_blink = False
    for widget in app.screen_stack[0].query(Input):
        widget.cursor_blink = False
