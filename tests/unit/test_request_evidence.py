"""The request log as a step's evidence: the service's answer, and an error that vetoes."""

from __future__ import annotations

from pathlib import Path

from subterminator_tui.guarded.request_evidence import LoggedAnswers
from subterminator_tui.journal.request_log import RequestLog
from subterminator_tui.journal.store import Journal


def logged(tmp_path: Path, *rows: tuple[str, int | None, str]) -> tuple[LoggedAnswers, int]:
    """A run with one approved step and ``rows`` of (kind, status, verdict) linked to it."""
    journal = Journal(tmp_path / "journal.sqlite3")
    run = journal.start_run("demoflix", None, "playbook")
    step = journal.record_question(run, 3, "irreversible", "Click Finish", "http://x.test/")
    log = RequestLog(journal)
    for kind, status, verdict in rows:
        row = log.add(
            run, 3, kind=kind, method="POST", host="x.test", path="/cancel/finish",  # type: ignore[arg-type]
            resource_type="Document", fields=("confirm",), verdict=verdict, step_id=step,  # type: ignore[arg-type]
        )  # fmt: skip
        if status is not None:
            log.answered(row, status)
    return LoggedAnswers(log, lambda: run), step


def test_a_successful_answer_is_the_steps_evidence(tmp_path: Path) -> None:
    """A 303 after the approved POST: the step's answer, and a success."""
    answers, step = logged(tmp_path, ("gated", 303, "predicted"))
    answer = answers.answer_for(step)
    assert answer is not None and answer.status == 303 and answer.succeeded
    assert (answer.method, answer.path) == ("POST", "/cancel/finish")


def test_an_error_answer_wins_over_a_later_success(tmp_path: Path) -> None:
    """Any 4xx/5xx to the step's requests is what the verifier hears: no evidence."""
    answers, step = logged(tmp_path, ("gated", 500, "predicted"), ("gated", 200, "predicted"))
    answer = answers.answer_for(step)
    assert answer is not None and answer.status == 500 and not answer.succeeded


def test_unanswered_failed_or_unlinked_requests_are_unknown(tmp_path: Path) -> None:
    """No answer yet, a request never sent, or another step's: the answer is unknown."""
    answers, step = logged(tmp_path, ("gated", None, "predicted"), ("gated", 200, "failed"))
    assert answers.answer_for(step) is None
    assert answers.answer_for(step + 1) is None
    assert answers.answer_for(None) is None
