"""``subterminator serve`` typed in a terminal: it says what it is, and Ctrl+C stops it."""

from __future__ import annotations

import os
import pty
import select
import sys
import time
from pathlib import Path

from subterminator_tui.exit_codes import INTERRUPTED

#: Start-up imports the MCP server; this only bounds a hang.
DEADLINE = 60.0


def _read_until(fd: int, marker: bytes, deadline: float) -> bytes:
    seen = b""
    while marker not in seen:
        if time.monotonic() > deadline:
            raise AssertionError(f"no {marker!r} on the terminal; got {seen!r}")
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                seen += os.read(fd, 4096)
            except OSError:
                break
    return seen


def _exit_code(pid: int, deadline: float) -> int | None:
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        # Polling: nothing signals a child's exit to this loop but waitpid.
        time.sleep(0.1)
    return None


def test_serve_in_a_terminal_explains_itself_and_stops_on_ctrl_c(isolated_home: Path) -> None:
    """The notice names what serve is and how to stop it; Ctrl+C exits 130."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execv(sys.executable, [sys.executable, "-m", "subterminator_tui", "serve"])
    code: int | None = None
    try:
        shown = _read_until(fd, b"Ctrl+C", time.monotonic() + DEADLINE)
        assert b"MCP" in shown and b"client" in shown
        os.write(fd, b"\x03")
        code = _exit_code(pid, time.monotonic() + 20)
    finally:
        if code is None:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)
    assert code == INTERRUPTED
