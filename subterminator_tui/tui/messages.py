"""Core events delivered to the app as Textual messages: one small dataclass per event.

Each carries its core event (``orchestrator/events.py``) and is handled by the app's
``on_<event>`` method, named after it (``PageSeen`` -> ``on_page_seen``). Only page
updates come in bursts, so only :class:`PageSeen` coalesces (``can_replace``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.message import Message

from subterminator_tui.orchestrator import events as core


@dataclass
class RunStarted(Message):
    """A run began: the header shows the service, the driver and the checkpoints."""

    event: core.RunStarted


@dataclass
class PageSeen(Message):
    """The browser shows a new page."""

    event: core.PageSeen

    def can_replace(self, message: Message) -> bool:
        """A burst of page updates coalesces: only the newest page matters."""
        return isinstance(message, PageSeen)


@dataclass
class TurnStarted(Message):
    """A turn chose its call; it is about to run."""

    event: core.TurnStarted


@dataclass
class TurnFinished(Message):
    """A turn's call ran (or was refused), with its outcome, latency and tokens."""

    event: core.TurnFinished


@dataclass
class NoAction(Message):
    """The model answered without a tool call."""

    event: core.NoAction


@dataclass
class Notice(Message):
    """Something the person should read (a warning or a note)."""

    event: core.Notice


@dataclass
class RunFinished(Message):
    """The run ended with its result."""

    event: core.RunFinished


#: The message of each core event type.
MESSAGES: dict[type[Any], Callable[[Any], Message]] = {
    core.RunStarted: RunStarted,
    core.PageSeen: PageSeen,
    core.TurnStarted: TurnStarted,
    core.TurnFinished: TurnFinished,
    core.NoAction: NoAction,
    core.Notice: Notice,
    core.RunFinished: RunFinished,
}


def message_for(event: core.Event) -> Message:
    """The app's message for one core event."""
    return MESSAGES[type(event)](event)
