"""Saved sign-ins, end to end: sign in on the practice site, save, load into a new profile.

One practice server outlives the commands (``--practice-url``), as a real service
outlives the person's browsers. Every command is the real CLI with the real
browser; the only sign-in typed is the first one, in profile A.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.practice.demoflix.router import SESSION_COOKIE
from tests.integration.cli_children import PROMPT, Cli, Finished
from tests.support.sign_ins import SERVICES, sign_in_profile

pytestmark = pytest.mark.browser


@pytest.fixture
def site() -> Iterator[DemoflixServer]:
    """A Demoflix that asks every new browser to sign in."""
    with DemoflixServer() as server:
        yield server


@pytest.fixture
def services(tmp_path: Path) -> Path:
    path = tmp_path / "services.toml"
    path.write_text(SERVICES, encoding="utf-8")
    return path


def auth(
    cli: Cli, action: str, file: Path, profile: Path, site: DemoflixServer, services: Path
) -> Finished:
    """Run ``auth ACTION demoflix-signin FILE`` on ``profile`` against ``site``."""
    return cli.run(
        [
            "auth",
            action,
            "demoflix-signin",
            str(file),
            "--headless",
            "--profile-dir",
            str(profile),
            "--practice-url",
            site.base_url,
            "--services",
            str(services),
        ]
    )


async def test_a_saved_sign_in_signs_in_a_new_profile(
    browser_cli: Cli, site: DemoflixServer, services: Path, tmp_path: Path
) -> None:
    """Save from a signed-in profile (0600, this site only), load into a new one: signed in."""
    saved = tmp_path / "demoflix-sign-in.json"
    await sign_in_profile(tmp_path / "a", site, tmp_path / "runs")

    save = auth(browser_cli, "save", saved, tmp_path / "a", site, services)
    assert save.code == 0, save.stdout + save.stderr
    assert "is signed in" in save.stdout
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    state = json.loads(saved.read_text(encoding="utf-8"))
    assert [cookie["name"] for cookie in state["cookies"]] == [SESSION_COOKIE]
    assert {cookie["domain"] for cookie in state["cookies"]} == {"127.0.0.1"}

    load = auth(browser_cli, "load", saved, tmp_path / "b", site, services)
    assert load.code == 0, load.stdout + load.stderr
    assert "Loaded from" in load.stdout and "is signed in" in load.stdout
    # The sign-in stays in profile B: a save from it needs no sign-in either.
    again = auth(browser_cli, "save", tmp_path / "from-b.json", tmp_path / "b", site, services)
    assert again.code == 0, again.stdout + again.stderr


async def test_a_profile_never_signed_in_is_reported_as_such(
    browser_cli: Cli, site: DemoflixServer, services: Path, tmp_path: Path
) -> None:
    """Saving from a fresh profile says the page asks for a sign-in, and exits 1."""
    result = auth(browser_cli, "save", tmp_path / "empty.json", tmp_path / "fresh", site, services)
    assert result.code == 1, result.stdout + result.stderr
    assert "shows a sign-in page" in result.stdout


async def test_cancel_starts_from_a_saved_sign_in(
    browser_cli: Cli, site: DemoflixServer, services: Path, tmp_path: Path
) -> None:
    """``cancel --sign-in FILE`` on a new profile runs the playbook with no hand-off."""
    saved = tmp_path / "demoflix-sign-in.json"
    await sign_in_profile(tmp_path / "a", site, tmp_path / "runs")
    assert auth(browser_cli, "save", saved, tmp_path / "a", site, services).code == 0

    run = browser_cli.run(
        [
            *browser_cli.cancel_args("demoflix-signin", "--pilot", "playbook"),
            "--practice-url",
            site.base_url,
            "--services",
            str(services),
            "--sign-in",
            str(saved),
        ],
        stdin=b"y\n",
    )
    assert run.code == 0, run.stdout + run.stderr
    assert PROMPT in run.stdout
    assert "sign in" not in run.stdout.lower().replace("sign-in", "")
    assert site.state.cancel_requests == 1


def test_a_bad_sign_in_file_is_refused_before_any_browser(
    browser_cli: Cli, services: Path, tmp_path: Path
) -> None:
    """Missing, not JSON, or holding another site only: exit 2 naming the file, no browser."""
    other_site = tmp_path / "other.json"
    other_site.write_text(
        json.dumps({"cookies": [{"name": "s", "value": "1", "domain": "example.com"}]}),
        encoding="utf-8",
    )
    not_json = tmp_path / "not.json"
    not_json.write_text("cookies", encoding="utf-8")
    for file in (tmp_path / "missing.json", not_json, other_site):
        run = browser_cli.run(
            [
                *browser_cli.cancel_args("demoflix-signin", "--pilot", "playbook"),
                "--services",
                str(services),
                "--sign-in",
                str(file),
            ]
        )
        assert run.code == 2, run.stdout + run.stderr
        assert str(file) in run.stderr
        assert not browser_cli.profile.exists()
