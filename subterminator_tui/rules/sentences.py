"""The sentence judge: a language's table turned into the regular expressions rules read.

A success cue counts only in a sentence that states something happened. A sentence
is cut at . ! ? 。 ؟ । or a line break (each element of a page is its own line), and:

- a condition ("If you cancel, your plan will not renew") states nothing;
- a question ("Do you want your subscription cancelled?"), with a question mark or a
  question phrase, states nothing;
- a negation before the cue turns it around ("has not been cancelled");
- a stop "until" something ("You will not be charged again until 3 May") is a pause;
- a sentence that tells of a pause or a hold ("paused until 3 May"), or that the plan
  goes on after its date ("the trial ends on 3 May and then renews"), states no end;
  nor does any other sentence of a line that tells of a pause.

Dates are any date the language writes: day, month and year in figures, or with the
month's name as CLDR (Babel's data) spells it in that language, in every width. The
same tables give the built-in checkpoints, the money words and the controls; nothing
here names a language.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

from babel import Locale, UnknownLocaleError
from babel.units import format_unit

from subterminator_tui.rules.kept_expressions import compile_kept
from subterminator_tui.rules.language_words import (
    QUESTION_OPENERS,
    SENTENCE_ENDS,
    LanguageWords,
    all_language_words,
    in_sentence,
    phrase_regex,
    sentence_start,
)
from subterminator_tui.rules.required_words import required_words, required_words_of_list
from subterminator_tui.rules.text import INNER_DOT_MARK, normalise_text


def sentence_ends(words: LanguageWords) -> str:
    """The characters that end a sentence in ``words``' language (Greek ";" too; never an
    opening mark such as Spanish "¿", which starts a question inside a sentence)."""
    extra = "".join(
        mark
        for mark in words.sentence.question_marks
        if mark not in SENTENCE_ENDS and mark not in QUESTION_OPENERS
    )
    return SENTENCE_ENDS + extra


def _question_openers(words: LanguageWords) -> str:
    """The opening question marks ``words``' table lists, as a class body ("" if none)."""
    return re.escape("".join(m for m in words.sentence.question_marks if m in QUESTION_OPENERS))


def _within(words: LanguageWords, marked: bool) -> str:
    return in_sentence(sentence_ends(words), marked=marked)


def longest_first(alternatives: Iterable[str]) -> list[str]:
    """``alternatives`` in the order an alternation tries them: longest first (a shorter
    one may begin a longer one), then by text. Never a set's own order: that changes with
    each process's string hashing, and an expression must be the same in every process
    (rules built in one are kept and compared with another's)."""
    return sorted(alternatives, key=lambda alternative: (-len(alternative), alternative))


@functools.cache
def date_regex(tag: str, marked: bool = False) -> str:
    """Any date in ``tag``'s language: figures, or a CLDR month name beside a day or year
    (``marked``: read in text whose full stops inside a date are marked, see
    :func:`~subterminator_tui.rules.language_words.in_sentence`)."""
    # A full stop after a figure: in marked text, the mark (or a full stop that ends).
    dot = f"[.\\u{ord(INNER_DOT_MARK):04x}]" if marked else r"\."
    # Czech and Slovak write "30. 6. 2027", with a space after each full stop.
    numeric = (
        rf"\d{{1,4}}(?:[/-]|{dot}\s?)\d{{1,2}}(?:[/-]|{dot}\s?)\d{{2,4}}"
        # Korean writes "2025. 5. 3.", Chinese and Japanese "2025/5/3": a year first,
        # then a one-figure day.
        rf"|\d{{4}}(?:[/-]|{dot}\s?)\d{{1,2}}(?:[/-]|{dot}\s?)\d{{1,2}}{dot}?"
        r"|\d{2,4}\s*[年년]\s*\d{1,2}\s*[月월](?:\s*\d{1,2}\s*[日일号號])?"
        r"|\d{1,2}\s*[月월]\s*\d{1,2}\s*[日일号號]"
        # German and the Nordic languages leave the year out: "zum 30.06.", "til 30.6.".
        rf"|\d{{1,2}}{dot}\s?\d{{1,2}}{dot}(?!\s?\d)"
    )
    names = month_names(tag)
    if not names:
        return f"(?:{numeric})"
    months = "|".join(both_cases(re.escape(name)) for name in longest_first(names))
    month = rf"(?<!\w)(?:{months})\.?(?!\w)"
    day = rf"\d{{1,2}}(?:st|nd|rd|th|er|e|º|{dot})?"
    year = r"\d{4}"
    # Hebrew writes "31 בדצמבר": after a day the month may take a prefix.
    after_day = rf"(?:{months})\.?(?!\w)"
    named = (
        rf"{day}\s*(?:de\s+|of\s+|ב-?)?{after_day}(?:,?\s*(?:de\s+)?{year})?"
        rf"|{month}\s*{day}(?!\d)(?:,?\s*{year})?"
        rf"|{month}\s*{year}"
    )
    return f"(?:{numeric}|{named})"


