"""The second proof: the account page where the run started, read again after a commit."""

from __future__ import annotations

from subterminator_tui.browser.snapshot import NormalizedSnapshot, parse_elements
from subterminator_tui.rules.evidence import ApprovedStep, RequestAnswer, verify_on_account_page
from subterminator_tui.rules.generic import generic_service

SITE = "http://127.0.0.1:8000"


def _page(tree: str) -> tuple[NormalizedSnapshot, str]:
    """An account page and what a person sees on it (every line of the tree here)."""
    content = tree.strip() + "\n"
    snapshot = NormalizedSnapshot(
        url=f"{SITE}/account",
        title="Account",
        content=content,
        elements=tuple(parse_elements(content)),
    )
    seen = "\n".join(line.split('"')[1] for line in content.splitlines() if '"' in line)
    return snapshot, seen


BEFORE = _page(
    '- heading "Premium" [level=1] [ref=e1]\n'
    '- paragraph "Renews on May 2" [ref=e2]\n'
    '- button "Cancel membership" [ref=e3]\n'
)
RESUMABLE = _page(
    '- heading "Premium" [level=1] [ref=e1]\n'
    '- paragraph "Ends on May 2" [ref=e2]\n'
    '- button "Restart membership" [ref=e3]\n'
)
PAUSED = _page(
    '- heading "Premium" [level=1] [ref=e1]\n'
    '- paragraph "Paused until May 2" [ref=e2]\n'
    '- button "Cancel membership" [ref=e3]\n'
)


class Answered:
    """A request log in which the commit reached the service and was answered ``status``."""

    def __init__(self, status: int | None) -> None:
        self.status = status

    def answer_for(self, step_id: int | None) -> RequestAnswer | None:
        """The commit's answer (None: not answered yet)."""
        if self.status is None:
            return None
        return RequestAnswer("POST", "/membership/end", self.status, "2026-11-27T10:00:00Z")

    def reached_service(self, step_id: int | None) -> bool | None:
        """Whether the step sent anything (a status means it did)."""
        return self.status is not None


def _commit(outcome: str = "done") -> ApprovedStep:
    snapshot, seen = BEFORE
    step = ApprovedStep(1, "Click button 'End it'", ("End it",), False, snapshot, seen)
    step.outcome = outcome  # type: ignore[assignment]
    return step


def test_the_cancel_control_replaced_by_a_restart_control_verifies() -> None:
    """The page compared with itself: "Cancel membership" gone, "Restart membership" there."""
    service = generic_service(f"{SITE}/account")
    verdict = verify_on_account_page(service, BEFORE, RESUMABLE, [_commit()], Answered(200))
    assert verdict.verified, verdict.message


def test_a_page_that_still_offers_to_cancel_does_not() -> None:
    """A pause (or a snooze, or an offer) leaves the account page offering to cancel."""
    service = generic_service(f"{SITE}/account")
    verdict = verify_on_account_page(service, BEFORE, PAUSED, [_commit()], Answered(200))
    assert not verdict.verified, verdict.message


def test_no_commit_that_reached_the_service_means_no_proof() -> None:
    """An approved step that sent nothing (a navigation), or one refused with an error."""
    service = generic_service(f"{SITE}/account")
    assert not verify_on_account_page(
        service, BEFORE, RESUMABLE, [_commit()], Answered(None)
    ).verified
    assert not verify_on_account_page(
        service, BEFORE, RESUMABLE, [_commit()], Answered(500)
    ).verified
    assert not verify_on_account_page(
        service, BEFORE, RESUMABLE, [_commit("pending")], Answered(200)
    ).verified
