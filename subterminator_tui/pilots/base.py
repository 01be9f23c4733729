"""What drives a run: a pilot proposes one tool call per turn and hears how it went."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.costs import Usage


@dataclass(frozen=True)
class PilotTurn:
    """The pilot's move: a call, or nothing (and then perhaps why it must stop)."""

    call: ToolCall | None
    text: str = ""
    usage: Usage = field(default_factory=Usage)
    latency: float = 0.0
    model_calls: int = 0
    #: Set when the pilot cannot go on at all (a playbook diverged and no model is configured).
    stop: str | None = None


class Pilot(Protocol):
    """A model or a recorded playbook."""

    @property
    def name(self) -> str:
        """``ai``, ``playbook`` (for ``auto``: whichever is driving now)."""
        ...

    @property
    def model_name(self) -> str | None:
        """The model, when one is driving."""
        ...

    def begin(self, snapshot: NormalizedSnapshot) -> None:
        """Start from the first page."""
        ...

    async def next_turn(self, snapshot: NormalizedSnapshot) -> PilotTurn:
        """Propose the next call for the current page."""
        ...

    def observe(
        self, call: ToolCall, status: dict[str, Any], snapshot: NormalizedSnapshot | None
    ) -> None:
        """Hear the outcome of ``call`` (``{"error": true, "message": ...}`` on failure)."""
        ...

    def nudge(self, text: str) -> None:
        """Remind the pilot to act (after a reply without a tool call)."""
        ...

    async def aclose(self) -> None:
        """Release the model client, if any."""
        ...
