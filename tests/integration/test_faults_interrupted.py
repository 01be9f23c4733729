"""Runs that die: the next run says so, sign-ins survive, the journal views keep working.

Each test uses the real CLI as a child process, a practice site whose state outlives
the runs (``--practice-url``), and the real browser.
"""

from __future__ import annotations

import json
import os
import signal
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from subterminator_tui.practice.demoflix import DemoflixServer
from tests.integration.cli_children import PROMPT, Cli, read_until

pytestmark = pytest.mark.browser


@pytest.fixture
def site() -> Iterator[DemoflixServer]:
    """A signed-in practice site that outlives the runs of a test."""
    server = DemoflixServer(variants=("remembered",))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def cancel_cmd(cli: Cli, site: DemoflixServer) -> list[str]:
    """``cancel demoflix`` against the long-lived site."""
    return cli.cancel_args("demoflix", "--no-tui", "--practice-url", site.base_url)


def kill_at_the_prompt(cli: Cli, args: list[str]) -> None:
    """Start a run and SIGKILL it while it waits for the person at the final checkpoint."""
    child = cli.start(args)
    read_until(child, PROMPT)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()


def cancel_requests(site: DemoflixServer) -> int:
    """The site's own count of finishing requests."""
    with urllib.request.urlopen(f"{site.base_url}/__state", timeout=5) as answer:
        return int(json.load(answer)["cancel_requests"])


def test_the_next_run_names_the_interrupted_one_and_needs_no_sign_in(
    browser_cli: Cli, site: DemoflixServer
) -> None:
    """Killed at the checkpoint: the re-run says so, is still signed in, and cancels once."""
    kill_at_the_prompt(browser_cli, cancel_cmd(browser_cli, site))
    rerun = browser_cli.run(cancel_cmd(browser_cli, site), stdin=b"y\n")
    assert rerun.code == 0, rerun.stderr
    assert "was interrupted" in rerun.stdout + rerun.stderr
    assert "Sign-in needed" not in rerun.stdout
    assert cancel_requests(site) == 1


def test_runs_lists_the_interrupted_run_with_its_turns(
    browser_cli: Cli, site: DemoflixServer
) -> None:
    """`runs` shows the killed run as interrupted with a turn count, not "-"."""
    kill_at_the_prompt(browser_cli, cancel_cmd(browser_cli, site))
    listing = browser_cli.run(["runs"])
    assert listing.code == 0, listing.stderr
    (line,) = [row for row in listing.stdout.splitlines() if "demoflix" in row]
    assert "interrupted" in line
    assert line.split()[5].isdigit() and int(line.split()[5]) >= 1
    assert "last irreversible step: asked" in line


@pytest.mark.parametrize("command", [["runs"], ["show", "1"]])
def test_the_journal_views_explain_a_corrupt_journal(cli: Cli, command: list[str]) -> None:
    """A damaged journal: exit 2 and what to do, never a traceback."""
    journal = cli.home / "xdg_state_home" / "subterminator" / "journal.sqlite3"
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_bytes(b"not a database at all" * 100)
    run = cli.run(command)
    assert run.code == 2
    assert "Traceback" not in run.stderr
    assert "Move it aside" in run.stderr and str(journal) in run.stderr


def test_an_empty_journal_variable_is_a_configuration_error(cli: Cli) -> None:
    """SUBTERMINATOR_JOURNAL="" would put the journal in the current folder: refused."""
    run = cli.run(["runs"], env=cli.env(SUBTERMINATOR_JOURNAL=""))
    assert run.code == 2
    assert "SUBTERMINATOR_JOURNAL" in run.stderr and "Traceback" not in run.stderr


def test_ctrl_c_while_the_browser_starts_exits_130_without_a_traceback(
    browser_cli: Cli, tmp_path: Path
) -> None:
    """Ctrl+C while the browser hangs on start: exit 130, nothing left, no traceback."""
    hanging = tmp_path / "browser"
    hanging.write_text("#!/bin/sh\nexec sleep 60\n", encoding="utf-8")
    hanging.chmod(0o755)
    child = browser_cli.start(
        browser_cli.cancel_args("demoflix", "--no-tui"),
        env=browser_cli.env(SUBTERMINATOR_BROWSER=str(hanging)),
    )
    read_until(child, "Starting Demoflix")
    child.send_signal(signal.SIGINT)
    _stdout, stderr = child.communicate(timeout=60)
    assert child.returncode == 130
    assert b"Traceback" not in stderr
