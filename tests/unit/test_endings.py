"""Every ending in words: what happened, then what next; codes stay in --json."""

from __future__ import annotations

from typing import get_args

import pytest

from subterminator_tui.orchestrator.endings import WORDINGS, describe_ending, ending_of
from subterminator_tui.results import TaskReason, TaskResult

REASONS = get_args(TaskReason)


@pytest.mark.parametrize("reason", REASONS)
def test_every_reason_has_its_own_words(reason: str) -> None:
    """Each reason a run can end with is worded here, not left to the fallback."""
    assert reason in WORDINGS


@pytest.mark.parametrize("reason", REASONS)
def test_no_ending_shows_its_code(reason: str) -> None:
    """The sentence never contains the reason code itself (codes are for --json)."""
    ending = describe_ending(reason, service="Demoflix", run_id=7, command="subterminator x")
    if "_" in reason:
        assert reason not in ending.sentence
    assert ending.happened.endswith(".") and ending.next_step


def test_a_failure_says_what_to_type_next() -> None:
    """A browser failure names the check to run and the command to try again."""
    ending = describe_ending(
        "mcp_error",
        service="Demoflix",
        detail="Node exited",
        command="subterminator cancel demoflix",
    )
    assert ending.happened == "The browser stopped working: Node exited."
    assert "subterminator doctor" in ending.next_step
    assert "subterminator cancel demoflix" in ending.next_step


def test_a_success_leads_with_what_happened_then_the_record() -> None:
    """Verified: the sentence says so, and the next step points at the run's record."""
    result = TaskResult(
        success=True,
        verified=True,
        reason="completed",
        turns=6,
        message="Verified: The cancellation confirmation page.",
        run_id=12,
        verified_by="service",
    )
    ending = ending_of(result, "Demoflix")
    assert ending.happened == (
        "Demoflix cancellation completed and verified: The cancellation confirmation page."
    )
    assert "subterminator show 12" in ending.next_step


def test_a_rejection_is_not_an_end_of_input() -> None:
    """ "You said no" only when the person answered; an ended input says so instead."""
    said_no = describe_ending("human_rejected", service="D", detail="You rejected: Click 'X'")
    ended = describe_ending("no_answer", service="D", detail="Click 'X' was not run")
    assert said_no.happened == "Nothing was cancelled: you said no to Click 'X'."
    assert "input ended" in ended.happened and "said no" not in ended.happened


def test_a_reason_added_elsewhere_still_reads_as_words() -> None:
    """An unknown reason falls back to words, never to the code."""
    ending = describe_ending("some_new_reason", service="D", run_id=3)
    assert "some_new_reason" not in ending.sentence
    assert "subterminator show 3" in ending.next_step
