"""The auto pilot: the playbook while it fits, then the AI from the page where it stopped."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.pilots.ai import AIPilot
from subterminator_tui.pilots.base import PilotTurn
from subterminator_tui.pilots.playbook import PlaybookPilot


class AutoPilot:
    """Starts with the playbook; hands over to the AI at the first step that does not match."""

    def __init__(
        self,
        playbook: PlaybookPilot,
        make_ai: Callable[[], AIPilot] | None,
        *,
        no_model_reason: str = "",
        on_handover: Callable[[str], None] = lambda _message: None,
    ) -> None:
        self.playbook = playbook
        self.make_ai = make_ai
        self.no_model_reason = no_model_reason
        self.on_handover = on_handover
        self.ai: AIPilot | None = None

    @property
    def name(self) -> str:
        """Whichever pilot drives now."""
        return "ai" if self.ai else "playbook"

    @property
    def model_name(self) -> str | None:
        """The model once the AI drives."""
        return self.ai.model_name if self.ai else None

    def begin(self, snapshot: NormalizedSnapshot) -> None:
        """The playbook starts."""
        self.playbook.begin(snapshot)

    async def next_turn(self, snapshot: NormalizedSnapshot) -> PilotTurn:
        """The playbook's turn, or the AI's after a divergence."""
        if self.ai is not None:
            return await self.ai.next_turn(snapshot)
        turn = await self.playbook.next_turn(snapshot)
        if turn.stop is None:
            return turn
        if self.make_ai is None:
            return PilotTurn(
                None,
                stop=f"The playbook diverged: {turn.stop}. No model is configured to take over: "
                f"{self.no_model_reason}",
            )
        self.ai = self.make_ai()
        self.ai.set_preface(
            f"A recorded playbook did the first steps and stopped: {turn.stop}. "
            "Continue from the current page."
        )
        self.ai.begin(snapshot)
        self.on_handover(f"The playbook diverged ({turn.stop}); the AI takes over.")
        return await self.ai.next_turn(snapshot)

    def observe(
        self, call: ToolCall, status: dict[str, Any], snapshot: NormalizedSnapshot | None
    ) -> None:
        """Pass the outcome to whichever pilot made the call."""
        (self.ai or self.playbook).observe(call, status, snapshot)

    def nudge(self, text: str) -> None:
        """Only a model needs nudging."""
        if self.ai is not None:
            self.ai.nudge(text)

    async def aclose(self) -> None:
        """Close the AI's client if it ever took over."""
        if self.ai is not None:
            await self.ai.aclose()
