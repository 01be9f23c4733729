"""``serve --sign-in NAME=FILE``: a bad pairing or file stops the server at start, saying why."""

from __future__ import annotations

from pathlib import Path

from subterminator_tui.exit_codes import CONFIGURATION
from tests.support.serve_clients import serve_stdin_closed


def test_a_sign_in_for_a_session_never_opened_is_refused(tmp_path: Path) -> None:
    """--sign-in names a session no --session opens: exit 2, naming it."""
    run = serve_stdin_closed(tmp_path, "--sign-in", f"main={tmp_path / 'x.json'}")
    assert run.returncode == CONFIGURATION, run.stderr
    assert "--sign-in names session 'main'" in run.stderr


def test_a_file_that_is_not_a_sign_in_is_refused(tmp_path: Path) -> None:
    """A file that is not a saved sign-in: exit 2, naming the file."""
    bad = tmp_path / "bad.json"
    bad.write_text("[]", encoding="utf-8")
    run = serve_stdin_closed(
        tmp_path, "--practice", "--session", "main=demoflix", "--sign-in", f"main={bad}"
    )
    assert run.returncode == CONFIGURATION, run.stderr
    assert f"{bad}: not a saved sign-in" in run.stderr


def test_a_practice_session_needs_the_practice_flag(tmp_path: Path) -> None:
    """Practice services open a site on this computer: only with --practice (or -url)."""
    run = serve_stdin_closed(tmp_path, "--session", "main=demoflix")
    assert run.returncode == CONFIGURATION, run.stderr
    assert "--practice" in run.stderr


def test_the_flag_takes_name_equals_file(tmp_path: Path) -> None:
    """Anything but NAME=FILE is a usage error."""
    run = serve_stdin_closed(tmp_path, "--sign-in", "main")
    assert run.returncode == CONFIGURATION
    assert "--sign-in takes NAME=FILE" in run.stderr
