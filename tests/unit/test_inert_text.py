"""Text from a page or an agent is inert: no escape sequence or control character survives."""

from __future__ import annotations

import io

import pytest

from subterminator_tui.headless.reporter import TerminalReporter
from subterminator_tui.inert_text import inert_line, inert_text
from subterminator_tui.orchestrator.events import Notice


@pytest.mark.parametrize(
    ("hostile", "shown"),
    [
        ("SAFE\x1b[2J\x1b[H\x1b[32m: reading the FAQ", "SAFE: reading the FAQ"),
        ("title\x1b]0;owned\x07 here", "title here"),
        ("link \x1b]8;;http://evil.test\x1b\\text\x1b]8;;\x1b\\", "link text"),
        ("c1 \x9b31mred\x9d0;x\x9c", "c1 red"),
        ("bell\x07 and nul\x00 and del\x7f", "bell and nul and del"),
        ("Finish \u202eevil\u202c", "Finish evil"),
        ("dangling \x1b", "dangling "),
        ("plain é 日本 [b]markup[/b]", "plain é 日本 [b]markup[/b]"),
    ],
)
def test_escape_sequences_and_controls_are_removed(hostile: str, shown: str) -> None:
    """Whole sequences go (no '[2J' left behind); ordinary text and markup-like text stay."""
    assert inert_text(hostile) == shown


def test_lines_keep_their_breaks_and_one_line_flattens_them() -> None:
    """inert_text keeps newlines and tabs; inert_line makes one line of anything."""
    assert inert_text("a\r\nb\tc") == "a\nb\tc"
    assert inert_line("a\r\nb\u2028c\x85d") == "a b c d"


def test_the_headless_reporter_writes_no_escape_sequence() -> None:
    """The plain terminal's last pass: a notice holding sequences is printed inert."""
    out, err = io.StringIO(), io.StringIO()
    TerminalReporter(out, err).emit(Notice("Clicked 'FAQ\x1b[2J\x1b[32mSAFE'", "warning"))
    written = out.getvalue() + err.getvalue()
    assert "FAQSAFE" in written and "\x1b" not in written
