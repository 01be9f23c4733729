"""Keep what a person types during a hand-off out of everything that leaves the hand-off.

Values are typed into the page by the program itself, or by the person in the
browser window (learned there: window_typing.py); they could still echo back in
a snapshot (a username field shows its value), and a page can put them
back in any shape: a sign-in form sent by GET writes the password into the URL
form-encoded (``+`` for spaces, ``%26``), a page shows a code grouped
("735 194") or logs it as "7-3-5-1-9-4", a script base64-encodes it, a title
HTML-escapes it. Every snapshot, URL, title, console message and file the run
passes on is scrubbed of every such shape first, so neither the model, the
journal, the log, the screen nor Playwright MCP's output files keep them.

A password field is known by what it is, read from the page itself: an
``<input type=password>``, or a text field the page draws as dots
(``-webkit-text-security``), never by its label: "Passwort", "パスワード" or no
label at all. No model or calling agent types into one; only the person does.
"""

from __future__ import annotations

import base64
import dataclasses
import html
import json
import re
from pathlib import Path
from urllib.parse import quote, quote_plus

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.inspection import PageFacts
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.guarded.browser import Browser

REDACTED = "[typed by you]"

#: Tools that put text into fields the call names by ref.
TYPING_TOOLS = frozenset({"browser_type", "browser_fill_form"})


class SecretScrubber:
    """Remembers typed values for one run and removes them from text."""

    def __init__(self) -> None:
        self._values: set[str] = set()
        #: Digit sequences (codes, card numbers) matched with any grouping between digits.
        self._digit_patterns: list[re.Pattern[str]] = []
        #: The values no picture may show (passwords, codes), kept apart from the rest.
        self._pictures: SecretScrubber | None = None

    def remember(self, value: str, *, withholds_pictures: bool = True) -> None:
        """Never let ``value`` through again, nor any encoded form of it. Blanks are ignored.

        ``withholds_pictures``: a page showing it keeps no screenshot (see kept_screenshot).
        A user name is scrubbed from text but need not cost every later picture: account
        pages show it on every page.
        """
        if not value.strip():
            return
        if withholds_pictures:
            if self._pictures is None:
                self._pictures = SecretScrubber()
            self._pictures.remember(value, withholds_pictures=False)
        self._values.update(encoded_forms(value))
        digits = re.sub(r"[\s.\-]", "", value)
        if digits.isdigit() and len(digits) >= 4:
            # "735194" also as "735 194", "7-3-5-1-9-4", "73.51.94", "735&nbsp;194".
            between = r"(?:[\s.\-/·]|&nbsp;|%20|\+)*"
            self._digit_patterns.append(re.compile(between.join(digits)))

    def text(self, text: str) -> str:
        """``text`` with every remembered value, in every encoding, replaced."""
        # Longest first, so a value containing another is removed whole.
        for value in sorted(self._values, key=len, reverse=True):
            text = text.replace(value, REDACTED)
        for pattern in self._digit_patterns:
            text = pattern.sub(REDACTED, text)
        return text

    def files(self, directory: Path) -> int:
        """Scrub every text file under ``directory`` in place (Playwright MCP's snapshots and
        console logs); returns how many were rewritten. Binary files are left alone."""
        if not (self._values or self._digit_patterns) or not directory.is_dir():
            return 0
        rewritten = 0
        for path in directory.rglob("*"):
            if not path.is_file() or path.suffix.lower() in _BINARY_SUFFIXES:
                continue
            try:
                original = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            scrubbed = self.text(original)
            if scrubbed != original:
                path.write_text(scrubbed, encoding="utf-8")
                rewritten += 1
        return rewritten

    @property
    def withholds_pictures(self) -> bool:
        """Whether a value no picture may show was typed (only after a hand-off)."""
        return self._pictures is not None

    def shows_a_value(self, snapshot: NormalizedSnapshot) -> bool:
        """Whether ``snapshot`` (as read, not scrubbed) shows, in any shape, a value no
        picture may show."""
        return self._pictures is not None and self._pictures.snapshot(snapshot) != snapshot

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


_BINARY_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".webp", ".pdf", ".zip", ".webm"})


async def kept_screenshot(browser: Browser, scrubber: SecretScrubber) -> str | None:
    """A screenshot to keep (shown at a question, kept as evidence), or None.

    Pixels cannot be scrubbed: when the page shows something the person typed (a
    code shown back, a name in a field), before or after the picture is taken, no
    picture is kept at all. Without anything typed this costs no extra read.
    """
    if scrubber.withholds_pictures and scrubber.shows_a_value(await browser.snapshot()):
        return None
    path = await browser.screenshot()
    if scrubber.withholds_pictures and scrubber.shows_a_value(await browser.snapshot()):
        path.unlink(missing_ok=True)
        return None
    return str(path)


def without_revealing_picture(
    page: NormalizedSnapshot, scrubber: SecretScrubber
) -> NormalizedSnapshot:
    """``page`` (as read, with the screenshot taken with it) without that screenshot, its file
    removed, when the page shows a value no picture may show; else ``page`` itself."""
    if page.screenshot_path is None or not scrubber.shows_a_value(page):
        return page
    Path(page.screenshot_path).unlink(missing_ok=True)
    return dataclasses.replace(page, screenshot_path=None)


def encoded_forms(value: str) -> set[str]:
    """``value`` as a page, a URL, a script or a log might write it back."""
    forms = {
        value,
        # Snapshots print names as JSON strings and some keys as single-quoted YAML.
        json.dumps(value, ensure_ascii=False)[1:-1],
        json.dumps(value)[1:-1],
        value.replace("'", "''"),
        # Both URL encodings (a GET form writes spaces as +), in both hex cases.
        quote(value, safe=""),
        quote_plus(value, safe=""),
        quote(value, safe="").lower(),
        quote_plus(value, safe="").lower(),
        quote(value),
        # HTML escapes, named and numeric.
        html.escape(value),
        html.escape(value).replace("&#x27;", "&#39;"),
        "".join(f"&#{ord(char)};" for char in value),
    }
    forms.update(_base64_forms(value.encode("utf-8")))
    return {form for form in forms if form}


def _base64_forms(data: bytes) -> set[str]:
    """The base64 text of ``data`` wherever it sits in a longer encoded string.

    Inside a longer value (``user:password``) the encoding depends on the offset modulo
    3; for each offset the characters that depend on ``data`` alone are kept.
    """
    forms: set[str] = set()
    for offset in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(b"\0" * offset + data).decode("ascii").rstrip("=")
            start = 4 if offset else 0
            tail = (offset + len(data)) % 3
            end = len(encoded) - (1 if tail else 0)
            inner = encoded[start:end]
            if len(inner) >= 6:
                forms.add(inner)
    return forms


async def password_field_refusal(call: ToolCall, facts: PageFacts, browser: Browser) -> str | None:
    """Why ``call`` may not type: one of its fields is a password input; None otherwise.

    ``facts`` were read for the call's first target; any other field it fills is read too.
    """
    if call.name not in TYPING_TOOLS:
        return None
    for index, ref in enumerate(call.target_refs()):
        target = facts.target if index == 0 else (await browser.inspect(ref)).target
        if target is None:
            continue
        typed_as_password = target.tag == "input" and target.type.lower() == "password"
        if typed_as_password or target.secret:
            what = "an input of type password" if typed_as_password else "its typing is masked"
            return (
                f"Refused: {ref} is a password field ({what}). Passwords "
                "are the person's: only they type one, in the browser or at a sign-in "
                "hand-off. Nothing was sent; ask the person to sign in."
            )
    return None
