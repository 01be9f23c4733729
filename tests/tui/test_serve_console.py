"""`serve --tui`: the operator console shows sessions and decides held calls with y and n."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

from subterminator_tui.exit_codes import SUCCESS
from subterminator_tui.serve.config import ServeConfig
from subterminator_tui.serve.runner import Transport
from subterminator_tui.settings import load_settings
from subterminator_tui.tui.operator_console import OperatorConsole
from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from tests.tui.conftest import SIZE, screen_text, wait_until


def idle_transport(announce: Callable[[str], None]) -> Transport:
    """A transport that only says where it listens: the agents' side is not what is tested."""

    async def run(server: MCPServer[Any]) -> None:
        announce("http://127.0.0.1:1/mcp")
        await asyncio.Event().wait()

    return run


def console(tmp_path: Path) -> OperatorConsole:
    """The console as `serve --tui` builds it, on a private profile root and journal."""
    config = ServeConfig(
        settings=load_settings(journal=tmp_path / "journal.sqlite3"),
        profile_root=tmp_path / "profiles",
    )
    return OperatorConsole(config, idle_transport, image_previews=False)


async def test_held_calls_are_asked_in_order_and_decided_by_keys(tmp_path: Path) -> None:
    """Two held calls come up one after the other; y approves the first, n rejects the second."""
    app = console(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.parts is not None, "the server parts")
        assert app.parts is not None
        app.parts.registry.open("alice", "main", "demoflix")
        first = app.desk.submit(
            "alice",
            "main",
            action="Click button 'Finish cancellation'",
            why="Finishing the cancellation is irreversible",
            url="http://127.0.0.1/cancel",
        )
        second = app.desk.submit(
            "alice", "main", action="Click button 'Accept offer'", why="Accepting", url="http://x"
        )
        await wait_until(pilot, lambda: isinstance(app.screen, CheckpointScreen), "the modal")
        assert "Finish cancellation" in screen_text(app)
        assert "alice/main" in screen_text(app)
        await pilot.press("y")
        assert first.decision == "approved" and second.decision == "pending"
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, CheckpointScreen) and "Accept offer" in screen_text(app),
            "the second question",
        )
        await pilot.press("n")
        assert second.decision == "rejected"
        await wait_until(pilot, lambda: "alice/main" in screen_text(app), "the sessions table")
        await pilot.press("q")
    assert app.return_code == SUCCESS
    assert app.parts.registry.sessions == {}
