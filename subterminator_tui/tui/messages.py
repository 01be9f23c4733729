"""Core events delivered to the app as Textual messages."""

from __future__ import annotations

from textual.message import Message

from subterminator_tui.orchestrator.events import Event, PageSeen


class RunEvent(Message):
    """One orchestrator event, posted from the run worker."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event

    def can_replace(self, message: Message) -> bool:
        """A burst of page updates coalesces: only the newest page matters."""
        return (
            isinstance(message, RunEvent)
            and isinstance(message.event, PageSeen)
            and isinstance(self.event, PageSeen)
        )