@functools.cache
def month_names(tag: str) -> frozenset[str]:
    """Every month name CLDR has for ``tag`` (format and stand-alone, wide and abbreviated)."""
    try:
        locale = Locale.parse(tag.replace("-", "_"))
    except (ValueError, UnknownLocaleError):
        return frozenset()
    names: set[str] = set()
    for context in ("format", "stand-alone"):
        for width in ("wide", "abbreviated"):
            for name in locale.months[context][width].values():
                raw = str(name).rstrip(".").strip()
                # Figures ("1月") are read by the numeric forms; a one-letter name is noise.
                # (Judged before normalising: Cyrillic "б" reads as the figure "6".) A
                # word and a figure ("tháng 6") is a name.
                worded = " " in raw and any(char.isalpha() for char in raw)
                if len(raw) > 2 and (worded or not any(char.isdigit() for char in raw)):
                    names.add(normalise_text(raw))
    return frozenset(names)


#: Combining vowel signs and points (Devanagari, Hebrew, Arabic) are part of a word,
#: though not word characters to ``re``: "जून" must not end a word at its last "न".
#: (Written as escapes: the rules' text is normalised, and NFKC would join a mark to the
#: letter before it.)
_MARKS = (
    r"\u0300-\u036f\u0591-\u05c7\u064b-\u065f\u0670"
    r"\u0900-\u0903\u093a-\u094f\u0951-\u0957\u0962\u0963"
)
#: The stretches of time an offer counts in ("3 months free", "no charge for 2 weeks").
_OFFER_UNITS = ("duration-day", "duration-week", "duration-month")
#: Unit words that are also the parts of a written date.
_DATE_MARKS = frozenset("年년月월日일号號")


@functools.cache
def duration_regex(tag: str, spaced: bool) -> str:
    """A counted stretch of days, weeks or months in ``tag``'s language ("3 months",
    "3 Monate", "3 miesiące", "3개월"), from CLDR's unit patterns (Babel's data).

    A spaced language's unit word is read from its first letters on, so that every case
    ending counts ("3 kuukautta", "3 kuukauteen").
    """
    try:
        locale = Locale.parse(tag.replace("-", "_"))
    except (ValueError, UnknownLocaleError):
        return r"(?!x)x"
    units: set[str] = set()
    # Vietnamese dates say "30 tháng 6": a unit word that starts a month's name is not one.
    month_words = {word.casefold() for name in month_names(tag) for word in name.split()}
    for unit in _OFFER_UNITS:
        for length in ("long", "short"):
            for count in (1, 2, 3, 5, 11, 21):
                text = format_unit(count, unit, length=length, locale=locale)
                if not re.search(r"\d", text):
                    continue
                word = normalise_text(re.sub(r"\d+", "", text).strip(" .\u00a0\u202f"))
                if not word:
                    continue
                if spaced:
                    # A short abbreviation ("m." for mois) is read whole, or not at all
                    # when a month's name could start with it ("14 mars").
                    stem = word.split()[0].rstrip(".")
                    if any(month.startswith(stem[:4].casefold()) for month in month_words):
                        continue
                    if len(stem) > 2:
                        units.add(both_cases(re.escape(stem[:4])) + r"\w*")
                    elif len(stem) == 2:
                        units.add(both_cases(re.escape(stem)))
                elif word not in _DATE_MARKS:
                    # "30일", "30日" end a date as often as they count days.
                    units.add(both_cases(re.escape(word)))
    if not units:
        return r"(?!x)x"
    return rf"\d+\s*(?:{'|'.join(longest_first(units))})"


def alternation(
    words: LanguageWords,
    phrases: Iterable[str],
    *,
    biller: str = "",
    skip: str = "",
    marked: bool = False,
) -> str:
    """``phrases`` as one group, placeholders filled, with word edges in spaced languages.

    ``skip``: no word inside a phrase's gaps may start with it (a negation). ``marked``:
    read in text whose inner full stops are marked (see
    :func:`~subterminator_tui.rules.language_words.in_sentence`).
    """
    ends = sentence_ends(words)
    filled = [
        _fill(words, phrase, biller=biller, ends=ends, skip=skip, marked=marked)
        for phrase in phrases
    ]
    group = "|".join(f"(?:{item})" for item in filled)
    if words.spaced:
        return rf"(?<![\w{_MARKS}])(?:{group})(?![\w{_MARKS}])"
    return f"(?:{group})"


