"""The app's side of the core's interfaces: a reporter that posts messages, a gate with modals."""

from __future__ import annotations

from typing import TYPE_CHECKING

from subterminator_tui.orchestrator.events import Event
from subterminator_tui.orchestrator.gates import (
    CheckpointRequest,
    Decision,
    HandoffAnswer,
    HandoffRequest,
)
from subterminator_tui.tui.messages import RunEvent
from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from subterminator_tui.tui.screens.handoff import HandoffScreen

if TYPE_CHECKING:
    from subterminator_tui.tui.app import SubTerminatorApp


class AppReporter:
    """Posts every core event to the app; never blocks the run."""

    def __init__(self, app: SubTerminatorApp) -> None:
        self.app = app

    def emit(self, event: Event) -> None:
        """Deliver ``event`` as a RunEvent message."""
        self.app.post_message(RunEvent(event))


class AppGate:
    """Asks through modal screens, awaited inside the run worker."""

    def __init__(self, app: SubTerminatorApp) -> None:
        self.app = app

    async def approve(self, request: CheckpointRequest) -> Decision:
        """The checkpoint modal: y approves, n/Esc rejects, g sends guidance."""
        self.app.show_pending(request)
        decision = await self.app.push_screen_wait(
            CheckpointScreen(request, preview=self.app.image_previews)
        )
        self.app.clear_pending()
        return decision

    async def handoff(self, request: HandoffRequest) -> HandoffAnswer:
        """The hand-off modal; what is typed goes to the page only."""
        return await self.app.push_screen_wait(HandoffScreen(request))
