"""A run's outcome is judged on evidence and said in honest words (captured pages, no browser).

Verified needs the success text shown to a person after an approved cancellation step
sent in this run, and not shown before it; approving an offer is no evidence; a service
that answered the step's request with an error is no evidence; an account cancelled
before the run is ``already_cancelled`` (exit 7); a run that sent an approved step but
could not verify its end is ``sent_not_verified`` (exit 4), never "not cancelled".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.guarded.gates import Decision
from subterminator_tui.rules.evidence import RequestAnswer
from tests.fakes.browser import FakeBrowser
from tests.fakes.pilot import ScriptedPilot, calls
from tests.fixtures.pages import page
from tests.support.loop_runs import START, LoopRun

CLAIM = calls("complete_task", status="success", reason="Cancelled.")


def pages_after(**by_tool: NormalizedSnapshot) -> Any:
    """An answer showing, per tool name, the page it leads to."""
    return lambda name, _args: by_tool[name]


def approve(run: LoopRun, times: int = 1) -> LoopRun:
    """The person approves the next ``times`` checkpoints."""
    run.human.decisions.extend(Decision("approve") for _ in range(times))
    return run


def finish_then(after: NormalizedSnapshot, *, claims: int = 3) -> tuple[ScriptedPilot, FakeBrowser]:
    """Finish cancellation on the confirmation page, which leads to ``after``; then claims."""
    finish = page("confirm").ref_of("button", "Finish cancellation")
    pilot = ScriptedPilot([calls("browser_click", target=finish), *[CLAIM] * claims])
    browser = FakeBrowser(
        page("confirm"),
        answer=pages_after(browser_navigate=page("confirm"), browser_click=after),
    )
    return pilot, browser


async def test_a_confirmation_without_an_approved_step_is_not_verified(tmp_path: Path) -> None:
    """The success sentence on a page reached by no approved step (a survey that prints it
    early): three claims, verification_failed, nothing sent, so "not cancelled" is honest."""
    wait = calls("browser_wait_for", time=1)
    browser = FakeBrowser(
        page("account"),
        answer=pages_after(browser_navigate=page("account"), browser_wait_for=page("done")),
    )
    run = LoopRun(tmp_path, ScriptedPilot([wait, CLAIM, CLAIM, CLAIM]), browser)
    result = await run.result()
    assert (result.reason, result.success, result.verified, result.exit_code) == (
        "verification_failed",
        False,
        False,
        1,
    )
    assert "no approved cancellation step" in (result.message or "")
    assert not result.to_dict()["sent"]


async def test_a_stale_account_page_after_the_approved_step_is_sent_not_verified(
    tmp_path: Path,
) -> None:
    """The approved Finish went out, the page fell back to the account: exit 4, the page to
    check named, never "not cancelled"."""
    pilot, browser = finish_then(page("account"))
    result = await approve(LoopRun(tmp_path, pilot, browser)).result()
    assert (result.reason, result.exit_code, result.success) == ("sent_not_verified", 4, False)
    assert result.message is not None and f"check {START}" in result.message
    assert result.to_dict()["sent"] and not result.verified


async def test_an_account_cancelled_before_the_run_is_already_cancelled(tmp_path: Path) -> None:
    """The first page already shows the end date: exit 7, nothing but the first page opened."""
    run = LoopRun(tmp_path, ScriptedPilot([CLAIM]), FakeBrowser(page("already_cancelled")))
    result = await run.result()
    assert (result.reason, result.exit_code, result.success) == ("already_cancelled", 7, False)
    assert run.browser.dispatched() == ["browser_navigate"]
    assert "already cancelled before this run" in (result.message or "")


async def test_text_nobody_sees_is_no_evidence(tmp_path: Path) -> None:
    """After the approved step the confirmation is only in the tree (off-screen, aria-hidden,
    the title): a person sees nothing of it, so the run is sent, not verified."""
    pilot, browser = finish_then(page("done"))
    browser.seen = lambda shown: "Account\nHelp" if shown.url.endswith("/cancel/done") else None
    result = await approve(LoopRun(tmp_path, pilot, browser)).result()
    assert (result.reason, result.exit_code) == ("sent_not_verified", 4)


async def test_a_confirmation_shown_before_the_step_is_no_evidence(tmp_path: Path) -> None:
    """The end date was already on the page the person approved on: it proves nothing."""
    pilot, browser = finish_then(page("done"))
    browser.seen = lambda _shown: "Your membership ends on December 22, 2026."
    result = await approve(LoopRun(tmp_path, pilot, browser)).result()
    assert (result.reason, result.exit_code) == ("sent_not_verified", 4)


async def test_approving_an_offer_is_no_evidence_for_a_cancellation(tmp_path: Path) -> None:
    """The person approved "Accept 50% off"; a confirmation after it verifies nothing."""
    accept = page("offer").ref_of("button", "Accept 50% off")
    pilot = ScriptedPilot([calls("browser_click", target=accept), CLAIM, CLAIM, CLAIM])
    browser = FakeBrowser(
        page("offer"),
        answer=pages_after(browser_navigate=page("offer"), browser_click=page("done")),
    )
    result = await approve(LoopRun(tmp_path, pilot, browser)).result()
    assert not result.success and not result.verified
    assert (result.reason, result.exit_code) == ("sent_not_verified", 4)


class AnsweredWith:
    """A request log whose every approved step's request was answered ``status``."""

    def __init__(self, status: int) -> None:
        self.status = status

    def answer_for(self, step_id: int | None) -> RequestAnswer | None:
        """The same answer for every step."""
        return RequestAnswer("POST", "/cancel/finish", self.status, "2026-11-22T10:00:00Z")

    def reached_service(self, step_id: int | None) -> bool | None:
        """Every step's request reached the service (it was answered)."""
        return True


