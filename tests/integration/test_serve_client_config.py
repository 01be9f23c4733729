"""docs/serve-clients.md works as written: the commands it shows are started as shown.

The stdio block is started by the SDK's stdio client exactly as a host would (command,
args); the HTTP steps run ``--new-token`` and the server command as shown (in a
pseudo-terminal, since ``--tui`` draws the operator console there; only the port is
swapped for a free one, so parallel runs cannot collide), and the client block's URL
and header reach it.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.support.serve_clients import child_environment

pytestmark = pytest.mark.browser

DOC = Path(__file__).resolve().parents[2] / "docs" / "serve-clients.md"
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


def block_after(marker: str) -> str:
    """The fenced block that follows ``<!-- serve-clients:marker -->`` in the doc."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(rf"<!-- serve-clients:{marker} -->\s*```\w*\n(.*?)```", text, re.DOTALL)
    assert found is not None, f"no {marker} block in {DOC}"
    # A block inside a numbered step is indented with it; the JSON inside keeps its own.
    return textwrap.dedent(found.group(1))


def test_the_readme_shows_the_tested_blocks() -> None:
    """The README's client set-up is the doc's, block for block: what it shows is tested."""
    readme = (DOC.parents[1] / "README.md").read_text(encoding="utf-8")
    for marker in ("stdio", "http", "http-client"):
        found = re.search(rf"<!-- serve-clients:{marker} -->\s*```\w*\n(.*?)```", readme, re.DOTALL)
        assert found is not None, f"no {marker} block in the README"
        assert textwrap.dedent(found.group(1)) == block_after(marker), marker


def environment(tmp_path: Path) -> dict[str, str]:
    """An isolated home, with `subterminator` on PATH as an installed one would be."""
    env = child_environment(tmp_path)
    env["HOME"] = str(tmp_path)
    for name, folder in (("CONFIG", ".config"), ("DATA", ".local/share"), ("STATE", ".state")):
        env[f"XDG_{name}_HOME"] = str(tmp_path / folder)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    assert shutil.which("subterminator", path=env["PATH"]), "subterminator is not installed"
    return env


async def test_the_stdio_configuration_starts_and_answers(tmp_path: Path) -> None:
    """The host's JSON, started as a host starts it: tools listed, the session it opens there."""
    server = json.loads(block_after("stdio"))["mcpServers"]["subterminator"]
    env = environment(tmp_path)
    command = shutil.which(server["command"], path=env["PATH"])
    assert command is not None
    params = StdioServerParameters(command=command, args=server["args"], env=env)
    async with Client(params) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"session_open", "click", "snapshot", "approval_wait"} <= names
        listed = await client.call_tool("session_list", {})
        assert [s["name"] for s in (listed.structured_content or {})["sessions"]] == ["main"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _screen_until(fd: int, words: str, within: float = 60.0) -> str:
    loop = asyncio.get_running_loop()
    screen = ""
    async with asyncio.timeout(within):
        while words not in ANSI.sub("", screen):
            ready = asyncio.Event()
            loop.add_reader(fd, ready.set)
            try:
                await ready.wait()
            finally:
                loop.remove_reader(fd)
            screen += os.read(fd, 65536).decode("utf-8", "replace")
    return screen


async def test_the_http_steps_work_as_written(tmp_path: Path) -> None:
    """--new-token, then the server command (console and all), then the client block."""
    env = environment(tmp_path)
    made = await asyncio.to_thread(
        subprocess.run,
        ["subterminator", "serve", "--new-token", "my-agent"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    token = made.stdout.strip()
    port = _free_port()
    command = shlex.split(block_after("http").replace("8765", str(port)))
    master, slave = os.openpty()
    child = await asyncio.create_subprocess_exec(
        *command, stdin=slave, stdout=slave, stderr=slave, env={**env, "TERM": "xterm"}
    )
    try:
        await _screen_until(master, "listening on")
        client = json.loads(block_after("http-client"))["mcpServers"]["subterminator"]
        url = client["url"].replace("8765", str(port))
        headers = {
            name: value.replace("PASTE-THE-TOKEN-HERE", token)
            for name, value in client["headers"].items()
        }
        async with (
            create_mcp_http_client(headers=headers) as http,
            Client(streamable_http_client(url, http_client=http)) as connected,
        ):
            names = {tool.name for tool in (await connected.list_tools()).tools}
            assert "session_open" in names
    finally:
        child.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(child.wait(), 20)
        except TimeoutError:
            child.kill()
            await child.wait()
        os.close(master)
        os.close(slave)
