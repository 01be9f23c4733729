"""Text from a page or an agent made inert before anyone sees it.

A page chooses its labels, titles and URLs, and an agent chooses its arguments:
either can hold escape sequences that clear a terminal, move its cursor, recolour
a prompt or set the window title, and control characters that hide what follows.
:func:`inert_text` removes all of them (C0 and C1 controls, ANSI/VT escape
sequences, the bidirectional overrides that reorder what a line shows, and the
zero-width and tag characters that hide text from a person), and
is applied twice: when labels are read from the page, and again right before any
terminal write, so nothing that skipped the first pass reaches a screen. Rich
markup (``[b]``, ``[@click=...]``) is a separate matter for the widgets, which
show page text as plain text (``rich.markup.escape`` or ``Text``).
"""

from __future__ import annotations

import re

# ESC-introduced sequences (CSI, OSC, DCS/SOS/PM/APC strings, two-byte escapes) and their
# one-byte C1 forms, each removed whole so no fragment ("[2J") is left on screen.
_ESCAPE_SEQUENCE = re.compile(
    r"""
    (?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?              # CSI: cursor, erase, colour
  | (?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?   # OSC: title, hyperlink, clipboard
  | (?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?  # DCS, SOS, PM, APC
  | \x1b[ -/]*[0-~]?                               # any other escape (charset, reset)
    """,
    re.VERBOSE,
)
# C0 controls but tab and newline, DEL, C1 controls, the bidirectional controls
# (U+202A-202E, U+2066-2069, U+200E/200F, U+061C) that make a line read in another order,
# and the characters no one sees: zero-width spaces and joiners, word joiners and
# invisible operators (U+200B-200D, U+2060-2064), the byte-order mark, the Mongolian
# vowel separator, the soft hyphen, and the tag characters (U+E0000-E007F) that carry
# whole hidden sentences a model reads and a person does not.
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
    "\u200b-\u200d\u2060-\u2064\ufeff\u180e\u00ad\U000e0000-\U000e007f]"
)
_LINE_BREAKS = re.compile(r"[\r\n\t\u2028\u2029\x85]+")


def inert_text(text: str) -> str:
    """``text`` without escape sequences and control characters; tabs and newlines kept."""
    without_sequences = _ESCAPE_SEQUENCE.sub("", text)
    return _CONTROL.sub("", without_sequences.replace("\r\n", "\n").replace("\r", "\n"))


def inert_line(text: str) -> str:
    """``text`` made inert and kept on one line: every line break or tab is one space."""
    return _LINE_BREAKS.sub(" ", inert_text(_LINE_BREAKS.sub(" ", text))).strip()
