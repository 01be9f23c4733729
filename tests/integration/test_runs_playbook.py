"""Whole runs with the playbook pilot: real Playwright MCP, Chromium and practice site, no model."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_asyncio

from subterminator_tui.guarded.gates import Decision
from subterminator_tui.journal.store import Journal
from subterminator_tui.orchestrator.events import Notice, RunStarted, TurnStarted
from subterminator_tui.session import RunRequest
from tests.conftest import in_worker_loop, isolate
from tests.fakes.human import ScriptedHuman
from tests.integration.runs import FinishedRun, run_service
from tests.support.shared_browser import SharedBrowser

pytestmark = pytest.mark.browser

SIGN_IN = {"Username": "demo", "Password": "demo-pass"}


def is_png(path: Path) -> bool:
    """Whether ``path`` is a PNG file."""
    return path.read_bytes().startswith(b"\x89PNG")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def approved_demo(tmp_path_factory: pytest.TempPathFactory) -> FinishedRun:
    """The demo approved at its checkpoint, run once for the module: the tests below each
    check a different part of the same run (its result, its question, its journal)."""
    root = tmp_path_factory.mktemp("approved-demo")
    with pytest.MonkeyPatch.context() as patch:
        isolate(root / "home", patch)
        human = ScriptedHuman([Decision("approve")])
        return await run_service(RunRequest("demoflix"), human, root)


def test_demo_cancels_exactly_once_after_approval(approved_demo: FinishedRun) -> None:
    """The demo: the playbook stops at the final checkpoint, `y` finishes, the rules verify it."""
    run = approved_demo
    assert run.result.reason == "completed"
    assert run.result.success and run.result.verified
    assert run.result.exit_code == 0
    assert run.state.cancel_requests == 1
    assert run.state.membership == "cancelled"
    assert not run.state.offer_accepted
    assert run.result.model_calls == 0


def test_checkpoint_is_asked_before_the_action_runs(approved_demo: FinishedRun) -> None:
    """The server had no cancel request yet, and the screenshot shown exists."""
    run = approved_demo
    (request,) = run.human.approvals
    assert run.human.seen_at_approval == [0]
    assert request.action == "Click button 'Finish cancellation'"
    assert request.why == "Finishing the cancellation is irreversible"
    assert request.screenshot_path is not None
    assert is_png(Path(request.screenshot_path))


# The runs below share one browser, reset between them (tests/support/shared_browser.py):
# each needs a clean page and policy, not a new Chromium. The demo above has its own.
@in_worker_loop
async def test_rejecting_the_checkpoint_dispatches_nothing(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """Answering `n` ends the run as human_rejected (exit 1) and nothing is cancelled."""
    run = await run_service(
        RunRequest("demoflix"),
        ScriptedHuman([Decision("reject")]),
        tmp_path,
        start_browser=shared_runs,
    )
    assert run.result.reason == "human_rejected"
    assert run.result.exit_code == 1
    assert run.state.cancel_requests == 0
    assert run.state.membership == "active"


@in_worker_loop
async def test_already_cancelled_account_is_recognised_without_any_action(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """A membership cancelled before the run: already_cancelled (exit 7), no turn, no request."""
    run = await run_service(
        RunRequest("demoflix-cancelled"), ScriptedHuman(), tmp_path, start_browser=shared_runs
    )
    assert (run.result.reason, run.result.exit_code) == ("already_cancelled", 7)
    assert run.result.turns == 0
    assert run.human.approvals == []
    assert run.state.cancel_requests == 0


@in_worker_loop
async def test_two_factor_hand_off_types_for_the_person_and_keeps_it_secret(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """Sign-in and code typed by the program; the values reach no journal or event."""
    human = ScriptedHuman(
        [Decision("approve")], handoffs=[dict(SIGN_IN), {"Verification code": "246810"}]
    )
    run = await run_service(RunRequest("demoflix-2fa"), human, tmp_path, start_browser=shared_runs)
    assert run.result.reason == "completed"
    assert run.state.cancel_requests == 1
    assert [request.kind for request in human.handoff_requests] == ["login", "two_factor"]
    password = next(f for f in human.handoff_requests[0].fields if f.label == "Password")
    assert password.secret
    journal_bytes = b"".join(p.read_bytes() for p in run.journal_path.parent.glob("journal*"))
    for secret in (b"demo-pass", b"246810"):
        assert secret not in journal_bytes
    events = repr(run.reporter.events)
    assert "demo-pass" not in events and "246810" not in events


@in_worker_loop
async def test_session_expiry_mid_flow_hands_off_and_resumes(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """The session ends on the way to the offer; after the person signs in the flow resumes."""
    human = ScriptedHuman([Decision("approve")], handoffs=[dict(SIGN_IN), dict(SIGN_IN)])
    run = await run_service(
        RunRequest("demoflix-expiry"), human, tmp_path, start_browser=shared_runs
    )
    assert run.result.reason == "completed"
    assert run.state.session_expired
    assert run.state.cancel_requests == 1
    notices = [event.text for event in run.reporter.of(Notice)]
    assert any("completed the login step" in text for text in notices)


@in_worker_loop
async def test_cancelled_hand_off_ends_the_run(tmp_path: Path, shared_runs: SharedBrowser) -> None:
    """A person who cancels the sign-in ends the run; nothing is cancelled."""
    run = await run_service(
        RunRequest("demoflix-2fa"),
        ScriptedHuman(handoffs=["cancel"]),
        tmp_path,
        start_browser=shared_runs,
    )
    assert run.result.reason == "human_rejected"
    assert run.state.cancel_requests == 0


@in_worker_loop
async def test_divergence_without_a_model_names_the_step_and_the_fix(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """A missing playbook step stops the run (exit 1) and says how to enable the AI."""
    services = tmp_path / "services.toml"
    services.write_text(
        '[services.renamed]\nextends = "demoflix"\nname = "Renamed flow"\n\n'
        '[[services.renamed.playbook]]\naction = "click"\nname = "Cancel subscription"\n',
        encoding="utf-8",
    )
    request = RunRequest("renamed", services=(str(services),))
    run = await run_service(request, ScriptedHuman(), tmp_path, start_browser=shared_runs)
    assert run.result.reason == "playbook_diverged"
    assert run.result.exit_code == 1
    assert run.result.message is not None
    assert "Cancel subscription" in run.result.message
    assert "ANTHROPIC_API_KEY" in run.result.message
    assert run.state.cancel_requests == 0


@in_worker_loop
async def test_no_checkpoint_runs_without_asking_and_says_so(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """--no-checkpoint: nobody is asked, and the run start says checkpoints are off."""
    run = await run_service(
        RunRequest("demoflix", checkpoints=False),
        ScriptedHuman(),
        tmp_path,
        start_browser=shared_runs,
    )
    assert run.result.reason == "completed"
    assert run.human.approvals == []
    (started,) = run.reporter.of(RunStarted)
    assert started.checkpoints is False


@in_worker_loop
async def test_dry_run_proposes_and_does_nothing(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """--dry-run shows the first proposed action and dispatches none."""
    run = await run_service(
        RunRequest("demoflix", dry_run=True), ScriptedHuman(), tmp_path, start_browser=shared_runs
    )
    assert run.result.reason == "dry_run"
    assert run.result.exit_code == 0
    assert run.result.message == "Click button 'Cancel membership'"
    assert run.state.step == "none"
    assert "cancel_start" not in " ".join(run.state.events)


@in_worker_loop
async def test_max_turns_ends_the_run(tmp_path: Path, shared_runs: SharedBrowser) -> None:
    """The turn budget ends the run with max_turns_exceeded."""
    run = await run_service(
        RunRequest("demoflix", max_turns=2), ScriptedHuman(), tmp_path, start_browser=shared_runs
    )
    assert run.result.reason == "max_turns_exceeded"
    assert run.result.turns == 2
    assert len(run.reporter.of(TurnStarted)) == 2


def test_journal_records_every_turn(approved_demo: FinishedRun) -> None:
    """Each turn's intent and outcome, and the run's result, are in the journal."""
    run = approved_demo
    assert run.result.run_id is not None
    with Journal(run.journal_path) as journal:
        recorded = journal.run(run.result.run_id)
        turns = journal.turns(run.result.run_id)
    assert recorded is not None and recorded.reason == "completed" and recorded.verified
    assert turns[0].tool == "browser_click"
    assert all(turn.outcome for turn in turns)
    # The approved last step's page proves the cancellation: it is the run's last turn.
    finish = turns[-1]
    assert finish.arguments.get("element") == "button 'Finish cancellation'"
    assert finish.outcome == "ok"
    assert finish.url is not None and finish.url.endswith("/cancel/done")
    assert finish.snapshot and "Cancellation confirmed" in finish.snapshot


@in_worker_loop
async def test_error_page_is_not_taken_for_success(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """The failing first finish shows an error page: the claim is not verified, nothing is faked;
    the approved step did go out, so the run says "sent, not verified", never "not cancelled"."""
    run = await run_service(
        RunRequest("demoflix-error"),
        ScriptedHuman([Decision("approve")]),
        tmp_path,
        start_browser=shared_runs,
    )
    assert (run.result.reason, run.result.exit_code) == ("sent_not_verified", 4)
    assert "playbook_diverged" in (run.result.message or "")
    assert not run.result.success
    assert run.state.failed_cancel_requests == 1
    assert run.state.cancel_requests == 0


@in_worker_loop
async def test_page_outside_the_allowed_domains_raises_a_checkpoint(
    tmp_path: Path, shared_runs: SharedBrowser
) -> None:
    """A page that ends up outside allowed_domains stops the run until the person decides."""
    services = tmp_path / "services.toml"
    services.write_text(
        '[services.elsewhere]\nextends = "demoflix"\nname = "Elsewhere"\n'
        'allowed_domains = ["localhost"]\n',
        encoding="utf-8",
    )
    request = RunRequest("elsewhere", services=(str(services),))
    run = await run_service(
        request, ScriptedHuman([Decision("reject")]), tmp_path, start_browser=shared_runs
    )
    assert [approval.kind for approval in run.human.approvals] == ["left_domains"], run.result
    assert run.result.reason == "human_rejected"
    assert run.state.cancel_requests == 0
