"""The journal's rows as the views and the loop read them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

#: How an irreversible step stands, from its durable facts.
StepState = Literal[
    "asked", "rejected", "guided", "approved_not_dispatched", "dispatched_outcome_unknown", "done"
]


@dataclass(frozen=True)
class RunRow:
    """One run as the journal recorded it."""

    id: int
    service: str
    model: str | None
    pilot: str
    started_at: float
    ended_at: float | None
    success: bool | None
    verified: bool | None
    reason: str | None
    turns: int | None
    final_url: str | None
    error: str | None
    message: str | None
    input_tokens: int | None
    output_tokens: int | None
    #: Where the run started (journals before version 3 did not record it).
    start_url: str | None = None
    #: ``service`` or ``generic``: whose rule verified the cancellation.
    verified_by: str | None = None
    #: How a run ended when no click could end it (the biller, or contacts and a
    #: letter), as ``Ending``'s fields; None for every other ending.
    ending: dict[str, Any] | None = None

    #: Of ``input_tokens``, those read from and written to the provider's prompt cache
    #: (None before journal version 6).
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    #: What the run's tokens cost in US dollars at the settings' prices; None when the
    #: model has no price or no model was used.
    cost: float | None = None


#: What a run event records: ``guard_miss``, a commit sent without a question that the
#: service confirmed.
EventKind = Literal["guard_miss"]
#: Each event kind in the words ``runs`` and ``show`` print.
EVENT_WORDS: dict[str, str] = {"guard_miss": "guard miss"}


@dataclass(frozen=True)
class EventRow:
    """One fact of a run that is neither a turn nor a step (a guard miss)."""

    id: int
    run_id: int
    at: float
    kind: str
    #: What happened, in words (the request that went out unasked, the page that confirmed).
    detail: str

    @property
    def words(self) -> str:
        """The kind as ``show`` prints it (``guard miss``)."""
        return EVENT_WORDS.get(self.kind, self.kind.replace("_", " "))


@dataclass(frozen=True)
class CheckRow:
    """One later look at a service's account page (``subterminator check``)."""

    id: int
    service: str
    #: The run whose result this check re-reads (the latest finished run), if any.
    run_id: int | None
    checked_at: float
    #: ``cancelled``, ``active``, ``renewed`` or ``unknown``.
    state: str
    url: str | None
    why: str


@dataclass(frozen=True)
class StepRow:
    """One irreversible step's facts."""

    id: int
    turn: int
    why: str
    action: str
    url: str | None
    decision: str | None
    dispatched_at: float | None
    outcome: str | None

    @property
    def state(self) -> StepState:
        """asked, rejected, guided, approved-not-dispatched, dispatched-outcome-unknown or done."""
        if self.decision is None:
            return "asked"
        if self.decision == "reject":
            return "rejected"
        if self.decision == "guidance":
            return "guided"
        if self.dispatched_at is None:
            return "approved_not_dispatched"
        if self.outcome in (None, "unknown"):
            return "dispatched_outcome_unknown"
        return "done"


@dataclass(frozen=True)
class StepEvidenceRow:
    """What proves an approved step: who approved it, screenshots, the text shown after."""

    step_id: int
    approved_by: str | None
    before_screenshot: str | None
    after_screenshot: str | None
    after_text: str | None


@dataclass(frozen=True)
class TurnRow:
    """One turn as the journal recorded it."""

    turn: int
    pilot: str
    tool: str
    arguments: dict[str, Any]
    outcome: str | None
    error: str | None
    url: str | None
    title: str | None
    snapshot: str | None
    latency: float | None
    input_tokens: int | None
    output_tokens: int | None
    #: The role and accessible name of the element the call acted on, read from the page
    #: (never the pilot's words); None for calls without a target.
    target_role: str | None = None
    target_name: str | None = None
    #: Of ``input_tokens``, those read from and written to the provider's prompt cache.
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None


def run_row(row: tuple[Any, ...]) -> RunRow:
    """A RunRow from the columns of _RUN_COLUMNS, in order."""
    return RunRow(
        id=row[0],
        service=row[1],
        model=row[2],
        pilot=row[3],
        started_at=row[4],
        ended_at=row[5],
        success=None if row[6] is None else bool(row[6]),
        verified=None if row[7] is None else bool(row[7]),
        reason=row[8],
        turns=row[9],
        final_url=row[10],
        error=row[11],
        message=row[12],
        input_tokens=row[13],
        output_tokens=row[14],
        start_url=row[15],
        verified_by=row[16],
        ending=json.loads(row[17]) if len(row) > 17 and row[17] else None,
        cache_read_tokens=row[18],
        cache_write_tokens=row[19],
        cost=row[20],
    )
