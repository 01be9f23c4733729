"""What the person types in a served session's browser window never reaches the agent.

In ``serve`` the person (the operator, or whoever sits at the headed window)
signs in in the browser itself while agents wait: agents may not type on a
sign-in, code or CAPTCHA page (hand_offs.py). Those values would otherwise be
unknown to the session, and a hostile page could echo them (its console, its
title, a later field, an address) into the agent's answers, the call log and
Playwright MCP's files. The browser's own DevTools session learns every value
typed into a text field (browser/typed_values.py); this decides which are the
person's and feeds those to the session's scrubbers.

A value is the person's unless the agent typed it itself (its text, or the
start of it, as a field with a ``maxlength`` keeps it). Whether an agent call is
in flight decides nothing: the agent's typing moves the focus, and the change
event that fires then on a field the person filled carries the person's value;
and an agent waiting (``wait_for``) while the person signs in is the usual case.
A value wrongly taken for the person's only costs the agent the sight of it.

What a value costs follows the hand-off prompt's rule: a masked field (a
password, a field drawn as dots) keeps pictures away; on a page the rules know
as a sign-in another field (the user name) does not; anywhere else it does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.browser.typed_values import TypedValue
from subterminator_tui.guarded.secrets import SecretScrubber
from subterminator_tui.rules import ServiceConfig, detect_handoff

if TYPE_CHECKING:
    from subterminator_tui.serve.sessions.browser_session import BrowserSession


class SessionWindowTyping:
    """Feeds the values the person types in a session's browser to its scrubbers."""

    def __init__(
        self,
        service: ServiceConfig,
        scrubbers: tuple[SecretScrubber, ...],
        page: Callable[[], NormalizedSnapshot | None],
    ) -> None:
        self.service = service
        #: The agent's view (pages, answers) and the records (call log, journal, files).
        self.scrubbers = scrubbers
        self._page = page
        self._agent_values: set[str] = set()
        #: How many values were learned as the person's (a figure, never the values).
        self.learned = 0
        #: A value was learned since Playwright MCP's files were last scrubbed.
        self.files_stale = False

    @classmethod
    def installed_in(cls, session: BrowserSession) -> SessionWindowTyping:
        """The listener of ``session``, installed on every browser the session starts: the
        agent's view and every record (call log, journal, files) are scrubbed."""
        listener = cls(
            session.service,
            (session.scrubber, session.call_log.typed),
            lambda: session.page,
        )
        session.lazy.typed_values = listener
        return listener

    def agent_typed(self, text: object) -> None:
        """The agent's call types ``text``: that value (or its start) is the agent's."""
        if isinstance(text, str):
            self._agent_values.add(text)

    def typed(self, value: TypedValue) -> None:
        """A value typed into the page: fed to the scrubbers when it is the person's."""
        if any(text.startswith(value.value) for text in self._agent_values):
            return
        page = self._page()
        handoff = detect_handoff(self.service, page) if page is not None else None
        withholds = value.masked or handoff is None or handoff.kind != "login"
        for scrubber in self.scrubbers:
            scrubber.remember(value.value, withholds_pictures=withholds)
        self.learned += 1
        self.files_stale = True
