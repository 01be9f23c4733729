"""Playwright MCP's console listing, parsed into messages with a level and a location.

``browser_console_messages`` prints a header, a blank line, then one entry per
message: ``[TYPE] text @ url:line`` for console calls, the error's stack for an
uncaught page error. Console types are folded into four levels: debug, info,
warn, error.
"""

from __future__ import annotations

import re

from subterminator_tui.journal.call_log import CONSOLE_LEVELS, ConsoleMessage

_ENTRY = re.compile(r"^\[([A-Z]+)\] ")
_PAGE_ERROR = re.compile(r"^(?:[A-Za-z]*Error|Uncaught)\b")
_LOCATION = re.compile(r"^(.*):(\d+)$")
_STACK_FRAME = re.compile(r"\(?((?:https?|file)://[^\s()]+?):(\d+):(\d+)\)?\s*$")
_LEVEL_OF_TYPE = {"debug": "debug", "warning": "warn", "error": "error", "assert": "error"}


def level_of(console_type: str) -> str:
    """The normalised level of a console call's type (log, dir, table... are info)."""
    return _LEVEL_OF_TYPE.get(console_type.lower(), "info")


def parse_console(text: str) -> tuple[ConsoleMessage, ...]:
    """The messages in a ``browser_console_messages`` answer, oldest first."""
    _, blank, body = text.partition("\n\n")
    if not blank:
        return ()
    entries: list[list[str]] = []
    for line in body.splitlines():
        if line.startswith("### "):
            break  # a later section of the answer (e.g. the page state), not a message
        if _ENTRY.match(line) or _PAGE_ERROR.match(line) or not entries:
            entries.append([line])
        else:
            entries[-1].append(line)
    return tuple(_message(entry) for entry in entries if "".join(entry).strip())


def _message(lines: list[str]) -> ConsoleMessage:
    text = "\n".join(lines).rstrip()
    typed = _ENTRY.match(text)
    if typed is None:
        # An uncaught page error: its stack's first frame says where.
        frame = next((m for m in map(_STACK_FRAME.search, lines[1:]) if m), None)
        if frame is None:
            return ConsoleMessage("error", text)
        line, column = int(frame.group(2)), int(frame.group(3))
        return ConsoleMessage("error", text, frame.group(1), line, column)
    body = text[typed.end() :]
    message, at, where = body.rpartition(" @ ")
    located = _LOCATION.match(where) if at else None
    if located is None:
        return ConsoleMessage(level_of(typed.group(1)), body)
    url = located.group(1) or None
    return ConsoleMessage(level_of(typed.group(1)), message, url, int(located.group(2)))


def at_least(level: str) -> tuple[str, ...]:
    """The levels as severe as ``level`` or more ('' or None: every level)."""
    if not level:
        return CONSOLE_LEVELS
    return CONSOLE_LEVELS[CONSOLE_LEVELS.index(level) :]
