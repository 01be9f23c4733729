"""The live view in the app and in the operator console: real browser frames in a pane.

With image previews on, the cancel app draws the page after each action, and ``serve
--tui`` follows the selected session's frames (the stream the HTTP live view serves).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.session import CancelSession
from subterminator_tui.settings import load_settings
from subterminator_tui.tui.run_app import create_app
from subterminator_tui.tui.widgets.live_page import LivePage
from tests.conftest import browser_parts_missing, wait_until_no_profile_processes
from tests.integration.serve_parts import wait_until_none_under
from tests.support.app_screens import at_checkpoint
from tests.support.serve_clients import text_of
from tests.tui.conftest import SIZE, PracticeRun, console_over_http, stop_console, wait_until

pytestmark = pytest.mark.browser


async def test_the_app_draws_the_page_after_each_action(tmp_path: Path) -> None:
    """Up to the checkpoint the playbook acts several times; the pane has drawn frames."""
    run = PracticeRun.of("demoflix", tmp_path, pilot="playbook")
    run.session = CancelSession(run.request)
    app = create_app(load_settings(image_previews=True), run.session)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: at_checkpoint(app), "the checkpoint modal")
        live = app.query_one(LivePage)
        await wait_until(pilot, lambda: live.frames_shown >= 1, "a frame in the live view")
        assert live.query(".live-frame")
        await pilot.press("n")
    assert run.state.cancel_requests == 0
    assert wait_until_no_profile_processes(run.profile) == []


async def test_the_console_follows_the_selected_sessions_frames(tmp_path: Path) -> None:
    """An agent navigates over HTTP; the console's live view draws a frame, then another."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with DemoflixServer(["remembered"]) as site:
        app = console_over_http(tmp_path, site.base_url, image_previews=True)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: bool(app.listening), "the server to listen")
            async with Client(app.listening) as client:
                await client.call_tool("session_open", {"name": "main", "service": "demoflix"})
                went = await client.call_tool("navigate", {"session": "main", "url": "/account"})
                assert not went.is_error, text_of(went)
                live = app.query_one(LivePage)
                await wait_until(pilot, lambda: live.frames_shown >= 1, "the first frame")
                shown = live.frames_shown
                moved = await client.call_tool("navigate", {"session": "main", "url": "/cancel"})
                assert not moved.is_error, text_of(moved)
                await wait_until(pilot, lambda: live.frames_shown > shown, "a frame after it")
            await stop_console(pilot, app)
    assert wait_until_none_under(tmp_path / "profiles") == []
