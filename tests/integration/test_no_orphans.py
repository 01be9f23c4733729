"""No process outlives SubTerminator: normal exit, SIGTERM, Ctrl+C, and Node SIGKILLed.

Each test runs the real ``subterminator inspect demoflix --wait`` in a child
process, waits until the page report is printed (the browser is then up), ends
it one way, and checks that within 5 s no process uses the profile directory.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from subterminator_tui.browser.processes import process_table, processes_using_profile
from tests.conftest import browser_parts_missing, wait_until_no_profile_processes
from tests.support.warm_children import WarmPopen

pytestmark = pytest.mark.browser


class RunningInspect:
    """``subterminator inspect demoflix --wait`` in a child process."""

    def __init__(self, profile: Path) -> None:
        self.profile = profile
        self.process = WarmPopen(
            [
                sys.executable,
                "-m",
                "subterminator_tui",
                "inspect",
                "demoflix",
                "--wait",
                "--headless",
                "--profile-dir",
                str(profile),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def wait_for_report(self, timeout: float = 60.0) -> str:
        """Read stdout until the report's last line; the browser is running then."""
        assert self.process.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        output = b""
        deadline = time.monotonic() + timeout
        while b"hand-off:" not in output:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(remaining):
                raise AssertionError(f"no report within {timeout} s; got {output!r}")
            chunk = os.read(self.process.stdout.fileno(), 4096)
            if not chunk:
                stderr = self.process.stderr.read() if self.process.stderr else b""
                raise AssertionError(f"inspect ended early: {output!r} {stderr!r}")
            output += chunk
        return output.decode()

    def node_pid(self) -> int:
        """The Playwright MCP server started for this profile."""
        for proc in process_table():
            if "@playwright/mcp/cli.js" in proc.cmdline and str(self.profile) in proc.cmdline:
                return proc.pid
        raise AssertionError("no Playwright MCP process found")

    def finish(self, timeout: float = 15.0) -> int:
        """Wait for the exit code."""
        return self.process.wait(timeout=timeout)


@pytest.fixture
def inspect_run(tmp_path: Path) -> Iterator[RunningInspect]:
    """A running inspect whose browser is up; killed outright if a test fails midway."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    run = RunningInspect(tmp_path / "profile")
    try:
        report = run.wait_for_report()
        assert "Account - Demoflix" in report
        assert processes_using_profile(run.profile), "the browser should be running"
        yield run
    finally:
        if run.process.poll() is None:
            run.process.kill()
            run.process.wait()


def test_normal_exit_leaves_no_process(inspect_run: RunningInspect) -> None:
    """End of input closes the browser and exits 0."""
    assert inspect_run.process.stdin is not None
    inspect_run.process.stdin.close()
    assert inspect_run.finish() == 0
    assert wait_until_no_profile_processes(inspect_run.profile) == []


def test_sigterm_leaves_no_process(inspect_run: RunningInspect) -> None:
    """SIGTERM cleans up and exits 143."""
    inspect_run.process.send_signal(signal.SIGTERM)
    assert inspect_run.finish() == 143
    assert wait_until_no_profile_processes(inspect_run.profile) == []


def test_ctrl_c_leaves_no_process(inspect_run: RunningInspect) -> None:
    """Ctrl+C (SIGINT) cleans up and exits 130."""
    inspect_run.process.send_signal(signal.SIGINT)
    assert inspect_run.finish() == 130
    assert wait_until_no_profile_processes(inspect_run.profile) == []


def test_node_sigkilled_leaves_no_process(inspect_run: RunningInspect) -> None:
    """Node SIGKILLed: the Chromium it leaves behind is stopped while we keep running."""
    os.kill(inspect_run.node_pid(), signal.SIGKILL)
    assert wait_until_no_profile_processes(inspect_run.profile) == []
    assert inspect_run.process.poll() is None
    assert inspect_run.process.stdin is not None
    inspect_run.process.stdin.close()
    assert inspect_run.finish() == 0
