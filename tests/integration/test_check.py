"""``subterminator check``: the account page read again after a cancellation.

One practice portal outlives the run and the checks (``--practice-url``), so a check
reads what the run left and, after the portal "charges again", the renewal. Real
Playwright MCP and Chromium; the checks are journaled beside the run they re-read.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from subterminator_tui.guarded.gates import Decision
from subterminator_tui.journal.store import Journal
from subterminator_tui.practice.portal import PortalServer
from subterminator_tui.rules import load_services
from subterminator_tui.session import RunRequest, prepared_run
from subterminator_tui.session.check import check_service
from subterminator_tui.session.saved_sign_in import BrowserPlace
from subterminator_tui.settings import load_settings
from tests.conftest import browser_parts_missing
from tests.fakes.human import RecordingReporter, ScriptedHuman
from tests.integration.cli_children import Cli

pytestmark = pytest.mark.browser

SERVICE = "portal-remembered"


@pytest.fixture
def portal() -> Iterator[PortalServer]:
    """A practice portal (signed in already) that outlives each run and check."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with PortalServer(("remembered",)) as site:
        yield site


async def cancel_on(portal: PortalServer, profile: Path) -> int:
    """Cancel the portal's plan through a whole run; the run's id."""
    request = dataclasses.replace(
        RunRequest(SERVICE, pilot="playbook", practice_url=portal.base_url),
        profile_dir=str(profile),
    )
    async with prepared_run(request) as prepared:
        result = await prepared.run(ScriptedHuman([Decision("approve")]), RecordingReporter())
    assert result.reason == "completed" and result.run_id is not None
    return result.run_id


async def test_a_check_reads_the_cancellation_then_the_charge_that_came_back(
    portal: PortalServer, tmp_path: Path
) -> None:
    """Still cancelled after the run; RENEWED once the portal charges again; both journaled."""
    profile = tmp_path / "profile"
    run_id = await cancel_on(portal, profile)
    service = load_services(user_file=None).get(SERVICE)
    settings = load_settings()
    place = BrowserPlace(True, profile, portal.base_url)
    with Journal(settings.resolved_journal()) as journal:
        first = await check_service(service, settings, journal, place)
        assert first.state == "cancelled" and first.expected == "cancelled"
        assert f"still cancelled since run {run_id}" in first.change()
        portal.state.renewed = True
        second = await check_service(service, settings, journal, place)
        checks = journal.checks(SERVICE)
    assert second.state == "renewed" and second.expected == "cancelled"
    assert "RENEWED again" in second.change() and second.to_dict()["changed"] is True
    assert [(check.state, check.run_id) for check in checks] == [
        ("cancelled", run_id),
        ("renewed", run_id),
    ]


async def test_an_active_plan_never_cancelled_is_read_as_active(
    portal: PortalServer, tmp_path: Path
) -> None:
    """No run before: the first check says what it reads, the plan still renewing."""
    service = load_services(user_file=None).get(SERVICE)
    settings = load_settings()
    place = BrowserPlace(True, tmp_path / "profile", portal.base_url)
    with Journal(settings.resolved_journal()) as journal:
        report = await check_service(service, settings, journal, place)
    assert report.state == "active" and report.expected is None
    assert "First check" in report.change()


def test_the_command_exits_1_and_prints_json_when_the_plan_renewed(
    portal: PortalServer, browser_cli: Cli
) -> None:
    """For cron: --json on stdout, exit 1 when the plan is not cancelled."""
    portal.state.membership, portal.state.renewed = "cancelled", True
    args = ["check", SERVICE, "--practice-url", portal.base_url, "--profile-dir"]
    run = browser_cli.run([*args, str(browser_cli.profile), "--json"])
    assert run.code == 1, run.stderr
    reading = json.loads(run.stdout)
    assert reading["state"] == "renewed" and reading["service"] == SERVICE
