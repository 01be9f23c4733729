"""Endings no click can reach, and a plan already cancelled: each says so at once.

The practice portal's account page in its variants: billed by Apple, cancelled only by
phone or letter, already cancelled. Real Playwright MCP, Chromium and practice site;
the playbook pilot, which would click "Cancel membership" if the run went on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from subterminator_tui import exit_codes
from subterminator_tui.cli.receipt import receipt_html
from subterminator_tui.guarded.gates import Decision
from subterminator_tui.headless.reporter import TerminalReporter
from subterminator_tui.journal.store import Journal
from subterminator_tui.orchestrator.events import RunFinished
from subterminator_tui.session import RunRequest
from tests.conftest import in_worker_loop
from tests.fakes.human import ScriptedHuman
from tests.integration.runs import run_service
from tests.support.shared_browser import SharedBrowser

# One browser for the module's runs, reset between them (tests/support/shared_browser.py):
# each run needs a clean page and policy, not a new Chromium.
pytestmark = [pytest.mark.browser, in_worker_loop]


async def test_a_plan_billed_by_apple_ends_billed_elsewhere_naming_apple(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """Exit 5, Apple's own page to cancel, nothing clicked, the journal keeps the biller."""
    run = await run_service(
        RunRequest("portal-billed-apple", pilot="playbook"),
        ScriptedHuman(),
        tmp_path,
        start_browser=shared_runs,
    )
    result = run.result
    assert result.reason == "billed_elsewhere" and result.exit_code == exit_codes.BILLED_ELSEWHERE
    assert result.ending is not None and result.ending.biller == "Apple"
    assert result.ending.cancel_at == "https://support.apple.com/en-us/118428"
    assert "Apple" in (result.message or "")
    assert result.turns == 0 and run.human.approvals == []
    assert json.loads(json.dumps(result.to_dict()))["ending"]["biller"] == "Apple"
    with Journal(run.journal_path) as journal:
        row = journal.run(result.run_id or 0)
    assert row is not None and row.ending is not None and row.ending["biller"] == "Apple"
    with Journal(run.journal_path) as journal:
        receipt = receipt_html(journal, row)
    assert "Billed by</th><td>Apple" in receipt
    assert "https://support.apple.com/en-us/118428" in receipt


async def test_a_phone_only_plan_ends_offline_only_with_contacts_and_a_letter(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """Exit 6: the page's phone number and address, and a letter naming the membership."""
    run = await run_service(
        RunRequest("portal-phone-only", pilot="playbook"),
        ScriptedHuman(),
        tmp_path,
        start_browser=shared_runs,
    )
    result = run.result
    assert result.reason == "offline_only" and result.exit_code == exit_codes.OFFLINE_ONLY
    assert result.ending is not None
    assert "+1 800 555 0199" in result.ending.contacts
    assert any("100 Example Street" in contact for contact in result.ending.contacts)
    assert result.ending.letter is not None and "PP-2026-0042" in result.ending.letter
    assert "Practice Portal" in result.ending.letter
    with Journal(run.journal_path) as journal:
        row = journal.run(result.run_id or 0)
        assert row is not None
        receipt = receipt_html(journal, row)
    assert "+1 800 555 0199" in receipt and "PP-2026-0042" in receipt, "contacts and the letter"


async def test_a_plan_already_cancelled_says_so_at_once(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """Exit 7 before any turn: the rules read the cancellation on the first page."""
    run = await run_service(
        RunRequest("portal-already-cancelled", pilot="playbook"),
        ScriptedHuman(),
        tmp_path,
        start_browser=shared_runs,
    )
    result = run.result
    assert result.reason == "already_cancelled"
    assert result.exit_code == exit_codes.ALREADY_CANCELLED
    assert result.turns == 0 and run.state.cancel_requests == 0


async def test_the_ending_is_printed_with_its_letter(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """The headless summary shows where to cancel, the contacts and the letter."""
    run = await run_service(
        RunRequest("portal-phone-only", pilot="playbook"),
        ScriptedHuman(),
        tmp_path,
        start_browser=shared_runs,
    )
    out = tmp_path / "out.txt"
    with out.open("w", encoding="utf-8") as handle:
        reporter = TerminalReporter(handle, handle)
        reporter.service_name = "Practice Portal"
        reporter.emit(RunFinished(run.result))
    printed = out.read_text(encoding="utf-8")
    assert "Contact: +1 800 555 0199" in printed
    assert "A letter you can send" in printed and "I hereby cancel" in printed


async def test_the_normal_flow_is_not_mistaken_for_an_ending(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """The cancellable account still cancels (its renewal sentence is no ending)."""
    run = await run_service(
        RunRequest("portal-remembered", pilot="playbook"),
        ScriptedHuman([Decision("approve")]),
        tmp_path,
        start_browser=shared_runs,
    )
    assert run.result.reason == "completed", run.result
    assert run.state.cancel_requests == 1
