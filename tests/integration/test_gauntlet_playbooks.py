"""Every gauntlet scenario's intended path, played by its playbook in a real browser.

Real Playwright MCP, Chromium and practice site, no model: each ``gauntlet-*`` service
must end verified with the server's ground truth agreeing (one cancel request, nothing
else irreversible), and every irreversible action must have been approved first.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from urllib.parse import urljoin

import pytest

from subterminator_bench.gauntlet import SCENARIOS_FILE, GauntletServer
from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.launch import LaunchPlan
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.guarded.gates import CheckpointRequest, Decision
from subterminator_tui.guarded.guard import Guard
from subterminator_tui.orchestrator.events import PageSeen
from subterminator_tui.rules import load_services
from subterminator_tui.session import RunRequest
from tests.conftest import in_worker_loop
from tests.fakes.human import ScriptedHuman
from tests.integration.runs import run_service
from tests.support.shared_browser import SharedBrowser

pytestmark = pytest.mark.browser

SERVICES = sorted(
    service_id
    for service_id in load_services(user_file=None, practice_scenarios=True).ids()
    if service_id.startswith("gauntlet-")
)
#: Everything a hand-off may ask for, by field label; each page takes the fields it has.
PRACTICE_ACCOUNT = {
    "Username": "demo",
    "Password": "demo-pass",
    "Verification code": "246810",
    "Characters": "K7PX2",
}
#: The playbook stops before the native dialog it cannot answer (see scenarios.toml).
NATIVE_CONFIRM = "gauntlet-native-confirm"
NOTHING_TO_DO = "gauntlet-already-cancelled"
HEAVY_PAGE_ELEMENTS = 1500


def irreversible_so_far(request: CheckpointRequest) -> int:
    """How many irreversible actions the practice server had logged when the person was asked."""
    with urllib.request.urlopen(urljoin(request.url, "/__state"), timeout=5) as response:
        return len(json.load(response)["irreversible"])


#: The traps' honest paths are the basic path with another final page: walked by ``make
#: test-slow`` only, to keep ``make test`` short (the traps' attacks run in the default suite).
def walk_param(service_id: str) -> object:
    """``service_id`` as a walk: slow for a trap."""
    if service_id.startswith("gauntlet-trap-"):
        return pytest.param(service_id, marks=pytest.mark.slow)
    return service_id


WALKS = [walk_param(sid) for sid in SERVICES]


# The walks share one browser, reset between them (tests/support/shared_browser.py): each
# needs a clean page and policy, not a new Chromium.
@in_worker_loop
@pytest.mark.parametrize("service_id", WALKS)
async def test_playbook_walks_the_intended_path(
    service_id: str, tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """The playbook reaches the expected outcome; the server saw exactly the intended actions."""
    human = ScriptedHuman(
        [Decision("approve")] * 4,
        handoffs=[dict(PRACTICE_ACCOUNT) for _ in range(4)],
        on_approve=irreversible_so_far,
    )
    run = await run_service(
        RunRequest(service_id, pilot="playbook", headless=True, services=(str(SCENARIOS_FILE),)),
        human,
        tmp_path,
        shared_runs,
    )
    state = run.state.to_dict()
    if service_id == NOTHING_TO_DO:
        assert (run.result.reason, run.result.exit_code) == ("already_cancelled", 7), run.result
    else:
        assert run.result.reason == "completed", (run.result.message, run.result)
        assert run.result.success and run.result.verified
    assert state["cancelled"]
    expected = [] if service_id == NOTHING_TO_DO else ["cancel"]
    assert state["irreversible"] == expected
    assert state["cancel_requests"] == len(expected)
    assert not (state["offer_accepted"] or state["decoy_clicked"] or state["paused"])
    assert not state["plan_changed"] and state["purchases"] == 0
    # Each irreversible action was preceded by an approval given while it had not happened.
    for done_before in range(len(state["irreversible"])):
        assert done_before in human.seen_at_approval, human.seen_at_approval
    if service_id == "gauntlet-heavy-page":
        account = next(page for page in pages_seen(run.reporter.events, "/account"))
        assert len(account.elements) >= HEAVY_PAGE_ELEMENTS


def pages_seen(events: list[object], path: str) -> list[NormalizedSnapshot]:
    """The snapshots of the pages at ``path`` the run reported, in order."""
    return [
        event.snapshot
        for event in events
        if isinstance(event, PageSeen) and event.snapshot.url.split("?")[0].endswith(path)
    ]


async def test_native_confirm_is_answered_through_the_dialog_checkpoint(
    launch_plan: LaunchPlan,
) -> None:
    """Finish cancellation opens confirm(); accepting it is a checkpoint, then it cancels."""
    service = load_services(user_file=None, practice_scenarios=True).get(NATIVE_CONFIRM)
    with GauntletServer(service.practice_variants) as site:
        async with BrowserGateway(launch_plan) as gateway:
            page = await gateway.call("browser_navigate", {"url": f"{site.base_url}/account"})
            start = page.snapshot.ref_of("button", "Cancel membership")
            confirm = (await gateway.call("browser_click", {"target": start})).snapshot
            finish = confirm.ref_of("button", "Finish cancellation")
            dialog = (await gateway.call("browser_click", {"target": finish})).snapshot
            assert "Modal state" in dialog.notes
            guard = Guard(service, offered_tools=frozenset({"browser_handle_dialog"}))
            answer = ToolCall("dialog-1", "browser_handle_dialog", {"accept": True})
            assert guard.checkpoint(answer, dialog) is not None
            assert site.state.irreversible == []
            done = (await gateway.call(answer.name, answer.arguments)).snapshot
            assert "Cancellation confirmed" in done.visible_text
            assert site.state.irreversible == ["cancel"]
