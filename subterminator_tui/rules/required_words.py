"""The words a built expression cannot match without: a page with none is passed over.

The generic rules hold, for each language, a few large expressions built from its
table (a sentence that states the cancellation, a status line, a heading ...).
Compiling one takes tens of milliseconds, and a page in one language would otherwise
compile every other language's too (the script gate spares only the languages with
letters of their own: sixteen tables are written in Latin letters). Every such
expression is built from a list of phrases, and every phrase holds words that any text
it reads must hold: one of those words, looked for first, tells at once that a German
sentence is not there to be read on an English page.

A phrase is read as the small regular expression it is: a run of letters outside any
group is needed; a group is needed unless a quantifier makes it optional, and then one
of its choices is; ``{cancelled}`` and ``{subject}`` need one of their list's phrases.
A phrase with nothing needed (``\\w+``, a character class, an optional group alone)
gives nothing, and then its expression has no words to look for and is read as before.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from subterminator_tui.rules.language_words import PLACEHOLDERS, LanguageWords

#: Placeholders whose list's phrases can stand for the words they need.
_LISTED = ("subject", "cancelled")


def required_words(
    words: LanguageWords, phrases: Iterable[str], *, depth: int = 0
) -> tuple[str, ...]:
    """Words of which every match of any of ``phrases`` holds one, or () when some phrase
    needs none (then nothing can be looked for first). ``depth`` 1: the phrases are a
    list's own, whose placeholders name no lists (one level down is as deep as it goes)."""
    found: set[str] = set()
    for phrase in phrases:
        needed = _of_choices(_parsed(phrase), words, depth)
        if needed is None:
            return ()
        found |= needed
    return tuple(sorted(found))


@functools.cache
def required_words_of_list(words: LanguageWords, name: str) -> tuple[str, ...]:
    """:func:`required_words` of the ``{subject}`` or ``{cancelled}`` list (cached: every
    phrase that holds the placeholder reads it)."""
    listed = words.success.subject if name == "subject" else words.success.cancelled
    return required_words(words, listed, depth=1)


@functools.cache
def _parsed(phrase: str) -> list[_Sequence]:
    """``phrase``'s top-level choices (cached: the tables repeat their phrases)."""
    return _Phrase(unicodedata.normalize("NFKC", phrase)).choices


@dataclass
class _Sequence:
    """One choice of a group (or the whole phrase): what it needs, in order.

    Each item is a needed run of letters (a str), a needed group (a list of choices)
    or a needed placeholder's name (a ``{name}`` str, braces kept)."""

    items: list[str | list[_Sequence]] = field(default_factory=list)


class _Phrase:
    """A phrase parsed just far enough to tell what every match of it holds."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._at = 0
        self.choices = self._choices()

    # A recursive descent over the phrase's regular expression syntax. Whatever it does
    # not know (a class, an escape, a dot, a space) is needed by nothing: it can only
    # make the answer less selective, never wrong.
    def _choices(self) -> list[_Sequence]:
        choices = [self._sequence()]
        while self._peek() == "|":
            self._at += 1
            choices.append(self._sequence())
        return choices

    def _sequence(self) -> _Sequence:
        sequence = _Sequence()
        run: list[str] = []

        def end_run() -> None:
            if run:
                sequence.items.append("".join(run))
                run.clear()

        while (char := self._peek()) not in ("", "|", ")"):
            if char == "(":
                end_run()
                group = self._group()
                if not self._optional() and group is not None:
                    sequence.items.append(group)
            elif char == "[":
                end_run()
                self._skip_class()
                self._optional()
            elif char == "\\":
                end_run()
                self._at += 2
                self._optional()
            elif char == "{" and self._placeholder():
                end_run()
                name = self._placeholder()
                self._at += len(name) + 2
                if not self._optional():
                    sequence.items.append("{" + name + "}")
            elif char.isalpha():
                self._at += 1
                repeated = self._peek() == "+"
                if self._optional():
                    # The letter before a quantifier may be missing: the run ends before it.
                    end_run()
                else:
                    run.append(char)
                    if repeated:
                        # It may also come twice: what follows is another run.
                        end_run()
            else:
                end_run()
                self._at += 1
                self._optional()
        end_run()
        return sequence

    def _group(self) -> list[_Sequence] | None:
        """The group at the cursor (consumed): its choices, or None for a look-around or
        flags, which hold no text of their own."""
        self._at += 1
        holds_text = True
        if self._peek() == "?":
            kind = self._text[self._at + 1 : self._at + 3]
            if kind[:1].isalpha():
                # Flags ("(?i)"): nothing to read inside.
                self._at = self._text.index(")", self._at) + 1
                return None
            holds_text = kind.startswith(":")
            self._at += 2 if kind.startswith((":", "=", "!")) else 3
        choices = self._choices()
        self._at += 1  # the closing parenthesis
        return choices if holds_text else None

    def _optional(self) -> bool:
        """Consume a quantifier after an item; whether it lets the item be missing."""
        char = self._peek()
        if char in ("?", "*"):
            self._at += 1
            if self._peek() == "?":
                self._at += 1
            return True
        if char == "+":
            self._at += 1
            return False
        if char == "{" and not self._placeholder():
            closing = self._text.find("}", self._at)
            bounds = self._text[self._at + 1 : closing]
            self._at = closing + 1
            return bounds.split(",")[0].strip() in ("", "0")
        return False

    def _placeholder(self) -> str:
        """The placeholder's name at the cursor ("" when none is there)."""
        closing = self._text.find("}", self._at)
        name = self._text[self._at + 1 : closing] if closing > 0 else ""
        return name if name in PLACEHOLDERS else ""

    def _skip_class(self) -> None:
        self._at += 1
        if self._peek() in ("^", "]"):
            self._at += 1
        while (char := self._peek()) not in ("", "]"):
            self._at += 2 if char == "\\" else 1
        self._at += 1

    def _peek(self) -> str:
        return self._text[self._at] if self._at < len(self._text) else ""


def _of_choices(choices: list[_Sequence], words: LanguageWords, depth: int) -> set[str] | None:
    """Words one of which every match of one of ``choices`` holds, or None."""
    found: set[str] = set()
    for choice in choices:
        needed = _of_sequence(choice, words, depth)
        if needed is None:
            return None
        found |= needed
    return found


def _of_sequence(sequence: _Sequence, words: LanguageWords, depth: int) -> set[str] | None:
    """The most telling of what the sequence's items need: the set whose shortest word is
    longest (a long word rarely turns up by chance), or None when no item needs any."""
    best: set[str] | None = None
    for item in sequence.items:
        if isinstance(item, list):
            needed = _of_choices(item, words, depth)
        elif item.startswith("{"):
            name = item[1:-1]
            if name not in _LISTED or depth:
                continue
            needed = set(required_words_of_list(words, name)) or None
        else:
            needed = {item}
        if needed and (best is None or _telling(needed) > _telling(best)):
            best = needed
    return best


def _telling(needed: set[str]) -> tuple[int, int]:
    return (min(len(word) for word in needed), -len(needed))
