"""The loop's policies, with a browser that answers from captured pages (no Node, no Chromium).

Whatever ends a run, it ends in a TaskResult, a finished journal row and one RunFinished.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.errors import (
    CallNotSentError,
    JournalWriteError,
    MCPConnectionError,
    MCPToolError,
    OutcomeUnknownError,
    SnapshotValidationError,
)
from subterminator_tui.guarded.gates import Decision
from subterminator_tui.journal.store import Journal
from subterminator_tui.orchestrator.turns import NO_ACTION_LIMIT, UNVERIFIED_CLAIM_LIMIT
from tests.fakes.browser import FakeBrowser
from tests.fakes.pilot import ScriptedPilot, calls, silence
from tests.fixtures.pages import page
from tests.support.loop_runs import LoopRun, finishing


def on_every_call(snapshot: NormalizedSnapshot) -> Any:
    """An answer that always shows ``snapshot``."""
    return lambda _name, _args: snapshot


async def test_three_replies_without_a_call_end_the_run(tmp_path: Path) -> None:
    """The model answers three times with no tool call: llm_no_action, after two nudges."""
    run = LoopRun(tmp_path, ScriptedPilot([silence()]), FakeBrowser(page("account")))
    result = await run.result()
    assert result.reason == "llm_no_action"
    assert run.pilot.nudges == NO_ACTION_LIMIT - 1
    assert run.browser.dispatched() == ["browser_navigate"]


async def test_three_unverified_claims_end_the_run(tmp_path: Path) -> None:
    """Success claimed on a page no success rule accepts, three times: verification_failed."""
    claim = calls("complete_task", status="success", reason="Done, trust me.")
    run = LoopRun(tmp_path, ScriptedPilot([claim]), FakeBrowser(page("offer")))
    result = await run.result()
    assert result.reason == "verification_failed" and not result.success
    assert result.turns == UNVERIFIED_CLAIM_LIMIT
    assert sum(1 for status in run.pilot.heard if status.get("error")) == UNVERIFIED_CLAIM_LIMIT - 1


async def test_a_verified_claim_completes(tmp_path: Path) -> None:
    """The claim after the approved last step, on the confirmation page, is verified."""
    pilot, browser = finishing()
    run = LoopRun(tmp_path, pilot, browser)
    run.human.decisions.append(Decision("approve"))
    result = await run.result()
    assert (result.reason, result.success, result.exit_code) == ("completed", True, 0)


async def test_a_plan_cancelled_before_the_run_says_so_at_once(tmp_path: Path) -> None:
    """The first page already verifies: already_cancelled, exit 7, no turn, no call."""
    run = LoopRun(tmp_path, ScriptedPilot([silence()]), FakeBrowser(page("done")))
    result = await run.result()
    assert (result.reason, result.exit_code, result.turns) == ("already_cancelled", 7, 0)
    assert run.browser.dispatched() == ["browser_navigate"]


async def test_the_turn_limit_ends_the_run(tmp_path: Path) -> None:
    """A pilot that never finishes runs out of turns: max_turns_exceeded after exactly 5."""
    wait = calls("browser_wait_for", time=1)
    run = LoopRun(tmp_path, ScriptedPilot([wait]), FakeBrowser(page("account")))
    result = await run.result()
    assert (result.reason, result.turns) == ("max_turns_exceeded", 5)
    assert run.browser.dispatched().count("browser_wait_for") == 5


async def test_a_lost_connection_ends_the_run_with_a_connection_error(tmp_path: Path) -> None:
    """The browser cannot be kept alive mid-run: mcp_error, exit 3, journal finished."""

    def die(name: str, _args: dict[str, Any]) -> NormalizedSnapshot:
        if name == "browser_navigate":
            return page("account")
        raise MCPConnectionError("Playwright MCP stopped again after a restart; giving up.")

    wait = calls("browser_wait_for", time=1)
    run = LoopRun(tmp_path, ScriptedPilot([wait]), FakeBrowser(page("account"), answer=die))
    result = await run.result()
    assert (result.reason, result.exit_code) == ("mcp_error", 3)
    assert result.error is not None and "giving up" in result.error


async def test_a_tool_error_at_the_first_navigation_is_a_result(tmp_path: Path) -> None:
    """An MCPToolError before the first turn no longer escapes the loop."""

    def refuse(_name: str, _args: dict[str, Any]) -> NormalizedSnapshot:
        raise MCPToolError("net::ERR_CONNECTION_REFUSED at http://127.0.0.1:8000/account")

    run = LoopRun(tmp_path, ScriptedPilot([silence()]), FakeBrowser(page("account"), answer=refuse))
    result = await run.result()
    assert (result.reason, result.exit_code, result.turns) == ("mcp_error", 3, 0)


@pytest.mark.parametrize(
    "failure",
    [
        SnapshotValidationError(["title"], "### Page\n- Page URL: about:blank"),
        MCPToolError("browser_snapshot did not finish within 30 s"),
    ],
)
async def test_a_failed_verification_snapshot_is_a_result(
    tmp_path: Path, failure: Exception
) -> None:
    """The snapshot that would verify a claim fails: a connection error, not a traceback."""
    claim = calls("complete_task", status="success", reason="Cancelled.")
    browser = FakeBrowser(page("account"), snapshot_error=failure)
    result = await LoopRun(tmp_path, ScriptedPilot([claim]), browser).result()
    assert (result.reason, result.exit_code) == ("mcp_error", 3)


async def test_a_refused_call_is_not_dispatched(tmp_path: Path) -> None:
    """A stale ref is refused by the guard: the pilot hears why, the browser sees nothing."""
    stale = calls("browser_click", target="e9999")
    run = LoopRun(tmp_path, ScriptedPilot([stale, silence()]), FakeBrowser(page("account")))
    await run.result()
    assert run.browser.dispatched() == ["browser_navigate"]
    assert "not on the current page" in run.pilot.heard[0]["message"]


async def test_the_loop_runs_on_any_browser(tmp_path: Path) -> None:
    """The fake browser is not a gateway: the loop depends only on the Browser protocol."""
    from subterminator_tui.browser.gateway import BrowserGateway

    browser = FakeBrowser(page("account"), answer=on_every_call(page("account")))
    assert not isinstance(browser, BrowserGateway)
    run = LoopRun(tmp_path, ScriptedPilot([silence()]), browser)
    assert (await run.result()).reason == "llm_no_action"


class LosesTheAnswer:
    """A browser whose click is sent but never answered; afterwards it shows ``after``."""

    def __init__(self, after: NormalizedSnapshot, error: Exception) -> None:
        self.after, self.error = after, error
        self.browser = FakeBrowser(page("confirm"), answer=self.answer)

    def answer(self, name: str, _args: dict[str, Any]) -> NormalizedSnapshot:
        if name == "browser_click":
            self.browser.page = self.after
            raise self.error
        return self.browser.page


def finish_click() -> Any:
    """The pilot clicks the real "Finish cancellation" ref of the captured confirm page."""
    return calls("browser_click", target=page("confirm").ref_of("button", "Finish cancellation"))


@pytest.mark.parametrize(
    "error",
    [
        OutcomeUnknownError("browser_click did not finish within 30 s"),
        MCPConnectionError("Playwright MCP stopped again after a restart; giving up."),
    ],
)
async def test_a_lost_answer_on_an_approved_step_that_went_through_is_verified(
    tmp_path: Path, error: Exception
) -> None:
    """The approved final click hangs, the page then shows the confirmation: completed."""
    lost = LosesTheAnswer(page("done"), error)
    run = LoopRun(tmp_path, ScriptedPilot([finish_click()]), lost.browser)
    run.human.decisions = [Decision("approve")]
    result = await run.result()
    assert (result.reason, result.success, result.exit_code) == ("completed", True, 0)
    assert lost.browser.dispatched().count("browser_click") == 1


async def test_a_lost_answer_that_the_page_cannot_settle_is_outcome_unknown(
    tmp_path: Path,
) -> None:
    """No rule tells what happened: outcome_unknown, exit 3, and the click is never repeated."""
    lost = LosesTheAnswer(page("confirm"), OutcomeUnknownError("no answer within 30 s"))
    run = LoopRun(tmp_path, ScriptedPilot([finish_click()]), lost.browser)
    run.human.decisions = [Decision("approve"), Decision("approve")]
    result = await run.result()
    assert (result.reason, result.exit_code) == ("outcome_unknown", 3)
    assert result.message is not None and "may have gone through" in result.message
    assert lost.browser.dispatched().count("browser_click") == 1
    assert len(run.human.approvals) == 1


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        # Found stopped and restarted before the click went out: nothing was sent.
        (CallNotSentError("The browser stopped and was restarted"), "llm_no_action"),
        # Refused by the browser: it may have acted first, so the words say "sent".
        (MCPToolError("Element is not attached to the DOM"), "sent_not_verified"),
    ],
)
async def test_an_approved_step_that_never_went_out_is_not_reported_as_sent(
    tmp_path: Path, error: Exception, reason: str
) -> None:
    """Only a call that may have reached the page makes the ending "sent, not verified"."""

    def refuse(name: str, _args: dict[str, Any]) -> NormalizedSnapshot:
        if name == "browser_click":
            raise error
        return page("confirm")

    pilot = ScriptedPilot([finish_click(), silence(), silence(), silence()])
    run = LoopRun(tmp_path, pilot, FakeBrowser(page("confirm"), answer=refuse))
    run.human.decisions = [Decision("approve")]
    result = await run.result()
    assert result.reason == reason
    assert (result.exit_code == 4) is (reason == "sent_not_verified")


async def test_a_lost_answer_on_an_ordinary_step_goes_back_to_the_pilot(tmp_path: Path) -> None:
    """An unanswered click nobody had to approve is an error the pilot hears, not the end."""

    def hang(name: str, _args: dict[str, Any]) -> NormalizedSnapshot:
        if name == "browser_click":
            raise OutcomeUnknownError("browser_click did not finish within 30 s")
        return page("account")

    target = page("account").ref_of("button", "Cancel membership")
    pilot = ScriptedPilot([calls("browser_click", target=target), silence()])
    run = LoopRun(tmp_path, pilot, FakeBrowser(page("account"), answer=hang))
    result = await run.result()
    assert result.reason == "llm_no_action"
    assert "did not finish" in pilot.heard[0]["message"]


async def test_a_rejected_turn_gets_its_outcome_and_its_step_the_decision(tmp_path: Path) -> None:
    """Rejecting the final click: the turn row says rejected, the step says rejected."""
    run = LoopRun(tmp_path, ScriptedPilot([finish_click()]), FakeBrowser(page("confirm")))
    run.human.decisions = [Decision("reject")]
    result = await run.result()
    assert result.reason == "human_rejected" and result.run_id is not None
    (turn,) = run.journal.turns(result.run_id)
    assert turn.outcome == "rejected"
    (step,) = run.journal.steps(result.run_id)
    assert step.state == "rejected"


async def test_an_approved_step_is_journaled_before_and_after_dispatch(tmp_path: Path) -> None:
    """Approve the final click: question, decision, dispatch and outcome are all on record."""
    claim = calls("complete_task", status="success", reason="Done.")
    browser = FakeBrowser(page("confirm"))
    browser.answer = lambda name, _args: page("done") if name == "browser_click" else browser.page
    run = LoopRun(tmp_path, ScriptedPilot([finish_click(), claim]), browser)
    run.human.decisions = [Decision("approve")]
    result = await run.result()
    assert result.reason == "completed" and result.run_id is not None
    (step,) = run.journal.steps(result.run_id)
    assert step.state == "done"


class FullDiskJournal(Journal):
    """A journal whose disk fills up the moment a dispatch is to be recorded."""

    def record_dispatch(self, step_id: int) -> None:
        raise JournalWriteError("The journal could not record the dispatch (disk full).")


async def test_no_irreversible_step_goes_out_without_its_dispatch_record(tmp_path: Path) -> None:
    """The disk fills before the dispatch fact: the click is not sent, the result still comes."""
    run = LoopRun(tmp_path, ScriptedPilot([finish_click()]), FakeBrowser(page("confirm")))
    run.orchestrator.ledger.journal = FullDiskJournal(tmp_path / "full.sqlite3")
    run.journal = run.orchestrator.ledger.journal
    run.human.decisions = [Decision("approve")]
    result = await run.result()
    assert (result.reason, result.exit_code) == ("journal_error", 2)
    assert "disk full" in (result.error or "")
    assert "browser_click" not in run.browser.dispatched()
