"""Any site by its address: a practice site that is in no services file, cancelled through --url.

The gauntlet's pages are served on 127.0.0.1 by the test, and the run is given only
their address: no service entry, so the allowed domain is the address itself, the
built-in checkpoints ask, and the generic rules verify (and say so). The model is the
scripted loopback model behind the real Anthropic SDK; browser, Playwright MCP and
egress filter are real.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from subterminator_bench.gauntlet import GauntletServer
from subterminator_tui.guarded.gates import Decision
from subterminator_tui.journal.store import Journal
from subterminator_tui.results import TaskResult
from subterminator_tui.rules import PlaybookStep
from subterminator_tui.session import RunRequest, prepared_run
from subterminator_tui.session.browser import BrowserStarter, fresh_browser
from subterminator_tui.session.record import record_playbook
from subterminator_tui.settings import load_settings
from tests.conftest import in_worker_loop
from tests.fakes.human import RecordingReporter, ScriptedHuman
from tests.integration.cli_children import Cli
from tests.support.scripted_models import SCRIPTED_KEY, scripted_model
from tests.support.shared_browser import SharedBrowser

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("browser_without_keys")]

FINISH = "Click button 'Finish cancellation'"


def clicks(*names: str) -> list[PlaybookStep]:
    """Steps that click the buttons called ``names``, in order."""
    return [
        PlaybookStep.model_validate({"action": "click", "role": "button", "name": name})
        for name in names
    ]


@dataclass
class SiteRun:
    """A finished run of a site by address, and the site's own account of it."""

    result: TaskResult
    site: GauntletServer
    human: ScriptedHuman


async def cancel_by_url(
    scenario: str,
    steps: Sequence[PlaybookStep],
    human: ScriptedHuman,
    tmp: Path,
    env: pytest.MonkeyPatch,
    browser: BrowserStarter = fresh_browser,
) -> SiteRun:
    """Serve ``scenario`` signed in, and cancel it by its address with the scripted model
    (on ``browser``: the module's shared one where a run needs a clean page, not a new one)."""
    with GauntletServer((scenario, "remembered")) as site, scripted_model(steps, env):
        request = RunRequest(
            "",
            url=f"{site.base_url}/account",
            headless=True,
            profile_dir=str(tmp / "profile"),
        )
        async with prepared_run(request, start_browser=browser) as prepared:
            assert prepared.checked.service.allowed_domains == (site.base_url,)
            result = await prepared.run(human, RecordingReporter())
    return SiteRun(result, site, human)


