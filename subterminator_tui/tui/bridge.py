"""The app's side of the core's interfaces: a reporter that posts messages, a gate with modals."""

from __future__ import annotations

from typing import TYPE_CHECKING

from subterminator_tui.guarded.gates import (
    CheckpointRequest,
    Decision,
    HandoffAnswer,
    HandoffRequest,
)
from subterminator_tui.orchestrator.events import Event
from subterminator_tui.orchestrator.pause import RunPause
from subterminator_tui.tui.messages import message_for
from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from subterminator_tui.tui.screens.handoff import HandoffScreen

if TYPE_CHECKING:
    from subterminator_tui.tui.app import SubTerminatorApp


class AppReporter:
    """Posts every core event to the app; never blocks the run."""

    def __init__(self, app: SubTerminatorApp) -> None:
        self.app = app

    def emit(self, event: Event) -> None:
        """Deliver ``event`` as its own message (``tui/messages.py``)."""
        self.app.post_message(message_for(event))


class AppGate:
    """Asks through the app's question desk, awaited inside the run worker.

    ``pause`` is the app's: while the person is asked whether to stop, the loop waits.
    """

    def __init__(self, app: SubTerminatorApp) -> None:
        self.app = app
        self.pause: RunPause = app.run_pause

    async def approve(self, request: CheckpointRequest) -> Decision:
        """The checkpoint modal: y approves, n/Esc rejects, g sends guidance."""
        self.app.show_pending(request)
        decision = await self.app.questions.answer(
            lambda: CheckpointScreen(
                request, preview=self.app.image_previews, guidance=request.takes_guidance
            )
        )
        self.app.clear_pending()
        return decision or Decision("reject")

    async def handoff(self, request: HandoffRequest) -> HandoffAnswer:
        """The hand-off modal; what is typed goes to the page only."""
        answer = await self.app.questions.answer(lambda: HandoffScreen(request))
        return answer or HandoffAnswer("cancel")
