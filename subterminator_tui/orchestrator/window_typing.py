"""What the person types straight into the browser window is kept like what they type at our prompt.

At a hand-off the person may answer "done in the browser", and a sign-in at an
identity provider is theirs alone, in the window: neither goes through our
prompt, so the run's :class:`SecretScrubber` would not know the values, and a
hostile page could echo them (its console, its title, a later field, an
address) to the model, the journal, the screen and Playwright MCP's files.
The browser's own DevTools session learns every value typed into a text field
(browser/typed_values.py); this decides which are the person's and feeds those
to the scrubber: only while a hand-off question is open and until the page
after it is settled. When the person answers, the fields are read as well: a
page can erase every listener (``document.open()``), not the fields' values.
The rest of the time the pilot drives, and what it types is its own.

What a value costs follows the prompt's rule (handoff.py): a masked field (a
password, a field drawn as dots) keeps every later picture away; at a sign-in
another field (the user name, which account pages show everywhere) does not;
at a code or a CAPTCHA every field does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from subterminator_tui.browser.typed_values import TypedValue, TypingWatch
from subterminator_tui.guarded.secrets import SecretScrubber
from subterminator_tui.rules.matching import HandoffKind


class WindowTyping:
    """Feeds the values the person types in the browser window to the run's scrubber."""

    def __init__(self, scrubber: SecretScrubber, typing: TypingWatch | None) -> None:
        self.scrubber = scrubber
        self._watch = typing
        if typing is not None:
            typing.report_to(self)
        #: The kind of the hand-off open now; None while the pilot drives.
        self._handoff: HandoffKind | None = None
        #: How many values were learned as the person's (a figure, never the values).
        self.learned = 0

    @property
    def listening(self) -> bool:
        """Whether a browser reports what is typed into it (a local browser we watch)."""
        return self._watch is not None

    def typed(self, value: TypedValue) -> None:
        """A value typed into the page: the person's while a hand-off is open."""
        if self._handoff is None:
            return
        withholds = value.masked or self._handoff != "login"
        self.scrubber.remember(value.value, withholds_pictures=withholds)
        self.learned += 1

    def handoff_asks(self, kind: HandoffKind) -> None:
        """A hand-off question of ``kind`` opens: what is typed from now on is the person's."""
        self._handoff = kind

    async def heard(self) -> None:
        """Return once every value typed so far has been heard (before a page is read)."""
        if self._watch is not None:
            await self._watch.heard()

    async def answered(self) -> None:
        """The person answered the hand-off: what the fields hold now is theirs too (a page
        that erased the listener cannot hide it), and every report so far is heard."""
        if self._watch is not None:
            await self._watch.read()

    @asynccontextmanager
    async def at_handoff(self) -> AsyncIterator[None]:
        """Around a hand-off and the settling of the page after it; the pilot's after."""
        try:
            yield
        finally:
            await self.heard()
            self._handoff = None
