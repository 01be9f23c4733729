"""What the person types straight into the browser window is kept like what they type at our prompt.

At a hand-off the person may answer "done in the browser", a sign-in at an
identity provider is theirs alone, in the window, and in ``serve`` the person
signs in in the browser itself while agents wait: none of it goes through our
prompt, so the scrubbers would not know the values, and a hostile page could
echo them (its console, its title, a later field, an address) to the model or
the agent, the journal, the call log, the screen and Playwright MCP's files.
The browser's own DevTools session learns every value typed into a text field
(browser/typed_values.py); :class:`WindowTyping` feeds the person's to the
scrubbers. Which values are the person's is what differs between front ends,
and is a :class:`WhoseTyping` policy:

* the run's loop (:class:`AtHandOffs`): only while a hand-off question is open
  and until the page after it is settled; the rest of the time the pilot
  drives, and what it types is its own. When the person answers, the fields
  are read as well: a page can erase every listener (``document.open()``),
  not the fields' values;
* a served session (:class:`UnlessTheAgentTyped`): every value the agent did
  not type itself (its text, or the start of it, as a field with a
  ``maxlength`` keeps it). Whether an agent call is in flight decides nothing:
  the agent's typing moves the focus, and the change event that fires then on
  a field the person filled carries the person's value; and an agent waiting
  while the person signs in is the usual case. A value wrongly taken for the
  person's only costs the agent the sight of it.

What a value costs follows the hand-off prompt's rule: a masked field (a
password, a field drawn as dots) keeps every later picture away; at a sign-in
another field (the user name, which account pages show everywhere) does not;
at a code, a CAPTCHA or anywhere else every field does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Generic, Protocol, TypeVar

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.browser.typed_values import TypedValue, TypingWatch
from subterminator_tui.guarded.secrets import SecretScrubber
from subterminator_tui.rules import ServiceConfig, detect_handoff
from subterminator_tui.rules.matching import HandoffKind


class WhoseTyping(Protocol):
    """Decides whether a value typed in the window is the person's, and where they typed it."""

    def is_persons(self, value: TypedValue) -> bool:
        """Whether ``value`` was typed by the person (not by the pilot or the agent)."""
        ...

    def at_sign_in(self) -> bool:
        """Whether the person types at a sign-in now (a user name there costs no picture)."""
        ...


_Whose = TypeVar("_Whose", bound=WhoseTyping)


class WindowTyping(Generic[_Whose]):
    """Feeds the values the person types in the browser window to the scrubbers."""

    def __init__(
        self,
        scrubbers: tuple[SecretScrubber, ...],
        whose: _Whose,
        typing: TypingWatch | None = None,
    ) -> None:
        #: What the values are scrubbed from (the pilot's or agent's view, the records).
        self.scrubbers = scrubbers
        self.whose = whose
        self._typing = typing
        if typing is not None:
            typing.report_to(self)
        #: How many values were learned as the person's (a figure, never the values).
        self.learned = 0
        #: A value was learned since Playwright MCP's files were last scrubbed.
        self.files_stale = False

    @property
    def listening(self) -> bool:
        """Whether a browser reports what is typed into it (a local browser we watch)."""
        return self._typing is not None

    def typed(self, value: TypedValue) -> None:
        """A value typed into the page: fed to the scrubbers when it is the person's."""
        if not self.whose.is_persons(value):
            return
        withholds = value.masked or not self.whose.at_sign_in()
        for scrubber in self.scrubbers:
            scrubber.remember(value.value, withholds_pictures=withholds)
        self.learned += 1
        self.files_stale = True

    async def heard(self) -> None:
        """Return once every value typed so far has been heard (before a page is read)."""
        if self._typing is not None:
            await self._typing.heard()

    async def answered(self) -> None:
        """The person answered: what the fields hold now is theirs too (a page that erased
        the listener cannot hide it), and every report so far is heard."""
        if self._typing is not None:
            await self._typing.read()


class AtHandOffs:
    """The run's loop: a value is the person's while a hand-off question is open."""

    def __init__(self) -> None:
        #: The kind of the hand-off open now; None while the pilot drives.
        self.handoff: HandoffKind | None = None

    def asks(self, kind: HandoffKind) -> None:
        """A hand-off question of ``kind`` opens: what is typed from now on is the person's."""
        self.handoff = kind

    def is_persons(self, value: TypedValue) -> bool:
        """Only while a hand-off is open: the rest of the time the pilot types."""
        return self.handoff is not None

    def at_sign_in(self) -> bool:
        """The hand-off open now is a sign-in."""
        return self.handoff == "login"


@asynccontextmanager
async def at_handoff(window: WindowTyping[AtHandOffs]) -> AsyncIterator[None]:
    """Around a hand-off and the settling of the page after it; the pilot's after."""
    try:
        yield
    finally:
        await window.heard()
        window.whose.handoff = None


class UnlessTheAgentTyped:
    """A served session: a value is the person's unless the agent typed it itself."""

    def __init__(
        self, service: ServiceConfig, page: Callable[[], NormalizedSnapshot | None]
    ) -> None:
        self.service = service
        self._page = page
        self._agent_values: set[str] = set()

    def agent_typed(self, text: object) -> None:
        """The agent's call types ``text``: that value (or its start) is the agent's."""
        if isinstance(text, str):
            self._agent_values.add(text)

    def is_persons(self, value: TypedValue) -> bool:
        """Not the agent's own text, nor the start of it."""
        return not any(text.startswith(value.value) for text in self._agent_values)

    def at_sign_in(self) -> bool:
        """The session's page is one the rules know as a sign-in."""
        page = self._page()
        handoff = detect_handoff(self.service, page) if page is not None else None
        return handoff is not None and handoff.kind == "login"
