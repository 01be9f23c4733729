"""The operator console as `serve --tui` builds it (agents idle), and the keys that approve."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

from subterminator_tui.serve.config import ServeConfig
from subterminator_tui.serve.oversight.approvals import approval_code
from subterminator_tui.serve.server.lifecycle import Transport
from subterminator_tui.settings import load_settings
from subterminator_tui.tui.operator_console import OperatorConsole


async def approve_with_code(pilot: Any, approval_id: str) -> None:
    """What the operator does to approve in the console: y, then the approval's code, Enter."""
    await pilot.press("y")
    await pilot.press(*approval_code(approval_id), "enter")
    await pilot.pause()


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
        practice=True,
    )
    return OperatorConsole(config, idle_transport, image_previews=False)
