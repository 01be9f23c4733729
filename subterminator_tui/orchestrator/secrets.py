"""Keep what a person types during a hand-off out of everything that leaves the hand-off.

Values are typed into the page by the program itself; they could still echo
back in a snapshot (a username field shows its value). Every snapshot the
loop passes on is scrubbed first, so neither the model, the journal, the log
nor the screen ever sees them.
"""

from __future__ import annotations

import dataclasses
import json

from subterminator_tui.browser.snapshot import NormalizedSnapshot

REDACTED = "[typed by you]"


class SecretScrubber:
    """Remembers typed values for one run and removes them from text."""

    def __init__(self) -> None:
        self._values: set[str] = set()

    def remember(self, value: str) -> None:
        """Never let ``value`` through again, nor its escaped forms. Blanks are ignored."""
        if not value.strip():
            return
        self._values.add(value)
        # Snapshots print names as JSON strings and some keys as single-quoted YAML,
        # so a backslash, a quote or an apostrophe would otherwise survive escaped.
        self._values.add(json.dumps(value, ensure_ascii=False)[1:-1])
        self._values.add(value.replace("'", "''"))

    def text(self, text: str) -> str:
        """``text`` with every remembered value replaced."""
        # Longest first, so a value containing another is removed whole.
        for value in sorted(self._values, key=len, reverse=True):
            text = text.replace(value, REDACTED)
        return text

    def snapshot(self, snapshot: NormalizedSnapshot) -> NormalizedSnapshot:
        """A copy of ``snapshot`` with every remembered value removed."""
        if not self._values:
            return snapshot
        elements = tuple(
            dataclasses.replace(element, name=self.text(element.name), text=self.text(element.text))
            for element in snapshot.elements
        )
        return dataclasses.replace(
            snapshot,
            url=self.text(snapshot.url),
            title=self.text(snapshot.title),
            content=self.text(snapshot.content),
            elements=elements,
            notes={key: self.text(value) for key, value in snapshot.notes.items()},
        )