async def test_an_error_answer_from_the_service_is_no_evidence(tmp_path: Path) -> None:
    """The page says cancelled, but the service answered the step's request 500."""
    pilot, browser = finish_then(page("done"))
    run = approve(LoopRun(tmp_path, pilot, browser))
    run.orchestrator.outcomes.requests = AnsweredWith(500)
    result = await run.result()
    assert (result.reason, result.exit_code) == ("sent_not_verified", 4)


async def test_a_success_answer_and_the_shown_confirmation_verify(tmp_path: Path) -> None:
    """The service answered 303 and the confirmation appeared after the step: verified."""
    pilot, browser = finish_then(page("done"))
    run = approve(LoopRun(tmp_path, pilot, browser))
    run.orchestrator.outcomes.requests = AnsweredWith(303)
    result = await run.result()
    assert (result.reason, result.success, result.verified, result.exit_code) == (
        "completed",
        True,
        True,
        0,
    )
    assert "service answered 303" in (result.message or "")


def _account(*buttons: str, text: str = "Premium plan") -> NormalizedSnapshot:
    from subterminator_tui.browser.snapshot import SnapshotElement

    elements = (
        SnapshotElement("heading", "Account", level=1),
        SnapshotElement("paragraph", text=text),
        *(SnapshotElement("button", name, ref=f"e{i}") for i, name in enumerate(buttons, 1)),
    )
    return NormalizedSnapshot("http://127.0.0.1:8000/account", "Account", "", elements=elements)


async def test_a_cancel_control_replaced_by_restart_is_structural_evidence(tmp_path: Path) -> None:
    """No sentence says so, but "Cancel membership" became "Restart membership" after the
    approved step: verified by structure."""
    before = _account("Cancel membership", "Finish cancellation")
    after = _account("Restart membership", text="Thanks for being with us")
    finish = before.ref_of("button", "Finish cancellation")
    pilot = ScriptedPilot([calls("browser_click", target=finish), CLAIM])
    browser = FakeBrowser(before, answer=pages_after(browser_navigate=before, browser_click=after))
    result = await approve(LoopRun(tmp_path, pilot, browser)).result()
    assert (result.reason, result.success, result.exit_code) == ("completed", True, 0)
    assert "replaced by 'Restart membership'" in (result.message or "")


async def test_a_restart_control_that_was_there_before_is_no_evidence(tmp_path: Path) -> None:
    """A page that always shows "Resume" beside "Cancel membership" proves nothing by it."""
    before = _account("Cancel membership", "Resume later", "Finish cancellation")
    after = _account("Resume later", text="Thanks")
    finish = before.ref_of("button", "Finish cancellation")
    pilot = ScriptedPilot([calls("browser_click", target=finish), CLAIM, CLAIM, CLAIM])
    browser = FakeBrowser(before, answer=pages_after(browser_navigate=before, browser_click=after))
    result = await approve(LoopRun(tmp_path, pilot, browser)).result()
    assert (result.reason, result.exit_code) == ("sent_not_verified", 4)
