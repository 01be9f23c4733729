"""A scripted person at the other end of a run, and a reporter that records every event."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from subterminator_tui.guarded.gates import (
    CheckpointRequest,
    Decision,
    HandoffAnswer,
    HandoffRequest,
)
from subterminator_tui.orchestrator.events import Event


@dataclass
class ScriptedHuman:
    """Answers checkpoints and hand-offs from lists; records what it was asked.

    ``on_approve`` runs at the moment a checkpoint is asked, so a test can look
    at the world (say, the practice server's counters) before anything is dispatched.
    """

    decisions: list[Decision] = field(default_factory=list)
    #: Per hand-off: a mapping from field label to value, "browser", or "cancel".
    handoffs: list[dict[str, str] | str] = field(default_factory=list)
    on_approve: Callable[[CheckpointRequest], Any] | None = None
    approvals: list[CheckpointRequest] = field(default_factory=list)
    handoff_requests: list[HandoffRequest] = field(default_factory=list)
    seen_at_approval: list[Any] = field(default_factory=list)

    async def approve(self, request: CheckpointRequest) -> Decision:
        """The next scripted decision (reject when the script ran out)."""
        self.approvals.append(request)
        if self.on_approve is not None:
            self.seen_at_approval.append(self.on_approve(request))
        return self.decisions.pop(0) if self.decisions else Decision("reject")

    async def handoff(self, request: HandoffRequest) -> HandoffAnswer:
        """Type the scripted values into the fields with those labels."""
        self.handoff_requests.append(request)
        script = self.handoffs.pop(0) if self.handoffs else "cancel"
        if script == "cancel":
            return HandoffAnswer("cancel")
        if script == "browser":
            return HandoffAnswer("done_in_browser")
        assert isinstance(script, dict)
        values = {f.ref: script[f.label] for f in request.fields if f.label in script}
        return HandoffAnswer("typed", values)


@dataclass
class RecordingReporter:
    """Keeps every event."""

    events: list[Event] = field(default_factory=list)

    def emit(self, event: Event) -> None:
        """Record ``event``."""
        self.events.append(event)

    def of(self, kind: type) -> list[Any]:
        """The events of one type, in order."""
        return [event for event in self.events if isinstance(event, kind)]
