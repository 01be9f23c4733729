"""The core's events reach the app as one message each, handled by a method named after it."""

from __future__ import annotations

from typing import get_args

import pytest

from subterminator_tui.orchestrator import events as core
from subterminator_tui.tui import messages
from subterminator_tui.tui.app import SubTerminatorApp
from tests.fakes.scripted_session import fixture_page


@pytest.mark.parametrize("event_type", get_args(core.Event), ids=lambda t: t.__name__)
def test_every_core_event_has_its_own_message_and_handler(event_type: type[object]) -> None:
    """Each event type has a message of its name, and the app defines that message's handler."""
    message_type = messages.MESSAGES[event_type]
    assert isinstance(message_type, type) and message_type.__name__ == event_type.__name__
    handler = message_type.handler_name  # type: ignore[attr-defined]
    assert callable(getattr(SubTerminatorApp, handler, None)), handler


def test_only_page_updates_coalesce() -> None:
    """A newer page replaces a queued page; nothing replaces a notice, nor a page a notice."""
    page = core.PageSeen(fixture_page("account"), allowed=True)
    newer = messages.message_for(page)
    assert newer.can_replace(messages.message_for(page))
    notice = messages.message_for(core.Notice("a restart"))
    assert not newer.can_replace(notice)
    assert not notice.can_replace(newer)
