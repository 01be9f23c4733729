"""What the person types in a served session's browser window never reaches the agent.

In ``serve`` the person (the operator, or whoever sits at the headed window)
signs in in the browser itself while agents wait: agents may not type on a
sign-in, code or CAPTCHA page (hand_offs.py). Those values would otherwise be
unknown to the session, and a hostile page could echo them (its console, its
title, a later field, an address) into the agent's answers, the call log and
Playwright MCP's files. The browser's own DevTools session learns every value
typed into a text field (browser/typed_values.py); this decides which are the
person's and feeds those to the session's scrubbers.

A value is the person's unless an agent's typing call is in flight on a page
that is no hand-off page (the agent's own text is its own), and never a value
the agent typed itself. That is wider than "while no agent call is in flight":
an agent waiting (``wait_for``) while the person signs in on a page no rule
knows is the usual case, and a value wrongly taken for the person's only costs
the agent the sight of its own text.

What a value costs follows the hand-off prompt's rule: a masked field (a
password, a field drawn as dots) keeps pictures away; on a page the rules know
as a sign-in another field (the user name) does not; anywhere else it does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.browser.typed_values import TypedValue
from subterminator_tui.orchestrator.secrets import SecretScrubber
from subterminator_tui.rules import ServiceConfig, detect_handoff

if TYPE_CHECKING:
    from subterminator_tui.serve.sessions.browser_session import BrowserSession

#: An agent's calls that put its own text into the page.
AGENT_TYPING_TOOLS = frozenset({"browser_type", "browser_press_key", "browser_handle_dialog"})


class SessionWindowTyping:
    """Feeds the values the person types in a session's browser to its scrubbers."""

    def __init__(
        self,
        service: ServiceConfig,
        scrubbers: tuple[SecretScrubber, ...],
        in_flight: Callable[[], str | None],
        page: Callable[[], NormalizedSnapshot | None],
    ) -> None:
        self.service = service
        #: The agent's view (pages, answers) and the records (call log, journal, files).
        self.scrubbers = scrubbers
        self._in_flight = in_flight
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
            lambda: session.in_flight,
            lambda: session.page,
        )
        session.lazy.typed_values = listener
        return listener

    def agent_typed(self, text: object) -> None:
        """The agent's call types ``text``: that value is the agent's, never the person's."""
        if isinstance(text, str):
            self._agent_values.add(text)

    def typed(self, value: TypedValue) -> None:
        """A value typed into the page: fed to the scrubbers when it is the person's."""
        if value.value in self._agent_values:
            return
        page = self._page()
        handoff = detect_handoff(self.service, page) if page is not None else None
        if self._in_flight() in AGENT_TYPING_TOOLS and handoff is None:
            return
        withholds = value.masked or handoff is None or handoff.kind != "login"
        for scrubber in self.scrubbers:
            scrubber.remember(value.value, withholds_pictures=withholds)
        self.learned += 1
        self.files_stale = True
