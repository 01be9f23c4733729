"""A pilot that plays a fixed list of turns: for the loop's unit tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.pilots.base import PilotTurn


@dataclass
class ScriptedPilot:
    """Proposes ``turns`` in order, then the last one again; records what it heard."""

    turns: list[PilotTurn]
    name: str = "ai"
    model_name: str | None = "scripted"
    heard: list[dict[str, Any]] = field(default_factory=list)
    nudges: int = 0
    closed: bool = False
    _next: int = 0

    def begin(self, snapshot: NormalizedSnapshot) -> None:
        """Nothing to prepare."""

    async def next_turn(self, snapshot: NormalizedSnapshot) -> PilotTurn:
        """The next scripted turn (the last repeats)."""
        turn = self.turns[min(self._next, len(self.turns) - 1)]
        self._next += 1
        return turn

    def observe(
        self, call: ToolCall, status: dict[str, Any], snapshot: NormalizedSnapshot | None
    ) -> None:
        """Keep what the loop told the pilot."""
        self.heard.append(status)

    def nudge(self, text: str) -> None:
        """Count the reminders."""
        self.nudges += 1

    async def aclose(self) -> None:
        """Nothing to close."""
        self.closed = True


def calls(name: str, **arguments: Any) -> PilotTurn:
    """A turn proposing one call."""
    return PilotTurn(ToolCall(f"call-{name}", name, arguments), model_calls=1)


def silence(text: str = "Thinking.") -> PilotTurn:
    """A turn with no call."""
    return PilotTurn(None, text, model_calls=1)
