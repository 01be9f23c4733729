"""The pieces of a turn and a run's end that the loop passes around."""

from __future__ import annotations

from dataclasses import dataclass

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.costs import ModelPrice
from subterminator_tui.errors import (
    ConfigurationError,
    JournalWriteError,
    LLMError,
    SubTerminatorError,
)
from subterminator_tui.orchestrator.events import Outcome
from subterminator_tui.results import Ending, TaskReason
from subterminator_tui.rules.matching import Verification, VerifiedBy

NO_ACTION_LIMIT = 3
UNVERIFIED_CLAIM_LIMIT = 3
NUDGE = "Call a tool or complete_task."


def unverified_message(url: str) -> str:
    """What the pilot hears when its success claim is not confirmed."""
    return (
        "Cannot verify success. Page does not show expected cancellation confirmation. "
        f"Current URL: {url}. Check page state and retry, or call "
        "complete_task(status='failed') if cancellation is not possible."
    )


class RunEnded(Exception):
    """The run is over for ``reason``; the loop turns this into its TaskResult."""

    def __init__(
        self,
        reason: TaskReason,
        message: str,
        *,
        success: bool = False,
        ending: Ending | None = None,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.success = success
        self.ending = ending


@dataclass(frozen=True)
class TurnOutcome:
    """How one turn went: for the event and the journal, and whether the run is over."""

    outcome: Outcome
    message: str = ""
    snapshot: NormalizedSnapshot | None = None
    #: complete_task ended the run: True when the rules confirmed success.
    verified: bool = False
    #: Whose rule confirmed it (reported honestly: "generic" is not a service's own rule).
    verified_by: VerifiedBy | None = None

    @classmethod
    def verified_on(cls, page: NormalizedSnapshot, verification: Verification) -> TurnOutcome:
        """The run is done: ``page`` passed ``verification`` (its message, its rule's owner)."""
        return cls(
            "done",
            verification.message,
            page,
            verified=True,
            verified_by=verification.verified_by,
        )


@dataclass
class RunOptions:
    """Knobs of one run."""

    start_url: str
    max_turns: int = 20
    headed: bool = False
    dry_run: bool = False
    handoff_hint: str = ""
    #: Verify the first page before any turn (after an interrupted run: it may be done).
    verify_first: bool = False
    #: The model's price from the settings, for the run's cost (None: unknown, no cost).
    price: ModelPrice | None = None


def reason_for(error: SubTerminatorError) -> TaskReason:
    """The TaskResult reason an error that ended a run maps to."""
    if isinstance(error, LLMError):
        return "llm_error"
    if isinstance(error, JournalWriteError):
        return "journal_error"
    if isinstance(error, ConfigurationError):
        return "configuration_error"
    # Connection losses, tool failures the loop could not absorb, unreadable snapshots.
    return "mcp_error"
