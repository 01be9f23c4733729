"""`subterminator serve` over stdio, driven by the mcp SDK's own client, the operator at a tty."""

from __future__ import annotations

import base64
import sqlite3
import struct
import subprocess
import sys
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client

from subterminator_tui.practice.demoflix import DemoflixServer
from tests.integration.serve_parts import WALK_TO_FINISH, wait_until_none_under
from tests.support.serve_clients import (
    SERVE_COMMAND,
    TerminalOperator,
    child_environment,
    inspector,
    ref_in,
    serve_over_stdio,
    text_of,
)

pytestmark = pytest.mark.browser

SERVE_TOOLS = {
    "session_open",
    "session_list",
    "session_close",
    "navigate",
    "snapshot",
    "click",
    "type",
    "select",
    "press_key",
    "back",
    "wait_for",
    "approval_wait",
    "dialog",
    "get_content",
    "get_console_content",
}


def jpeg_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a JPEG's start-of-frame marker."""
    at = 2
    while at < len(data):
        marker, length = data[at + 1], struct.unpack(">H", data[at + 2 : at + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        at += 2 + length
    raise AssertionError("no start-of-frame marker in the JPEG")


async def test_an_agent_cancels_demoflix_with_the_operator_approving(
    remembered_demoflix: DemoflixServer, operator: TerminalOperator, tmp_path: Path
) -> None:
    """The whole practice cancellation through MCP: held at Finish until the operator says y."""
    profiles = tmp_path / "profiles"
    params = serve_over_stdio(
        tmp_path, operator.path, "--practice-url", remembered_demoflix.base_url
    )
    async with Client(params) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        # Exactly these: nothing evaluates code, uploads or writes files, or decides an approval.
        assert names == SERVE_TOOLS

        forbidden = await client.call_tool("browser_evaluate", {"function": "() => 1"})
        assert forbidden.is_error

        opened = await client.call_tool("session_open", {"name": "main", "service": "demoflix"})
        assert not opened.is_error, text_of(opened)
        page = text_of(await client.call_tool("snapshot", {"session": "main"}))

        progress: list[float] = []

        async def heard(value: float, total: float | None, message: str | None) -> None:
            progress.append(value)

        waited = await client.call_tool(
            "wait_for", {"session": "main", "seconds": 2.5}, progress_callback=heard
        )
        assert not waited.is_error, text_of(waited)
        assert progress, "a call over a second long reports progress"

        shot = await client.call_tool("snapshot", {"session": "main", "image": True})
        images = [b for b in shot.content if isinstance(b, types.ImageContent)]
        assert len(images) == 1 and images[0].mime_type == "image/jpeg"
        jpeg = base64.b64decode(images[0].data)
        assert jpeg.startswith(b"\xff\xd8") and len(jpeg) < 5 * 1024 * 1024
        assert max(jpeg_size(jpeg)) <= 2000
        assert 'button "Cancel membership"' in text_of(shot)
        for role, name in WALK_TO_FINISH:
            answer = await client.call_tool(
                "click", {"session": "main", "ref": ref_in(page, role, name)}
            )
            assert not answer.is_error, text_of(answer)
            page = text_of(answer)

        finish = ref_in(page, "button", "Finish cancellation")
        held = await client.call_tool("click", {"session": "main", "ref": finish})
        assert held.structured_content is not None
        assert held.structured_content["status"] == "approval_pending"
        approval_id = held.structured_content["approval_id"]
        status = await client.call_tool(
            "approval_wait", {"approval_id": approval_id, "timeout_seconds": 0}
        )
        assert status.structured_content is not None
        assert status.structured_content["status"] == "approval_pending"
        assert remembered_demoflix.state.cancel_requests == 0

        question = await operator.answer("approve")
        assert "Click button 'Finish cancellation'" in question
        done = await client.call_tool(
            "approval_wait", {"approval_id": approval_id, "timeout_seconds": 60}
        )
        assert done.structured_content is not None, text_of(done)
        assert done.structured_content["status"] == "ok", text_of(done)
        assert "/cancel/done" in done.structured_content["url"]
        assert done.structured_content["verified"] is True
        assert (
            remembered_demoflix.state.cancel_requests == 1
            and remembered_demoflix.state.membership == "cancelled"
        )

        closed = await client.call_tool("session_close", {"name": "main"})
        assert not closed.is_error
    assert wait_until_none_under(profiles) == []
    assert_pages_stored_once_and_shown(tmp_path)


def assert_pages_stored_once_and_shown(tmp_path: Path) -> None:
    """The served run's pages are in its call records only, and `show --snapshots` still
    prints them (read through the record of each turn), as `runs` lists the run."""
    with sqlite3.connect(tmp_path / "journal.sqlite3") as db:
        (run_id,) = db.execute("SELECT id FROM runs WHERE pilot LIKE 'mcp:%'").fetchone()
        copies = db.execute(
            "SELECT COUNT(*), COUNT(t.snapshot), COUNT(c.snapshot) FROM turns t "
            "JOIN call_records c ON c.turn_id = t.id WHERE t.run_id=?",
            (run_id,),
        ).fetchone()
        unlinked = db.execute(
            "SELECT COUNT(*) FROM call_records WHERE run_id=? AND turn_id IS NULL", (run_id,)
        ).fetchone()
    turns, turn_pages, record_pages = copies
    assert turns >= 6 and turn_pages == 0 and record_pages == turns, copies
    assert unlinked == (0,)
    env = child_environment(tmp_path)
    command = [sys.executable, "-m", "subterminator_tui"]
    shown = subprocess.run(
        [*command, "show", str(run_id), "--snapshots"],
        capture_output=True, text=True, env=env, timeout=60, check=True,
    )  # fmt: skip
    assert 'button "Finish cancellation"' in shown.stdout, shown.stdout
    assert "page: " in shown.stdout and "/cancel/done" in shown.stdout
    listed = subprocess.run(
        [*command, "runs"], capture_output=True, text=True, env=env, timeout=60, check=True
    )
    assert f"{run_id:>5}" in listed.stdout and "demoflix" in listed.stdout, listed.stdout


def test_the_inspector_lists_the_tools_and_navigates_over_stdio(
    remembered_demoflix: DemoflixServer, tmp_path: Path
) -> None:
    """A real third-party client: the MCP Inspector CLI, one server process per call."""
    serve = [
        *SERVE_COMMAND,
        "--operator-tty",
        "none",
        "--practice-url",
        remembered_demoflix.base_url,
        "--profile-root",
        str(tmp_path / "profiles"),
        "--session",
        "main=demoflix",
    ]
    env = child_environment(tmp_path)
    listed = inspector([*serve, "--method", "tools/list"], tmp_path, env)
    names = {tool["name"] for tool in listed["result"]["tools"]}
    assert {"navigate", "snapshot", "click", "approval_wait"} <= names
    went = inspector(
        [
            *serve,
            "--method",
            "tools/call",
            "--tool-name",
            "navigate",
            "--tool-args-json",
            '{"session": "main", "url": "/account"}',
        ],
        tmp_path,
        env,
    )
    assert went["result"]["isError"] is False, went
    assert went["result"]["structuredContent"]["url"] == f"{remembered_demoflix.base_url}/account"
    assert 'button "Cancel membership"' in went["result"]["content"][0]["text"]
    assert wait_until_none_under(tmp_path / "profiles") == []
