"""Talking to a real `subterminator serve` child: its environment, a terminal operator, refs."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.client.stdio import StdioServerParameters, get_default_environment

from tests.support import warm_children
from tests.support.warm_children import WarmPopen, started_by_a_client

SERVE_COMMAND = [sys.executable, "-m", "subterminator_tui", "serve"]


def child_environment(tmp_path: Path) -> dict[str, str]:
    """This test's isolated home (XDG dirs, config) plus a private journal, for the child."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.endswith("_API_KEY")
        and (not key.startswith("SUBTERMINATOR_") or key == "SUBTERMINATOR_CONFIG")
    }
    env["SUBTERMINATOR_JOURNAL"] = str(tmp_path / "journal.sqlite3")
    return env


def serve_over_stdio(tmp_path: Path, operator_tty: str, *options: str) -> StdioServerParameters:
    """The server as a desktop client starts it: this test's home and journal, profiles under
    ``tmp_path``/profiles, the operator at ``operator_tty`` (or ``none``), plus ``options``."""
    return started_warm(
        StdioServerParameters(
            command=SERVE_COMMAND[0],
            args=[
                *SERVE_COMMAND[1:],
                "--operator-tty",
                operator_tty,
                *options,
                "--profile-root",
                str(tmp_path / "profiles"),
            ],
            env=child_environment(tmp_path),
        )
    )


def started_warm(params: StdioServerParameters) -> StdioServerParameters:
    """``params`` with a stand-in whose child comes from this worker's warm interpreter
    (tests/support/warm_stand_in.py) where one can stand for a fresh child; else as given.

    The SDK's client starts the stand-in as it would the server: a ``python -m`` server
    is then forked with the SDKs already imported (about one CPU second less a start).
    """
    command, args, env = started_by_a_client(
        [params.command, *params.args],
        params.env if params.env is not None else get_default_environment(),
    )
    return params.model_copy(update={"command": command, "args": args, "env": env})


def text_of(result: types.CallToolResult) -> str:
    """Every text block of a tool result, joined."""
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def ref_in(page_text: str, role: str, name: str) -> str:
    """The ref of the element ``role "name"`` in a compact page, as an agent would read it."""
    found = re.search(rf'{role} "{re.escape(name)}"(?: \[[\w=-]+\])*? \[ref=([\w]+)\]', page_text)
    assert found is not None, f'{role} "{name}" not on the page:\n{page_text}'
    return found.group(1)


class TerminalOperator:
    """The person at the server's terminal: a pseudo-terminal whose other end the test holds."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        self.path = os.ttyname(self.slave)
        self.screen = ""

    async def answer(self, reply: str, within: float = 60.0) -> str:
        """Wait for the next approval question, answer ``reply``; the question as shown.

        ``approve`` types the approval code the question shows, as the operator would.
        """
        loop = asyncio.get_running_loop()
        start = len(self.screen)
        async with asyncio.timeout(within):
            while not re.search(r"Type \w+ to approve.*: $", self.screen[start:]):
                readable = asyncio.Event()
                loop.add_reader(self.master, readable.set)
                try:
                    await readable.wait()
                finally:
                    loop.remove_reader(self.master)
                self.screen += os.read(self.master, 4096).decode("utf-8", "replace")
        question = self.screen[start:]
        if reply == "approve":
            found = re.search(r"Type (\w+) to approve", question)
            assert found is not None, question
            reply = found.group(1)
        os.write(self.master, reply.encode() + b"\n")
        return question

    def close(self) -> None:
        """Hang up the terminal."""
        for fd in (self.master, self.slave):
            os.close(fd)


class ServeChild:
    """A `subterminator serve --http` child; its stderr drained so it never blocks."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.process = WarmPopen(
            [*SERVE_COMMAND, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.lines: list[str] = []
        self._listening = threading.Event()
        self.url = ""
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)
            if line.startswith("listening on "):
                self.url = line.split()[-1]
                self._listening.set()
        self._listening.set()

    def wait_listening(self, within: float = 60.0) -> str:
        """The /mcp URL once the child listens (it prints it); fails if it exits first."""
        assert self._listening.wait(within), "serve --http did not start listening"
        assert self.url, "".join(self.lines)
        return self.url

    def stop(self, within: float = 15.0) -> int:
        """SIGTERM, then the exit code (killed after ``within`` seconds)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(within)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise


INSPECTOR = Path(__file__).resolve().parents[2] / "node_modules" / ".bin" / "mcp-inspector"


def inspector(args: list[str], home: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run the MCP Inspector CLI once (``--format json``); its JSON answer."""
    if not INSPECTOR.exists():
        pytest.skip("the MCP Inspector is not installed (make setup-tests runs npm ci)")
    # The Inspector gives a server 15 s to start by default: on a loaded machine a serve
    # child can take longer, and how fast it starts is not what these tests judge.
    completed = subprocess.run(
        [str(INSPECTOR), "--cli", "--format", "json", "-q", "--connect-timeout", "100000", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**(env or os.environ), "HOME": str(home)},
    )
    output = completed.stdout.strip() or completed.stderr.strip()
    answer: dict[str, Any] = json.loads(output.splitlines()[0])
    return answer


def serve_stdin_closed(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``serve`` over stdio with ``args``, its stdin closed at once."""
    command = [sys.executable, "-m", "subterminator_tui", "serve", "--operator-tty", "none"]
    return warm_children.run(
        [*command, "--profile-root", str(tmp_path / "profiles"), *args],
        input="",
        capture_output=True,
        text=True,
        env=child_environment(tmp_path),
        timeout=60,
        check=False,
    )