def as_written(text: str) -> str:
    """``text`` (a phrase, or a word of one) as a built expression writes it: each letter
    read in either case, then normalised, as the page it reads is."""
    return normalise_text(both_cases(text))


def both_cases(regex: str) -> str:
    """``regex`` normalised so that it reads either case of each letter.

    The normaliser maps a letter to its Latin look-alike, and only some cases have one
    (Cyrillic "В" reads as Latin "B", "в" stays): a phrase written in lower case must
    still read a page written in upper case.
    """
    out: list[str] = []
    in_class = False
    escaped = False
    for char in regex:
        if escaped or char == "\\":
            out.append(char)
            escaped = not escaped and char == "\\"
            continue
        if char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class:
            in_class = False
        out.append(_either_case(char, in_class))
    return "".join(out)


@functools.cache
def _either_case(char: str, in_class: bool) -> str:
    """``char`` as :func:`both_cases` writes it (cached: the tables repeat their letters)."""
    if char.isascii():
        return char
    forms = {normalise_text(char.lower()), normalise_text(char.upper()), normalise_text(char)}
    single = sorted(form for form in forms if len(form) == 1)
    # A capital can read as two Latin letters (Cyrillic "Ю" as "lO"): outside a
    # class, that spelling is one more way to write the letter.
    several = sorted(form for form in forms if len(form) > 1) if not in_class else []
    uncased = char.lower() == char.upper()
    if uncased or not char.isalpha() or (len(single) < 2 and not several):
        return char
    letters = "".join(single)
    if several:
        spelled = "|".join(re.escape(form) for form in several)
        return f"(?:[{letters}]|{spelled})"
    return letters if in_class else f"[{letters}]"


# Cached: the same phrase is filled for many rules (a table's subjects, negations and
# markers go into every sentence rule of its language), and filling reads each letter.
@functools.cache
def _fill(
    words: LanguageWords, phrase: str, *, biller: str, ends: str, skip: str, marked: bool
) -> str:
    # Each letter's cases are read before normalising: Greek "σ" reads as Latin "o",
    # its capital "Σ" does not.
    plain = as_written(phrase)
    regex = phrase_regex(plain, spaced=words.spaced, ends=ends, skip=skip, marked=marked)

    def value(name: str) -> str:
        if name == "subject":
            return alternation(words, words.success.subject, marked=marked)
        if name == "cancelled":
            return alternation(words, words.success.cancelled, marked=marked)
        if name == "date":
            return date_regex(words.language, marked)
        return f"(?:{biller})" if biller else r"(?!x)x"

    return re.sub(r"\{(subject|cancelled|date|biller)\}", lambda m: value(m.group(1)), regex)


def _words_before(words: LanguageWords, marked: bool, skip: str = "") -> str:
    """The words of a sentence before a cue, none starting with ``skip`` and none past an
    opening question mark ("¿"), since what follows one is asked.

    A spaced language steps a word at a time (a cue starts only where a word does): far
    fewer tries than a character at a time, on a page of many sentences.
    """
    guard = f"(?!{skip})" if skip else ""
    openers = _question_openers(words)
    if words.spaced:
        other = in_sentence(sentence_ends(words), also=r"\w" + openers, marked=marked)
        return rf"{other}*(?:{guard}\w+{other}+)*?"
    return f"(?:{guard}{in_sentence(sentence_ends(words), also=openers, marked=marked)})*?"


@functools.cache
def script_letters(words: LanguageWords) -> str:
    """The letters of the table's own script, or "" for a language written in Latin.

    A language written in another script (Cyrillic, Greek, Arabic, Hebrew, Devanagari,
    Thai, Hangul, kana, Han) has no sentence without one of its letters.
    """
    letters = {
        char
        for phrases in words.lists().values()
        for phrase in phrases
        for char in normalise_text(phrase)
        if char.isalpha() and not char.isascii()
    }
    foreign = {char for char in letters if not unicodedata.name(char, "").startswith("LATIN")}
    if not foreign or len(foreign) < len(letters) // 2:
        return ""
    return "".join(sorted(foreign))


@functools.cache
def script_gate(words: LanguageWords, marked: bool = False) -> str:
    """A look at a sentence for one of :func:`script_letters`, or "" for Latin: every
    other sentence is passed over with one quick look instead of being read word by word.
    """
    letters = script_letters(words)
    if not letters:
        return ""
    return f"(?={_within(words, marked)}*?[{re.escape(letters)}])"


