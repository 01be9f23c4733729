"""Page and agent text for widgets: always plain text, never read as markup.

Textual reads a ``str`` given to a Static, a Label, a DataTable cell or a
notification as Rich markup, so a button named ``Finish [/]`` would crash a
screen and ``[@click=...]`` would become an action. Every text that came from a
page or an agent goes through :func:`plain` (one line) or :func:`plain_block`,
which also strip escape sequences and control characters (inert_text).
"""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text

from subterminator_tui.inert_text import inert_line, inert_text


def plain(text: object, style: str = "") -> Text:
    """``text`` on one line as a Text: never markup, no control characters."""
    return Text(inert_line(str(text)), style=style)


def plain_block(text: object, style: str = "") -> Text:
    """``text`` with its line breaks as a Text: never markup, no control characters."""
    return Text(inert_text(str(text)), style=style)


def labelled(label: str, text: object, label_style: str = "") -> Text:
    """``Label: text``, the label ours (in ``label_style``), the text plain."""
    return Text.assemble((label, label_style), " ", plain(text))


def escaped(text: object) -> str:
    """``text`` for an API that takes markup only (notifications): escaped and inert."""
    return escape(inert_text(str(text)))
