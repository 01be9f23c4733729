"""How the core asks a human: small gate interfaces each front end implements.

The core never prints or reads a terminal; the headless CLI and the Textual
app each provide a HumanGate.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal, Protocol

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import SnapshotElement

CheckpointKind = Literal["rule", "model_request", "left_domains", "held_request"]
HandoffKind = Literal["login", "two_factor", "captcha"]

#: How each front end titles a hand-off.
HANDOFF_TITLES: dict[str, str] = {
    "login": "Sign-in needed",
    "two_factor": "Verification code needed",
    "captcha": "CAPTCHA needed",
}


@dataclass(frozen=True)
class CheckpointRequest:
    """An irreversible step is pending: approve it, reject it, or guide the pilot."""

    kind: CheckpointKind
    why: str
    action: str
    url: str
    screenshot_path: str | None
    call: ToolCall | None = None
    target: SnapshotElement | None = None
    #: Whether guidance can be offered: only a model reads it (a playbook would just stop).
    takes_guidance: bool = True
    #: The rules found that the step spends money (it shows or carries an amount).
    spends_money: bool = False
    #: The rules found that the step ends the subscription (its commit, a fee included).
    commit: bool = False


@dataclass(frozen=True)
class Decision:
    """The human's answer to a checkpoint."""

    verdict: Literal["approve", "reject", "guidance"]
    guidance: str = ""
    #: False when no answer came at all (the input ended): not run, but not "you rejected".
    answered: bool = True


@dataclass(frozen=True)
class HandoffField:
    """A field on the page the human may fill in through the prompt."""

    ref: str
    label: str
    secret: bool


@dataclass(frozen=True)
class HandoffRequest:
    """The page needs the human: sign in, type a code, or solve a CAPTCHA."""

    kind: HandoffKind
    why: str
    url: str
    fields: tuple[HandoffField, ...]
    headed: bool
    attempt: int = 1
    hint: str = ""


@dataclass(frozen=True)
class HandoffAnswer:
    """What the human did: typed values (by field ref), finished in the browser, or cancelled.

    ``values`` never leaves the hand-off: not to the model, the journal, the log or the screen.
    """

    action: Literal["typed", "done_in_browser", "cancel"]
    values: dict[str, str] = field(default_factory=dict, repr=False)


class HumanGate(Protocol):
    """The human at the other end of a run."""

    async def approve(self, request: CheckpointRequest) -> Decision:
        """Ask before an irreversible step."""
        ...

    async def handoff(self, request: HandoffRequest) -> HandoffAnswer:
        """Hand the page to the human."""
        ...


class TimedGate:
    """Wraps a gate and adds up the time spent waiting for the person.

    The orchestrator's own overhead per turn is the turn's time minus the
    model's, Playwright MCP's and this.
    """

    def __init__(self, gate: HumanGate) -> None:
        self.gate = gate
        self.seconds = 0.0

    async def approve(self, request: CheckpointRequest) -> Decision:
        """Ask, timing the wait."""
        started = time.perf_counter()
        try:
            return await self.gate.approve(request)
        finally:
            self.seconds += time.perf_counter() - started

    async def handoff(self, request: HandoffRequest) -> HandoffAnswer:
        """Hand off, timing the wait."""
        started = time.perf_counter()
        try:
            return await self.gate.handoff(request)
        finally:
            self.seconds += time.perf_counter() - started
