"""The call log read back (get_content, get_console_content), as a diff since the last read.

Each caller (principal) has one read cursor per session, kept in the journal so it
survives a restart. The first read of a session is full; reading the ref the cursor
is on gives an empty string (nothing changed since that read); another ref gives
only the lines that changed since the last read (a unified line diff, no context);
``reset_cursor`` gives the full content. ``search_for`` is a lookup, not a read: it
returns the matching lines of the whole content and leaves the cursor where it is.
Console messages are never diffed: a ref's messages come back whole, filtered by level.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from subterminator_tui.journal.call_log import CONSOLE_LEVELS, CallLogStore, LoggedCall
from subterminator_tui.serve.errors import ServeError, ServeInputError
from subterminator_tui.serve.names import echoed
from subterminator_tui.serve.oversight.console_log import at_least

#: full: the whole content; diff: what changed since the last read; unchanged: nothing did;
#: search: the lines matching search_for.
ReadMode = Literal["full", "diff", "unchanged", "search"]


class CallNotFoundError(ServeError):
    """No call of this ref_id in the call log for this caller."""


@dataclass(frozen=True)
class Reading:
    """What one get_content call returns."""

    ref_id: str
    mode: ReadMode
    content: str
    since_ref_id: str | None = None


def line_diff(before: str, after: str) -> str:
    """The lines that changed from ``before`` to ``after``: hunks of -/+ lines, no context."""
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    return "\n".join(line for line in lines if not line.startswith(("---", "+++")))


class CallLogReader:
    """Reads the call log for its callers, moving each caller's cursor."""

    def __init__(self, store: CallLogStore) -> None:
        self.store = store

    def _record(self, principal: str, ref_id: str) -> LoggedCall:
        record = self.store.get(principal, ref_id)
        if record is None:
            raise CallNotFoundError(
                f"No call record {echoed(ref_id)} of yours. A ref_id comes from a browser tool's "
                "answer (its ref_id line); refs of other callers are not visible."
            )
        return record

    def content(
        self,
        principal: str,
        ref_id: str,
        *,
        search_for: str | None = None,
        reset_cursor: bool = False,
    ) -> Reading:
        """The record's content: full, the diff since the caller's last read, or a search."""
        record = self._record(principal, ref_id)
        if search_for:
            wanted = search_for.lower()
            found = [
                f"{number}: {line}"
                for number, line in enumerate(record.content.splitlines(), start=1)
                if wanted in line.lower()
            ]
            return Reading(ref_id, "search", "\n".join(found))
        last = self.store.cursor(principal, record.session)
        base = None if reset_cursor or last is None else self.store.get(principal, last)
        if last != ref_id:
            # A durable write per read that moves the cursor; re-reads write nothing.
            self.store.move_cursor(principal, record.session, ref_id)
        if base is None:
            return Reading(ref_id, "full", record.content)
        if base.ref_id == ref_id:
            return Reading(ref_id, "unchanged", "", since_ref_id=last)
        diff = line_diff(base.content, record.content)
        return Reading(ref_id, "diff" if diff else "unchanged", diff, since_ref_id=last)

    def console(self, principal: str, ref_id: str, level: str = "") -> str:
        """The record's console messages at ``level`` or more severe, one per line."""
        if level and level not in CONSOLE_LEVELS:
            raise ServeInputError(
                f"Unknown console level {echoed(level)}; use one of {', '.join(CONSOLE_LEVELS)} "
                "(or leave it empty for every message)."
            )
        self._record(principal, ref_id)
        wanted = at_least(level)
        return "\n".join(m.text() for m in self.store.console(ref_id) if m.level in wanted)