def test_cli_cancels_a_site_by_its_url_verified_by_generic_rules(
    browser_cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cancel --url`: one ask at the last step, and the result line, JSON and journal say
    "verified by generic rules"."""
    steps = clicks("Cancel membership", "Finish cancellation")
    with (
        GauntletServer(("basic", "remembered")) as site,
        scripted_model(steps, monkeypatch) as model,
    ):
        url = f"{site.base_url}/account"
        env = browser_cli.env(ANTHROPIC_BASE_URL=model.base_url, ANTHROPIC_API_KEY=SCRIPTED_KEY)
        args = ["cancel", "--url", url, "--headless", "--profile-dir", str(browser_cli.profile)]
        json_run = browser_cli.run([*args, "--json"], stdin=b"y\n", env=env)
    assert json_run.code == 0, json_run.stderr
    result = json.loads(json_run.stdout)
    assert result["reason"] == "completed" and result["verified_by"] == "generic"
    assert result["message"].startswith("Verified by generic rules: ")
    assert json_run.stderr.count("Human approval required for:") == 1
    assert f"Human approval required for: {FINISH}" in json_run.stderr
    assert "cancellation completed and verified by generic rules" in json_run.stderr
    assert site.state.cancel_requests == 1
    with Journal(load_settings().resolved_journal()) as journal:
        (run,) = journal.recent_runs(1)
    assert run.service == "127.0.0.1" and run.start_url == url
    assert run.verified_by == "generic" and run.message == result["message"]


@in_worker_loop
async def test_a_decoy_offer_is_not_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """Past "Accept 50% off" by "Continue to cancel": one ask (finishing), nothing accepted."""
    steps = clicks("Cancel membership", "Continue to cancel", "Finish cancellation")
    human = ScriptedHuman([Decision("approve")])
    run = await cancel_by_url("decoy-offer", steps, human, tmp_path, monkeypatch, shared_runs)
    assert run.result.reason == "completed" and run.result.verified_by == "generic"
    assert [request.action for request in human.approvals] == [FINISH]
    state = run.site.state
    assert not state.offer_accepted and not state.decoy_clicked
    assert state.cancel_requests == 1


@in_worker_loop
async def test_the_decoy_asks_the_person_first_on_any_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """A model that goes for the offer is stopped by the built-in checkpoints; no is no."""
    steps = clicks("Cancel membership", "Accept 50% off")
    human = ScriptedHuman([Decision("reject")])
    run = await cancel_by_url("decoy-offer", steps, human, tmp_path, monkeypatch, shared_runs)
    assert run.result.reason == "human_rejected"
    assert [request.action for request in human.approvals] == ["Click button 'Accept 50% off'"]
    assert not run.site.state.offer_accepted and not run.site.state.decoy_clicked


@in_worker_loop
async def test_an_unverifiable_end_page_is_reported_as_not_verified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """A paused membership says nothing the generic rules accept: the success claim fails, and
    since the approved pause did go out the run says "sent, not verified" (exit 4)."""
    steps = clicks("Cancel membership", "Pause for 3 months")
    human = ScriptedHuman([Decision("approve")])
    run = await cancel_by_url("pause-instead", steps, human, tmp_path, monkeypatch, shared_runs)
    assert run.result.reason == "sent_not_verified"
    assert not run.result.success and run.result.verified_by is None
    assert run.result.message is not None and run.result.message.startswith("Sent, not verified")
    assert "verification_failed: Not verified" in run.result.message
    assert run.result.exit_code == 4
    assert run.site.state.paused and run.site.state.cancel_requests == 0


def test_inspect_url_shows_what_the_generic_rules_see(browser_cli: Cli) -> None:
    """`inspect --url` alone judges the page with the generic rules, and names them."""
    with GauntletServer(("basic", "remembered")) as site:
        url = f"{site.base_url}/account"
        args = ["inspect", "--url", url, "--headless", "--profile-dir", str(browser_cli.profile)]
        run = browser_cli.run(args)
    assert run.code == 0, run.stderr
    assert f"URL:   {url}" in run.stdout
    assert "button 'Cancel membership'" in run.stdout
    assert "success:  does not hold" in run.stdout
    # The account page still offers to cancel: not finished, in the generic rules' words.
    assert "failure:  generic rule: The page still offers" in run.stdout


@pytest.mark.slow
async def test_a_recorded_site_replays_by_its_url_without_a_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cancel --url`, `record`, `cancel --url` again (another port): no model call, same ask."""
    steps = clicks("Cancel membership", "Finish cancellation")
    first = await cancel_by_url(
        "basic", steps, ScriptedHuman([Decision("approve")]), tmp_path, monkeypatch
    )
    # Two clicks: the approved second one's page proves it, so no claim is asked for.
    assert first.result.model_calls == 2 and first.result.run_id is not None
    with Journal(load_settings().resolved_journal()) as journal:
        recorded = record_playbook(journal, first.result.run_id)
    assert recorded.service_id == "127.0.0.1" and len(recorded.recorded.steps) == 2
    human = ScriptedHuman([Decision("approve")])
    again = await cancel_by_url("basic", steps, human, tmp_path / "again", monkeypatch)
    assert again.result.reason == "completed" and again.result.verified_by == "generic"
    assert again.result.model_calls == 0
    assert [request.action for request in human.approvals] == [FINISH]
    assert again.site.state.cancel_requests == 1
