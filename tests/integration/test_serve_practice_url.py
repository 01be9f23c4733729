"""``serve --practice-url``: only a practice site on this computer, checked as cancel checks it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from subterminator_tui.exit_codes import CONFIGURATION
from tests.integration.serve_parts import processes_under
from tests.support import warm_children
from tests.support.serve_clients import child_environment, serve_stdin_closed

REFUSAL = "--practice-url must be a practice site on this computer, such as"


@pytest.mark.parametrize("url", ["http://192.168.1.20:8000", "http://127.0.0.1.example.com:8000/"])
def test_a_practice_url_elsewhere_stops_serve_at_start(tmp_path: Path, url: str) -> None:
    """Exit 2, one clear line naming the option and the URL, no traceback, no browser."""
    run = serve_stdin_closed(tmp_path, "--practice-url", url, "--session", "main=demoflix")
    assert run.returncode == CONFIGURATION, run.stderr
    assert REFUSAL in run.stderr and repr(url) in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    assert processes_under(tmp_path) == []


def test_cancel_refuses_a_look_alike_address_the_same_way(tmp_path: Path) -> None:
    """One check for both: cancel refuses the prefix look-alike with the same sentence."""
    url = "http://127.0.0.1.example.com:8000/"
    command = [sys.executable, "-m", "subterminator_tui", "cancel", "demoflix", "--no-tui"]
    run = warm_children.run(
        [*command, "--pilot", "playbook", "--practice-url", url],
        input="",
        capture_output=True,
        text=True,
        env=child_environment(tmp_path),
        timeout=60,
        check=False,
    )
    assert run.returncode == CONFIGURATION, run.stderr
    assert REFUSAL in run.stderr and repr(url) in run.stderr, run.stderr
