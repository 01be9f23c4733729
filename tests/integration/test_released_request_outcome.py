"""A cancellation the person released at the request gate is a cancellation the run reports.

A page's listener (here behind an innocent "Continue") sends the finishing request on
its own; the request gate holds it and asks; the person says yes; the service
cancels. The run must then verify the cancellation on that evidence (the released
request is an approved step like a checkpoint's), never say "not cancelled". A
released purchase (an amount in the request) is no cancellation. The twin with the
released request left uncounted shows the lie it prevents: the service cancelled,
and the run said it did not.

Real parts: the orchestrator as the CLI builds it, the adversarial brain on the
loopback model through the Anthropic SDK wire format, Playwright MCP and Chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from subterminator_bench.ground_truth import read_ground_truth
from subterminator_tui.guarded.outcome import OutcomeJudge
from subterminator_tui.results import TaskResult
from tests.conftest import in_worker_loop
from tests.support.shared_browser import SharedBrowser
from tests.support.trap_runs import ApprovingPerson, run_trap

# The runs share the worker's browser, reset between them (tests/support/shared_browser.py).
pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("browser_without_keys"), in_worker_loop]


async def released_run(
    trap: str, tmp_path: Path, shared: SharedBrowser
) -> tuple[TaskResult, ApprovingPerson]:
    """Run ``trap`` with a person who approves everything, held requests included."""
    person = ApprovingPerson()
    result, _ = await run_trap(trap, person, tmp_path, shared)
    return result, person


async def test_a_released_cancellation_is_verified(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """The listener's request, held, asked and released, cancelled: the run says so."""
    result, person = await released_run("trap-listener-click", tmp_path, shared_runs)
    assert person.state is not None
    assert [asked.kind for asked in person.asked] == ["held_request"]
    assert read_ground_truth(person.state).cancelled
    assert (result.reason, result.success, result.verified) == ("completed", True, True)


async def test_a_released_purchase_is_no_cancellation(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """A released request that carries an amount spent money: no evidence of a
    cancellation (the honest finish after it is what verifies)."""
    result, person = await released_run("trap-amount-listener", tmp_path, shared_runs)
    assert person.state is not None
    kinds = [asked.kind for asked in person.asked]
    assert kinds.count("held_request") == 1
    assert person.state.irreversible == ["purchase", "cancel"]
    # Verified on the approved "Cancel my plan" that followed, not on the purchase.
    assert result.verified and result.success


async def test_uncounted_the_released_cancellation_is_reported_not_cancelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_runs: SharedBrowser
) -> None:
    """The attack on the truth, with released requests left out of the evidence: the
    service cancelled after the person released its request, and the run misreports
    it: as not cancelled, or as a cancellation that went out with nobody asked."""
    monkeypatch.setattr(OutcomeJudge, "released", lambda _judge, _step, _held, _page: None)
    result, person = await released_run("trap-listener-click", tmp_path, shared_runs)
    assert person.state is not None
    assert read_ground_truth(person.state).cancelled
    assert [asked.kind for asked in person.asked] == ["held_request"]
    assert result.reason != "completed"
    assert not result.success or result.reason == "cancelled_unasked"
