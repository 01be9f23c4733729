"""Plain event objects the core reports through; front ends render them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement
from subterminator_tui.results import TaskResult

Outcome = Literal["ok", "error", "refused", "rejected", "guidance", "unverified", "done"]


@dataclass(frozen=True)
class RunStarted:
    """A run began."""

    service_name: str
    pilot: str
    model: str | None
    max_turns: int
    checkpoints: bool


@dataclass(frozen=True)
class PageSeen:
    """A fresh snapshot arrived."""

    snapshot: NormalizedSnapshot
    allowed: bool


@dataclass(frozen=True)
class TurnStarted:
    """The pilot chose a call; it is about to be judged and dispatched."""

    turn: int
    call: ToolCall
    target: SnapshotElement | None
    reasoning: str
    pilot: str


@dataclass(frozen=True)
class TurnFinished:
    """A turn's outcome."""

    turn: int
    call: ToolCall
    target: SnapshotElement | None
    outcome: Outcome
    message: str
    latency: float
    input_tokens: int
    output_tokens: int
    #: Parts of ``latency``: the model's call, Playwright MCP's answers, the person's answers.
    model_seconds: float = 0.0
    mcp_seconds: float = 0.0
    human_seconds: float = 0.0
    #: Of ``input_tokens``, those the provider read from and wrote to its prompt cache.
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def overhead_seconds(self) -> float:
        """What the orchestrator itself spent: the rest of the turn."""
        return max(0.0, self.latency - self.model_seconds - self.mcp_seconds - self.human_seconds)


@dataclass(frozen=True)
class NoAction:
    """The model answered without a tool call."""

    turn: int
    text: str
    count: int


@dataclass(frozen=True)
class Notice:
    """Something the person should know (a pilot handover, a restart, a refusal)."""

    text: str
    level: Literal["info", "warning"] = "info"


@dataclass(frozen=True)
class RunFinished:
    """The run ended."""

    result: TaskResult


Event = RunStarted | PageSeen | TurnStarted | TurnFinished | NoAction | Notice | RunFinished


class Reporter(Protocol):
    """Receives every event of a run."""

    def emit(self, event: Event) -> None:
        """Handle one event; must not block."""
        ...
