"""A run's bookkeeping: the journal rows, the tokens, the time per turn, and the result.

:class:`RunLedger` is the run's :class:`~subterminator_tui.guarded.step_log.StepLog`:
the guarded-call pipeline writes each turn's intent and each checkpoint's facts
through it.
"""

from __future__ import annotations

import getpass
from dataclasses import dataclass

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.costs import ModelPrice, Usage
from subterminator_tui.journal.store import Journal
from subterminator_tui.orchestrator.events import Outcome
from subterminator_tui.pilots.base import Pilot, PilotTurn
from subterminator_tui.results import Ending, TaskReason, TaskResult
from subterminator_tui.rules.matching import VerifiedBy

#: Outcomes whose message is an error worth keeping in the journal.
_ERROR_OUTCOMES: frozenset[Outcome] = frozenset({"error", "refused", "unverified"})


@dataclass
class OpenTurn:
    """The journal row of the turn in flight: written at its intent, completed at its outcome."""

    row: int | None
    turn: int


class RunLedger:
    """Counts what a run spends and writes what it does, so the loop only decides."""

    def __init__(
        self,
        service_id: str,
        pilot: Pilot,
        journal: Journal | None,
        start_url: str | None = None,
        price: ModelPrice | None = None,
    ) -> None:
        self.service_id = service_id
        self.start_url = start_url
        self.pilot = pilot
        self.journal = journal
        self.run_id: int | None = None
        self.turns = 0
        self.model_calls = 0
        #: Every model call's usage, summed, as the provider reported it.
        self.usage = Usage()
        #: The model's price from the settings: the result's cost (None: no price known).
        self.price = price
        self.final_url: str | None = None
        #: The turn whose row has an intent but no outcome yet.
        self.open_turn: OpenTurn | None = None

    def start(self) -> None:
        """The run's row."""
        if self.journal is not None:
            self.run_id = self.journal.start_run(
                self.service_id, self.pilot.model_name, self.pilot.name, start_url=self.start_url
            )

    def count(self, proposal: PilotTurn) -> None:
        """Add a proposal's model calls and tokens."""
        self.model_calls += proposal.model_calls
        self.usage += proposal.usage

    def saw(self, snapshot: NormalizedSnapshot) -> None:
        """The newest page: the result's final URL."""
        self.final_url = snapshot.url

    def intent(self, turn: int, call: ToolCall, target: tuple[str, str] | None) -> int | None:
        """Write the call before anything happens, so a crash leaves a record of it.

        ``target`` is the ``(role, name)`` of the element the call acts on, read from
        the page: what a recorded playbook matches on later.
        """
        row = None
        if self.journal is not None and self.run_id is not None:
            row = self.journal.record_intent(
                self.run_id, turn, self.pilot.name, call.name, call.arguments, target=target
            )
        self.open_turn = OpenTurn(row, turn)
        return row

    def question(self, turn: int, why: str, action: str, url: str) -> int | None:
        """The person is about to be asked before an irreversible step (written first)."""
        if self.journal is None or self.run_id is None:
            return None
        return self.journal.record_question(self.run_id, turn, why, action, url)

    def decision(self, step: int | None, verdict: str) -> None:
        """The person's decision on ``step``: the verdict, never their words."""
        if self.journal is not None and step is not None:
            self.journal.record_decision(step, verdict)

    def dispatch(self, step: int | None) -> None:
        """The approved step goes to the browser now; if this cannot be written, it does not."""
        if self.journal is not None and step is not None:
            self.journal.record_dispatch(step)

    def step_before(self, step: int | None, screenshot: str | None) -> None:
        """Who approved ``step`` (this computer's user, at this front end) and on what."""
        if self.journal is not None and step is not None:
            self.journal.record_step_before(step, approver(), screenshot)

    def step_after(self, step: int | None, screenshot: str | None, text: str | None) -> None:
        """What the page showed after ``step`` went out (scrubbed text, a screenshot)."""
        if self.journal is not None and step is not None:
            self.journal.record_step_after(step, screenshot, text)

    def step_outcome(self, step: int | None, outcome: str) -> None:
        """done, failed or unknown."""
        if self.journal is not None and step is not None:
            self.journal.record_step_outcome(step, outcome)

    def close_open_turn(self, outcome: str, message: str) -> None:
        """A run that ended mid-turn (rejected, stopped, failed) gives the turn its outcome."""
        record, self.open_turn = self.open_turn, None
        if self.journal is None or record is None or record.row is None:
            return
        self.journal.record_outcome(
            record.row,
            outcome=outcome,
            error=message,
            url=self.final_url,
            title=None,
            snapshot=None,
            latency=0.0,
            input_tokens=0,
            output_tokens=0,
        )

    def outcome(
        self,
        outcome: Outcome,
        message: str,
        snapshot: NormalizedSnapshot,
        latency: float,
        proposal: PilotTurn,
    ) -> None:
        """Complete the open turn's row."""
        record, self.open_turn = self.open_turn, None
        if self.journal is None or record is None or record.row is None:
            return
        self.journal.record_outcome(
            record.row,
            outcome=outcome,
            error=message if outcome in _ERROR_OUTCOMES else None,
            url=snapshot.url,
            title=snapshot.title,
            snapshot=snapshot.content,
            latency=latency,
            input_tokens=proposal.usage.input_tokens,
            output_tokens=proposal.usage.output_tokens,
            cache_read_tokens=proposal.usage.cache_read_tokens,
            cache_write_tokens=proposal.usage.cache_write_tokens,
        )

    def result(
        self,
        reason: TaskReason,
        *,
        success: bool = False,
        message: str | None = None,
        error: str | None = None,
        verified_by: VerifiedBy | None = None,
        ending: Ending | None = None,
        guard_miss: str | None = None,
    ) -> TaskResult:
        """The TaskResult of a run that ended for ``reason``."""
        return TaskResult(
            success=success,
            # Verified means a cancellation by this run, on evidence: never without success.
            verified=success and reason in ("completed", "cancelled_unasked"),
            reason=reason,
            turns=self.turns,
            final_url=self.final_url,
            error=error,
            message=message,
            model_calls=self.model_calls,
            input_tokens=self.usage.input_tokens,
            output_tokens=self.usage.output_tokens,
            cache_read_tokens=self.usage.cache_read_tokens,
            cache_write_tokens=self.usage.cache_write_tokens,
            cost=self.price.cost(self.usage) if self.price is not None else None,
            run_id=self.run_id,
            verified_by=verified_by if success else None,
            ending=ending,
            guard_miss=guard_miss,
        )

    def guard_missed(self, detail: str) -> None:
        """A commit went out without a question and the service confirmed it: kept as a
        guard miss (``runs`` and ``show`` say so)."""
        if self.journal is not None and self.run_id is not None:
            self.journal.record_event(self.run_id, "guard_miss", detail)

    def finish(self, result: TaskResult) -> None:
        """The run's row gets its end."""
        if self.journal is not None and self.run_id is not None:
            self.journal.finish_run(
                self.run_id, result, model=self.pilot.model_name, pilot=self.pilot.name
            )


def approver() -> str:
    """Who answers a run's checkpoints: the person logged in to this computer."""
    try:
        return f"{getpass.getuser()} (at this computer)"
    except (OSError, KeyError):
        return "the person at this computer"
