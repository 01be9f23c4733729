"""Bad input, everywhere: a clear message, the documented exit code, no traceback, no browser.

Each case here ended in a traceback, a wrong exit code or a browser started for
nothing before (issue "Honest outcomes under faults", items 4, 5 and 8).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.integration.cli_children import Cli, assert_no_browser_started
from tests.support import warm_children

pytestmark = pytest.mark.browser


def assert_clean_error(stderr: str, *words: str) -> None:
    """One readable message naming ``words``; no traceback."""
    assert "Traceback" not in stderr
    for word in words:
        assert word in stderr, (word, stderr)


@pytest.mark.parametrize("value", ["0", "-1"])
def test_a_turn_limit_below_one_is_refused(cli: Cli, value: str) -> None:
    """--max-turns 0 or -1: exit 2 naming the option, and no browser starts."""
    run = cli.run(cli.cancel_args("demoflix", "--max-turns", value))
    assert run.code == 2
    assert_clean_error(run.stderr, "--max-turns", "at least 1")
    assert_no_browser_started(cli.profile)


def test_an_empty_profile_dir_is_refused(cli: Cli, tmp_path: Path) -> None:
    """--profile-dir "": exit 2, and nothing is written into the current directory."""
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    child = warm_children.run(
        [
            sys.executable,
            "-m",
            "subterminator_tui",
            "cancel",
            "demoflix",
            "--headless",
            "--profile-dir",
            "",
        ],
        cwd=workdir,
        env=cli.env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert child.returncode == 2
    assert_clean_error(child.stderr, "--profile-dir", "empty")
    assert list(workdir.iterdir()) == []


def test_an_empty_profile_dir_variable_is_refused(cli: Cli, tmp_path: Path) -> None:
    """SUBTERMINATOR_PROFILE_DIR="": a configuration error naming the variable."""
    run = cli.run(["cancel", "demoflix", "--headless"], env=cli.env(SUBTERMINATOR_PROFILE_DIR=""))
    assert run.code == 2
    assert_clean_error(run.stderr, "SUBTERMINATOR_PROFILE_DIR", "empty")


def test_a_bad_configured_model_is_refused_like_a_bad_option(cli: Cli) -> None:
    """SUBTERMINATOR_MODEL=foo is refused as --model foo is, before a browser starts."""
    run = cli.run(cli.cancel_args("demoflix"), env=cli.env(SUBTERMINATOR_MODEL="foo"))
    assert run.code == 2
    assert_clean_error(run.stderr, "SUBTERMINATOR_MODEL", "Unsupported model: foo")
    assert_no_browser_started(cli.profile)


def test_a_missing_config_file_is_named(cli: Cli, tmp_path: Path) -> None:
    """SUBTERMINATOR_CONFIG naming no file is an error, not a silent default."""
    missing = tmp_path / "nope.toml"
    run = cli.run(cli.cancel_args("demoflix"), env=cli.env(SUBTERMINATOR_CONFIG=str(missing)))
    assert run.code == 2
    assert_clean_error(run.stderr, "SUBTERMINATOR_CONFIG", str(missing))


def test_a_bad_model_base_url_is_found_before_the_browser(cli: Cli) -> None:
    """ANTHROPIC_BASE_URL that is no URL: exit 2 before anything starts."""
    env = cli.env(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL="not a url")
    run = cli.run(cli.cancel_args("demoflix", "--pilot", "ai"), env=env)
    assert run.code == 2
    assert_clean_error(run.stderr, "ANTHROPIC_BASE_URL", "http(s) URL")
    assert_no_browser_started(cli.profile)


def test_a_browser_that_will_not_start_is_a_short_connection_error(browser_cli: Cli) -> None:
    """SUBTERMINATOR_BROWSER=/bin/false: exit 3, a short message naming it, no escape codes."""
    run = browser_cli.run(
        browser_cli.cancel_args("demoflix", "--no-tui"),
        env=browser_cli.env(SUBTERMINATOR_BROWSER="/bin/false"),
    )
    assert run.code == 3
    output = run.stdout + run.stderr
    assert_clean_error(output, "/bin/false", "doctor")
    assert "\x1b[" not in output
    assert len(output) < 1_000


@pytest.mark.parametrize("answers", ["file", "devnull"])
def test_answers_from_a_file_or_dev_null_work(
    browser_cli: Cli, tmp_path: Path, answers: str
) -> None:
    """`< answers.txt` approves; `< /dev/null` is end of input, which means no."""
    if answers == "file":
        source = tmp_path / "answers.txt"
        source.write_text("y\n", encoding="utf-8")
    else:
        source = Path("/dev/null")
    with source.open("rb") as stdin:
        child = warm_children.run(
            [sys.executable, "-m", "subterminator_tui", *browser_cli.cancel_args("demoflix")],
            stdin=stdin,
            env=browser_cli.env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert "Traceback" not in child.stderr
    if answers == "file":
        assert child.returncode == 0 and "completed and verified" in child.stdout
    else:
        assert child.returncode == 1 and "Nothing was cancelled" in child.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--url", "ftp://example.com/account"], ["only http and https"]),
        ([], ["name a service", "--url"]),
    ],
)
def test_a_bad_site_address_is_refused_before_the_browser(
    cli: Cli, args: list[str], words: list[str]
) -> None:
    """`cancel --url ftp://...` or `cancel` alone: exit 2 with what to do, no browser."""
    run = cli.run(["cancel", *args, "--headless", "--profile-dir", str(cli.profile)])
    assert run.code == 2
    assert_clean_error(run.stderr, *words)
    assert_no_browser_started(cli.profile)
