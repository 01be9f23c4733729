"""Quit paths of the plain (headless) front end: the terminal closing is a stop like Ctrl+C."""

from __future__ import annotations

import signal

import pytest

from subterminator_tui.browser.processes import processes_using_profile
from subterminator_tui.exit_codes import INTERRUPTED
from tests.conftest import wait_until_no_profile_processes
from tests.integration.cli_children import PROMPT, Cli, read_until

pytestmark = pytest.mark.browser


def test_sighup_at_the_checkpoint_exits_130_and_closes_the_browser(browser_cli: Cli) -> None:
    """The window closed while the prompt waits: exit 130, no process left on the profile."""
    child = browser_cli.start(browser_cli.cancel_args("demoflix"))
    read_until(child, PROMPT)
    assert processes_using_profile(browser_cli.profile), "the browser should be running"
    child.send_signal(signal.SIGHUP)
    assert child.wait(timeout=30) == INTERRUPTED
    assert wait_until_no_profile_processes(browser_cli.profile, timeout=5.0) == []
