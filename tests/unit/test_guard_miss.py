"""A guard miss is said as one: a commit that went out with nobody asked and that the
service confirmed is "cancelled without a question" (exit 8), kept in the journal, and
never "not cancelled"; a request that paused, or a confirmation already shown, is no miss."""

from __future__ import annotations

from pathlib import Path

from subterminator_tui import exit_codes
from subterminator_tui.browser.snapshot import NormalizedSnapshot, parse_elements
from subterminator_tui.guarded.request_evidence import LoggedAnswers
from subterminator_tui.journal.request_log import RequestLog
from subterminator_tui.journal.store import Journal
from subterminator_tui.orchestrator.endings import describe_ending
from subterminator_tui.results import TaskResult
from subterminator_tui.rules.evidence import RequestAnswer, verify_unasked
from subterminator_tui.rules.generic import generic_service

SITE = "http://127.0.0.1:8000"


def _page(path: str, *lines: str) -> tuple[NormalizedSnapshot, str]:
    """A page at ``path`` of paragraphs, and what a person sees on it."""
    content = "".join(f'- paragraph "{line}" [ref=e{i}]\n' for i, line in enumerate(lines))
    snapshot = NormalizedSnapshot(
        url=SITE + path, title="", content=content, elements=tuple(parse_elements(content))
    )
    return snapshot, "\n".join(lines)


ACCOUNT = _page("/account", "Premium membership, $12.99/month.", "Review your membership details.")
CANCELLED = _page("/membership/cancelled", "Your membership has been cancelled.")


def _went(path: str, status: int = 303) -> RequestAnswer:
    return RequestAnswer("POST", f"127.0.0.1:8000{path}", status, "2026-11-27T10:00:00Z")


def test_a_confirmation_after_an_unasked_request_proves_a_guard_miss() -> None:
    """`POST /membership/step`, accepted, then "has been cancelled": cancelled, unasked."""
    service = generic_service(SITE + "/account")
    verification = verify_unasked(service, *CANCELLED, [_went("/membership/step")], ACCOUNT)
    assert verification.verified, verification.message
    assert "without a question" in verification.message
    assert "/membership/step" in verification.message


def test_a_pause_sent_unasked_or_a_refused_request_is_no_guard_miss() -> None:
    """A request to `/pause` is no cancellation; one the service refused changed nothing."""
    service = generic_service(SITE + "/account")
    for went in (_went("/membership/pause"), _went("/membership/step", status=500)):
        verification = verify_unasked(service, *CANCELLED, [went], ACCOUNT)
        assert not verification.verified, went


def test_a_confirmation_shown_from_the_start_is_no_guard_miss() -> None:
    """The first page already said it: the unasked request proves nothing."""
    service = generic_service(SITE + "/account")
    verification = verify_unasked(service, *CANCELLED, [_went("/membership/step")], CANCELLED)
    assert not verification.verified


def test_only_requests_nobody_asked_about_are_read_as_unasked(tmp_path: Path) -> None:
    """The log's unasked requests: sent with no step, answered; not a released one's."""
    with Journal(tmp_path / "journal.sqlite3") as journal:
        run = journal.start_run("x", None, "ai")
        step = journal.record_question(run, 1, "why", "Click Finish", SITE)
        log = RequestLog(journal)
        rows = [
            ("state_changing", "sent", None, "/membership/step"),
            ("gated", "approved", step, "/cancel/finish"),
            ("state_changing", "sent", step, "/survey"),
            ("state_changing", "sent", None, "/never-answered"),
        ]
        for kind, verdict, linked, path in rows:
            row = log.add(
                run, 1, kind=kind, method="POST", host="127.0.0.1:8000", path=path,  # type: ignore[arg-type]
                resource_type="Document", fields=(), verdict=verdict, step_id=linked,  # type: ignore[arg-type]
            )  # fmt: skip
            if path != "/never-answered":
                log.answered(row, 303)
        unasked = LoggedAnswers(log, lambda: run).unasked()
    assert [answer.path for answer in unasked] == ["127.0.0.1:8000/membership/step"]


def test_a_guard_miss_is_kept_as_a_journal_event(tmp_path: Path) -> None:
    """The event is written beside the run and read back in order, with its words."""
    with Journal(tmp_path / "journal.sqlite3") as journal:
        run = journal.start_run("x", None, "ai")
        journal.record_event(run, "guard_miss", "POST 127.0.0.1:8000/membership/step: proof")
        events = journal.events(run)
    assert [(event.kind, event.words) for event in events] == [("guard_miss", "guard miss")]
    assert events[0].detail.startswith("POST 127.0.0.1:8000/membership/step")


def test_cancelled_unasked_has_its_own_exit_code_and_never_says_not_cancelled() -> None:
    """Exit 8, success and sent in --json with the request, and words that say cancelled."""
    result = TaskResult(
        success=True,
        verified=True,
        reason="cancelled_unasked",
        turns=2,
        guard_miss="POST 127.0.0.1:8000/membership/step",
    )
    data = result.to_dict()
    assert (result.exit_code, data["sent"], data["guard_miss"]) == (
        exit_codes.CANCELLED_UNASKED,
        True,
        "POST 127.0.0.1:8000/membership/step",
    )
    words = describe_ending("cancelled_unasked", service="Premium", success=True, run_id=4)
    assert "not cancelled" not in words.sentence and "without a question" in words.happened
    assert words.status.startswith("cancelled") and "subterminator show 4" in words.next_step