def _not_a_question(words: LanguageWords, marked: bool) -> str:
    """No question mark closes the rest of the sentence.

    Where the language opens a question ("¿"), a closing mark after a new opening one
    closes that question only: "... ha sido cancelada ¿Quieres volver?" states the
    cancellation. An opening mark after a comma tags the sentence ("..., ¿verdad?"),
    and the whole of it is asked.
    """
    closers = (m for m in words.sentence.question_marks if m not in QUESTION_OPENERS)
    marks = "".join(re.escape(mark) for mark in closers)
    openers = _question_openers(words)
    if not openers:
        return rf"(?!{_within(words, marked)}*[{marks}])"
    new_question = rf"(?<![,;:])(?<![,;:]\s)[{openers}]"
    return rf"(?!(?:(?!{new_question}){_within(words, marked)})*[{marks}])"


def statement_regex(
    words: LanguageWords, phrases: Iterable[str], *, negatable: bool, marked: bool = False
) -> str:
    """A sentence (not a condition or a question) that holds one of ``phrases``.

    ``negatable``: a negation anywhere before the end of the phrase turns it around.
    ``marked``: read in text whose inner full stops are marked.
    """
    start = sentence_start(sentence_ends(words), marked=marked)
    return f"(?m){start}{_statement(words, phrases, negatable, marked)}"


def _statement(
    words: LanguageWords,
    phrases: Iterable[str],
    negatable: bool,
    marked: bool,
    biller: str = "",
    after: str = "",
    also_not: str = "",
) -> str:
    """What follows a sentence's start in :func:`statement_regex` (``after``: a check
    right after the phrase, such as no "until" in the same clause; ``also_not``: what
    else makes the sentence state nothing, besides the language's markers).

    The phrase is looked for first (most sentences hold none), and only then whether the
    sentence is a condition or a question.
    """
    negation = alternation(words, words.sentence.negation, marked=marked)
    if negatable:
        phrase = alternation(words, phrases, skip=negation, biller=biller, marked=marked)
        body = f"{_words_before(words, marked, negation)}{phrase}(?!\\s*{negation})"
    else:
        phrase = alternation(words, phrases, biller=biller, marked=marked)
        body = f"{_words_before(words, marked)}{phrase}"
    body += after
    markers = alternation(
        words, (*words.sentence.condition, *words.sentence.question), marked=marked
    )
    if also_not:
        markers = f"(?:{markers}|{also_not})"
    return (
        f"{script_gate(words, marked)}(?={body})"
        f"(?!{_words_before(words, marked)}{markers})"
        f"{body}{_not_a_question(words, marked)}"
    )


def naming_statement_regex(
    tables: Iterable[LanguageWords], names: str, *, marked: bool = False
) -> str:
    """A sentence that names ``names`` (a company, as a regular expression) and holds one
    of a language's billed-elsewhere phrases, in any of ``tables``' languages.

    The name is looked for once per sentence, before any language's words.
    """
    tables = tuple(tables)
    every_end = "".join(sorted({char for t in tables for char in sentence_ends(t)}))
    named = rf"(?={in_sentence(every_end, marked=marked)}*?(?:{both_cases(names)}))"
    bodies = "|".join(
        f"(?:{_statement(words, words.endings.billed_elsewhere, False, marked, names)})"
        for words in tables
    )
    return f"(?m){sentence_start(every_end, marked=marked)}{named}(?:{bodies})"


def line_regex(words: LanguageWords, phrases: Iterable[str], *, marked: bool = False) -> str:
    """A line that says only one of ``phrases`` (a heading, a title, a status value)."""
    return rf"(?m)^\s*{alternation(words, phrases, marked=marked)}\s*[.!。！]?\s*$"


def status_regex(words: LanguageWords, *, marked: bool = False) -> str:
    """A status label beside a cancelled value: "Status: Cancelled", "Abo: gekündigt".

    The line may follow another sentence ("No active subscriptions. Status: Canceled")
    and the label may carry a word or two before it ("Premium membership: cancelled").
    """
    ends = re.escape(sentence_ends(words))
    label = alternation(words, (*words.success.status_label, *words.success.subject), marked=marked)
    value = alternation(words, words.success.cancelled, marked=marked)
    named = r"(?:[^\W\d]+[^\S\n]+){0,2}" if words.spaced else rf"[^{ends}:：\s]{{0,6}}"
    # Beside a colon the value may run on ("Status: Cancelled on 3 May"); on the next
    # line it must stand alone or end at a separator, or a page headed "Account" would
    # read as a status line over any text that starts with "Cancelled" ("Cancelled
    # subscriptions cannot be restored").
    return (
        rf"(?m){sentence_start(sentence_ends(words), marked=marked)}\s*{named}{label}"
        rf"(?:\s*[:：]\s*{value}\s*(?:[.!。]|$|\s)"
        rf"|[^\S\n]*\n\s*{value}[^\S\n]*(?:$|[.!。,;·•|(–—-]))"
    )


