"""TaskResult: the exit code every way a run can end maps to (README, exit codes)."""

from __future__ import annotations

import json
from typing import get_args

import pytest

from subterminator_tui.results import TaskReason, TaskResult

ALL_REASONS: tuple[TaskReason, ...] = get_args(TaskReason)
CONNECTION_ERRORS = ("llm_error", "mcp_error", "outcome_unknown")
CONFIGURATION_ERRORS = ("configuration_error", "journal_error")
#: Endings with their own exit codes: sent but not verified (4), no click could end them
#: here (5, 6), nothing was left to do (7), or cancelled by a step nobody was asked about (8).
OWN_CODES = {
    "sent_not_verified": 4,
    "billed_elsewhere": 5,
    "offline_only": 6,
    "already_cancelled": 7,
    "cancelled_unasked": 8,
}
FAILURES = tuple(
    reason
    for reason in ALL_REASONS
    if reason not in ("completed", "dry_run", *CONNECTION_ERRORS, *CONFIGURATION_ERRORS, *OWN_CODES)
)


def result(reason: TaskReason, *, success: bool = False) -> TaskResult:
    """A result ending with ``reason``."""
    return TaskResult(success=success, verified=reason == "completed", reason=reason, turns=3)


def test_the_reasons_include_the_documented_outcomes() -> None:
    """Every reason these tests name exists, so the failure list below is not silently short."""
    documented = {"completed", "dry_run", *CONNECTION_ERRORS, "human_rejected", "task_failed"}
    assert documented <= set(ALL_REASONS)
    assert {"max_turns_exceeded", "llm_no_action", "verification_failed"} <= set(FAILURES)
    assert "playbook_diverged" in FAILURES


def test_verified_completion_exits_0() -> None:
    """A completed, successful run exits 0."""
    assert result("completed", success=True).exit_code == 0


def test_completed_without_success_exits_1() -> None:
    """A completed reason alone is not enough: without success the run failed."""
    assert result("completed", success=False).exit_code == 1


def test_dry_run_exits_0() -> None:
    """A dry run did what it said (proposed, ran nothing)."""
    assert result("dry_run").exit_code == 0


@pytest.mark.parametrize("reason", CONNECTION_ERRORS)
def test_connection_errors_exit_3(reason: TaskReason) -> None:
    """The model's API or Playwright MCP failing is a connection error."""
    assert result(reason).exit_code == 3


@pytest.mark.parametrize("reason", CONFIGURATION_ERRORS)
def test_configuration_errors_exit_2(reason: TaskReason) -> None:
    """Something to install, set or fix, found mid-run, exits as it would before the run."""
    assert result(reason).exit_code == 2


@pytest.mark.parametrize(("reason", "code"), sorted(OWN_CODES.items()))
def test_endings_without_a_click_have_their_own_exit_codes(reason: TaskReason, code: int) -> None:
    """Billed elsewhere 5, offline only 6, already cancelled 7, whatever the success flag."""
    assert result(reason).exit_code == code
    assert result(reason, success=True).exit_code == code


@pytest.mark.parametrize("reason", FAILURES)
def test_every_other_reason_exits_1(reason: TaskReason) -> None:
    """Rejected, failed, unverified, diverged, out of turns, no action: failure."""
    assert result(reason).exit_code == 1


@pytest.mark.parametrize("reason", FAILURES)
def test_success_flag_does_not_rescue_a_failure_reason(reason: TaskReason) -> None:
    """Only "completed" turns success into exit 0; a failure reason stays 1."""
    assert result(reason, success=True).exit_code == 1


@pytest.mark.parametrize(("reason", "code"), sorted(OWN_CODES.items()))
def test_sent_not_verified_and_already_cancelled_have_their_own_codes(
    reason: TaskReason, code: int
) -> None:
    """4: an approved step went out unverified; 7: cancelled before the run."""
    assert result(reason).exit_code == code
    assert result(reason, success=True).exit_code == code


@pytest.mark.parametrize("reason", ALL_REASONS)
def test_json_never_says_verified_without_success(reason: TaskReason) -> None:
    """``"verified": true`` only beside ``"success": true``; ``sent`` is true for a sent step."""
    from subterminator_tui.orchestrator.ledger import RunLedger
    from tests.fakes.pilot import ScriptedPilot

    ledger = RunLedger("demo", ScriptedPilot([]), None)
    for success in (False, True):
        data = ledger.result(reason, success=success).to_dict()
        assert not data["verified"] or data["success"], data
        if reason == "sent_not_verified":
            assert data["sent"] and not data["verified"]


def test_to_dict_carries_every_field_and_the_exit_code() -> None:
    """The --json form is JSON-ready and includes exit_code."""
    finished = TaskResult(
        success=True,
        verified=True,
        reason="completed",
        turns=6,
        final_url="http://127.0.0.1:8000/cancel/done",
        message="Verified.",
        model_calls=4,
        input_tokens=100,
        output_tokens=20,
        run_id=7,
        verified_by="service",
        cache_read_tokens=60,
        cache_write_tokens=10,
        cost=0.0012,
    )
    data = json.loads(json.dumps(finished.to_dict()))
    assert data == {
        "success": True,
        "verified": True,
        "reason": "completed",
        "turns": 6,
        "final_url": "http://127.0.0.1:8000/cancel/done",
        "error": None,
        "message": "Verified.",
        "model_calls": 4,
        "input_tokens": 100,
        "output_tokens": 20,
        "run_id": 7,
        "verified_by": "service",
        "ending": None,
        "cache_read_tokens": 60,
        "cache_write_tokens": 10,
        "cost": 0.0012,
        "guard_miss": None,
        "exit_code": 0,
        "sent": True,
    }


def test_to_dict_exit_code_follows_the_reason() -> None:
    """A failed run's dict says exit_code 1."""
    assert result("human_rejected").to_dict()["exit_code"] == 1
