"""One normaliser for every text a rule reads, and for the rules' own words.

A page can spell "Accept offer" so that no rule written by a person matches it:
an invisible WORD JOINER inside the word, a Cyrillic "А" for the Latin "A", a
fullwidth or mathematical-bold letter, a non-breaking space. Every text is
therefore brought to one form before any rule looks at it, and so is every
rule's needle and pattern:

1. NFKC: compatibility forms (fullwidth, ligatures, bold letters, no-break
   spaces) become their plain characters.
2. Every Unicode format character (category Cf: joiners, direction marks, soft
   hyphens, invisible separators) is removed; none of them shows a letter.
3. A character of another script that Unicode's confusables table (TS #39)
   maps to a Latin/ASCII prototype becomes that prototype: Cyrillic "А" reads
   as "A", Greek "ο" as "o". ASCII itself is never changed (a full TS #39
   skeleton also maps "m" to "rn" and "0" to "O", which would break the
   regular expressions rules are written in); letters of a script with no
   ASCII look-alike (Japanese, most of Cyrillic, accented Latin) stay as they are.
   The look-alikes are saved beside this module (``confusable_prototypes.toml``,
   from the table confusable_homoglyphs carries): loading that library's tables
   took 0.09 CPU s in every process. ``test_rules_text`` checks the file against
   the library; ``python -m subterminator_tui.rules.text`` writes it again.
4. Curly quotes become straight ones (people type straight quotes in rules).
5. Arabic short-vowel marks, shadda, sukun and the stretching tatweel are dropped:
   writers add them or leave them out at will ("تمّ" and "تم", "تلقائيًا" and
   "تلقائيا" are one word), and no rule can list every way of writing them.
"""

from __future__ import annotations

import functools
import json
import re
import tomllib
import unicodedata
from pathlib import Path

# Pages print curly quotes; people type straight ones. Arabic harakat (fathatan to
# sukun), the superscript alef and the tatweel are optional in writing; they go.
_TYPOGRAPHY = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u201b": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"'}
    | dict.fromkeys([*range(0x064B, 0x0653), 0x0670, 0x0640])
)


def normalise_text(text: str) -> str:
    """``text`` as every rule reads it (see the module docstring); idempotent."""
    if text.isascii():
        return text
    return _normalise(text)


def fold_text(text: str) -> str:
    """:func:`normalise_text`, case-folded: how substring conditions compare."""
    return normalise_text(text).casefold()


@functools.lru_cache(maxsize=512)
def _normalise(text: str) -> str:
    composed = unicodedata.normalize("NFKC", text)
    visible = "".join(
        _prototype(char) if not char.isascii() else char
        for char in composed
        if unicodedata.category(char) != "Cf"
    )
    # A prototype can itself be a compatibility form; NFKC again keeps the result stable.
    return unicodedata.normalize("NFKC", visible).translate(_TYPOGRAPHY)


#: Each character the confusables table gives an ASCII look-alike for, with that look-alike.
PROTOTYPES_FILE = Path(__file__).with_name("confusable_prototypes.toml")


@functools.cache
def _prototypes() -> dict[str, str]:
    saved: dict[str, str] = tomllib.loads(PROTOTYPES_FILE.read_text(encoding="utf-8"))["prototypes"]
    return saved


def _prototype(char: str) -> str:
    """The ASCII look-alike Unicode's confusables table gives ``char``, else ``char``."""
    return _prototypes().get(char, char)


def computed_prototypes() -> dict[str, str]:
    """Every non-ASCII character the confusables table finds confusable with a Latin or
    common one, with the first printable ASCII homoglyph it gives, in code point order."""
    # Imported here: only writing or checking the saved file reads the library's tables.
    from confusable_homoglyphs import confusables

    found: dict[str, str] = {}
    for char in sorted(key for key in confusables.confusables_data if len(key) == 1):
        if char.isascii():
            continue
        confusable = confusables.is_confusable(char, preferred_aliases=["latin", "common"])
        for homoglyph in confusable[0]["homoglyphs"] if confusable else ():
            candidate = str(homoglyph["c"])
            if candidate.isascii() and candidate.isprintable():
                found[char] = candidate
                break
    return found


def write_prototypes_file(path: Path = PROTOTYPES_FILE) -> None:
    """Save :func:`computed_prototypes` to ``path``, each character escaped and named."""
    lines = [
        "# Written by `python -m subterminator_tui.rules.text` from Unicode's confusables table",
        "# (TS #39, as confusable_homoglyphs carries it); test_rules_text checks it. Do not edit.",
        "[prototypes]",
    ]
    for char, prototype in computed_prototypes().items():
        name = unicodedata.name(char, f"U+{ord(char):04X}")
        lines.append(f'"\\U{ord(char):08X}" = {json.dumps(prototype)}  # {name}')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


#: A full stop that does not end a sentence: between figures ("30.6.2027"), or after a
#: day or a month written in one or two figures ("am 30. Juni", "do 30. června"), the
#: way German, Czech, Polish, Finnish and the Nordic languages write dates; after a year
#: before a figure, or after a figure before Hangul ("2025. 5. 3.까지"), as Korean does.
INNER_DOT = (
    r"(?:(?<=\d)\.(?=\d)|(?<=(?<!\d)\d{4})\.(?=[^\S\n]\d)|(?<=\d)\.(?=[\uac00-\ud7a3])"
    r"|(?<=(?<!\d)\d)\.(?=[^\S\n])|(?<=(?<!\d)\d\d)\.(?=[^\S\n]))"
)
_INNER_DOT = re.compile(INNER_DOT)
#: What :func:`mark_inner_dots` writes for an :data:`INNER_DOT`: a private-use character,
#: which no normalised text a rule writes holds, that is neither a full stop nor a letter.
INNER_DOT_MARK = "\ue000"


@functools.lru_cache(maxsize=256)
def mark_inner_dots(text: str) -> str:
    """``text`` with each full stop that does not end a sentence written as
    :data:`INNER_DOT_MARK`, the same length, so that every full stop left ends one.

    The rules built from the language tables read marked text: "a character of the same
    sentence" is then one character class, where it would otherwise be that class or
    :data:`INNER_DOT`'s five looks around a full stop. That alternation, repeated at every
    place a sentence is stepped through, made their expressions several times larger and
    slower to compile and to run, for the same judgements. (Cached: a page is read by
    hundreds of expressions.)
    """
    return _INNER_DOT.sub(INNER_DOT_MARK, text) if "." in text else text


if __name__ == "__main__":
    write_prototypes_file()