#: What each success pattern states, for the rule that reads it.
SUCCESS_KINDS: dict[str, str] = {
    "stated": "the subscription is cancelled",
    "stopped": "charges or renewals stop",
    "continues": "access continues until a date",
    "status": "a status line reads cancelled",
    "heading": "a line alone says the cancellation is done",
}


#: The success patterns that are statements (each read through :func:`_statement`, so each
#: holds one of :func:`script_letters` where the language has its own).
STATEMENT_KINDS = frozenset({"stated", "stopped", "continues"})


def success_patterns(words: LanguageWords, *, marked: bool = False) -> dict[str, str]:
    """The text patterns that confirm a cancellation in ``words``' language, by kind.

    Each kind is its own rule: a confirmation page before the last click may already say
    "your access continues until May 3" or "after that you will not be charged", and the
    page after it is evidence only through a rule that did not hold before.
    """
    clause = in_sentence(sentence_ends(words), also=",;、，", marked=marked)
    future = alternation(words, words.sentence.future, marked=marked)
    # A pause, or a plan that goes on, states no end; only here (the renewal rules read
    # "renews" as what it is).
    goes_on = alternation(words, (*words.sentence.pause, *words.sentence.goes_on), marked=marked)
    start = f"(?m){sentence_start(sentence_ends(words), marked=marked)}"
    success = words.success
    patterns = {
        "stated": start + _statement(words, success.stated, True, marked, also_not=goes_on),
        "stopped": start
        + _statement(
            words,
            success.stopped,
            False,
            marked,
            after=f"(?!{clause}*?{future})",
            # "No charge for 3 months" is an offer to stay, not a stop.
            also_not=f"(?:{goes_on}|{duration_regex(words.language, words.spaced)})",
        ),
        "continues": start + _statement(words, success.continues, True, marked, also_not=goes_on),
        "status": status_regex(words, marked=marked),
        "heading": line_regex(words, success.heading, marked=marked),
    }
    # A line that is still before the end ("You're about to cancel. Your plan ends on
    # 3 May."), that tells of a payment ("Payment received. Active until 3 May 2028.") or
    # of a pause ("You've paused your plan. Your access ends on 3 May.": the end is the
    # pause's) confirms nothing: each pattern is read from the start of a line that has none.
    not_yet = alternation(words, (*words.sentence.not_yet, *words.sentence.pause), marked=marked)
    # The start must stay on the guarded line: a line's end also starts a sentence.
    guard = f"(?m)^(?![^\\n]*?{not_yet})[^\\n]*?(?!\\n)"
    return {kind: guard + pattern.removeprefix("(?m)") for kind, pattern in patterns.items()}


def success_phrases(words: LanguageWords) -> dict[str, tuple[str, ...] | None]:
    """The phrases each of :func:`success_patterns`' kinds is built from (``None``: a
    status line, whose value is one of the cancelled-words whatever its label)."""
    success = words.success
    return {
        "stated": success.stated,
        "stopped": success.stopped,
        "continues": success.continues,
        "status": None,
        "heading": success.heading,
    }


def words_needed(words: LanguageWords, phrases: tuple[str, ...] | None) -> tuple[str, ...]:
    """The words one of which every match of ``phrases`` (``None``: of the cancelled-words)
    holds, as a built expression writes them (normalised, either case), or () when there
    are none to look for."""
    if phrases is None:
        needed = required_words_of_list(words, "cancelled")
    else:
        needed = required_words(words, phrases)
    return tuple(sorted({as_written(word) for word in needed}))


def control_regex(
    words: LanguageWords, phrases: Iterable[str], *, anchored: bool = False, marked: bool = False
) -> str:
    """A control's name holding one of ``phrases`` (``anchored``: at its start)."""
    return (r"^\s*" if anchored else "") + alternation(words, phrases, marked=marked)


def every_language(pick: str) -> str:
    """One alternation of the list ``pick`` (e.g. ``controls.resume``) of every language."""
    parts = []
    for words in all_language_words():
        group, name = pick.split(".")
        parts.append(alternation(words, getattr(getattr(words, group), name)))
    return "|".join(parts)


@functools.cache
def every_language_pattern(pick: str) -> re.Pattern[str]:
    """:func:`every_language`, compiled case-insensitively (cached per list)."""
    return compile_kept(every_language(pick), re.IGNORECASE)
