"""Words as data: what the rules recognise in each language, one table per language.

Every list a rule reads (success cues, failure, cancel and resume controls, commit
words, the words a request's address uses for ending a subscription, money words,
sign-in, code, captcha, offline and billed-elsewhere endings, and the markers that
make a sentence a condition, a question, a negation or a pause)
lives in ``words/<language>.toml`` beside this module, validated by the strict models
below. Adding a language is one table: nothing in the code names a language.

A phrase is a regular expression written for people:

- a space stands for any run of white space (``has been cancelled``); in languages
  written without spaces (``spaced = false``) it may also be no space at all;
- `` ... `` stands for up to 60 characters of the same sentence (``plan ... has
  been cancelled`` also reads "plan to Foo Plus has been cancelled");
- ``{subject}``, ``{cancelled}`` and ``{date}`` stand for the table's own subjects,
  cancelled-words and any date in the language (month names from CLDR); ``{biller}``
  for the company a billed-elsewhere rule names.

Word edges are added around each list in spaced languages, so ``plan`` never matches
inside "planned". Every phrase is checked when the table is read (compiled, unless it is
plain words, which always compile); an error names the file and the key
(``words/de.toml: key 'success.stated[2]': ...``).
"""

from __future__ import annotations

import functools
import re
import tomllib
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator, ValidationError, ValidationInfo

from subterminator_tui.errors import ServiceConfigError
from subterminator_tui.rules.check_stamps import remember_checked, was_checked
from subterminator_tui.rules.fields import STRICT_MODEL_CONFIG, as_tuple
from subterminator_tui.rules.problems import describe_error, key_path
from subterminator_tui.rules.text import INNER_DOT, normalise_text

WORDS_DIR = Path(__file__).resolve().parent / "words"

#: Sentence ends every language shares (after NFKC: "？" is "?", "！" is "!").
SENTENCE_ENDS = ".!?。！？؟।\n"
#: Marks that open a question instead of ending one (Spanish writes "¿...?"). A table
#: lists one among its question marks; it never ends a sentence, and what follows it is
#: asked.
QUESTION_OPENERS = "¿"
#: Up to this many characters of one sentence stand between two parts of a phrase.
GAP = 60
#: Placeholders a phrase may use, filled per language (a date) or per rule (a biller).
PLACEHOLDERS = ("subject", "cancelled", "date", "biller")
_PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")


def in_sentence(ends: str = SENTENCE_ENDS, *, also: str = "", marked: bool = False) -> str:
    """One character of a sentence: none of ``ends`` (nor ``also``, a regular expression
    class body such as ``\\w``), or a full stop that does not end it (:data:`INNER_DOT`).

    ``marked``: for text read through :func:`~subterminator_tui.rules.text.mark_inner_dots`,
    where such a full stop is already another character and one class says it all.
    """
    if marked:
        return f"[^{re.escape(ends)}{also}]"
    return f"(?:[^{re.escape(ends)}{also}]|{INNER_DOT})"


def sentence_start(ends: str = SENTENCE_ENDS, *, marked: bool = False) -> str:
    """Where a sentence starts: a line's start or just after one of ``ends`` (a full stop
    only where it ends a sentence; in ``marked`` text, every full stop does)."""
    if marked:
        return f"(?:^|[{re.escape(ends)}])"
    others = re.escape(ends.replace(".", ""))
    dot = f"|(?!{INNER_DOT})\\." if "." in ends else ""
    return f"(?:^|[{others}]{dot})"


def phrase_regex(
    phrase: str, *, spaced: bool, ends: str = SENTENCE_ENDS, skip: str = "", marked: bool = False
) -> str:
    """``phrase`` as a regular expression: spaces, `` ... `` gaps (placeholders kept).

    ``skip`` is a regular expression no word inside a gap may start with (a negation);
    ``marked`` as for :func:`in_sentence`.
    """
    # White space inside one line: each element of a page is its own line.
    space = r"[^\S\n]+" if spaced else r"[^\S\n]*"
    return _joined_phrase(
        phrase, space, gap_regex(spaced=spaced, ends=ends, skip=skip, marked=marked)
    )


def _joined_phrase(phrase: str, space: str, gap: str) -> str:
    """``phrase``'s words joined by ``space`` and its `` ... `` parts by ``gap``."""
    parts = [part.strip() for part in phrase.split(" ... ")]
    return gap.join(_join_words(part.split(), space) for part in parts)


def gap_regex(
    *, spaced: bool, ends: str = SENTENCE_ENDS, skip: str = "", marked: bool = False
) -> str:
    """Up to :data:`GAP` characters of one sentence between two parts of a phrase.

    In a spaced language the gap steps a word at a time (after a word, before one),
    which is what keeps a page of many sentences quick to read; ``skip`` is what no word
    in it may start with.
    """
    guard = f"(?!{skip})" if skip else ""
    if spaced:
        other = in_sentence(ends, also=r"\w", marked=marked)
        return f"{other}+(?:{guard}\\w+{other}+){{0,{GAP // 6}}}?"
    return f"(?:{guard}{in_sentence(ends, marked=marked)}){{0,{GAP // 2}}}?"


def _join_words(words: list[str], space: str) -> str:
    """Words joined by ``space``; a whole optional group takes its space along with it,
    so ``charged (?:again)?`` also reads "charged" at the end of a sentence."""
    joined = words[0] if words else ""
    for word in words[1:]:
        if _whole_optional_group(word):
            joined += f"(?:{space}{word[:-1]})?"
        else:
            joined += space + word
    return joined


def _whole_optional_group(word: str) -> bool:
    """Whether ``word`` is one group made optional: ``(?:again)?``, not ``(?:a)?(?:b)``."""
    if not (word.startswith("(") and word.endswith(")?")):
        return False
    depth = 0
    for index, char in enumerate(word[:-1]):
        if index and word[index - 1] == "\\":
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0 and index != len(word) - 2:
                return False
    return depth == 0


#: The validation context's key saying this table's exact bytes already passed the phrase
#: check (``check_stamps``): the phrases are not compiled again.
PHRASES_CHECKED = "phrases_checked"


def _check_phrases_once(values: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
    """:func:`_check_phrases`, unless this table's exact bytes already passed it."""
    if info.context and info.context.get(PHRASES_CHECKED):
        return values
    return _check_phrases(values)


def _check_phrases(values: tuple[str, ...]) -> tuple[str, ...]:
    """Every phrase compiles, with placeholders filled by a stand-in, and is not blank."""
    for index, value in enumerate(values):
        if not value.strip():
            raise ValueError(f"item {index} is empty; an empty phrase would match every page")
        if re.search(r"\s[?*+]", value.replace(" ... ", " ")):
            raise ValueError(
                f"item {index} ('{value}'): a space stands for one or more spaces, so it "
                "cannot be optional; write \\s? (or \\s*) instead"
            )
        normalised = normalise_text(value)
        if _plain_words(normalised):
            continue
        try:
            compiled = re.compile(checked_phrase_regex(normalised), re.IGNORECASE)
        except re.error as error:
            raise ValueError(f"item {index} ('{value}') is not a valid phrase: {error}") from None
        if compiled.search("") is not None:
            raise ValueError(f"item {index} ('{value}') matches an empty text")
    return values


#: What stands for a space and for a gap in :func:`checked_phrase_regex`. Each begins as
#: the real one does (a class), ends in the same kind of repeat (greedy for a space, lazy
#: for a gap) and needs at least one character, as the real one does: so what comes before
#: or after reads the same, and a phrase compiles, or matches an empty text, with the
#: stand-ins exactly when it does with the real ones.
_SPACE_STAND_IN = "[ ]+"
_GAP_STAND_IN = "[_]+?"


def checked_phrase_regex(normalised: str) -> str:
    """The expression a phrase is checked as: its :func:`phrase_regex` with each space and
    gap a short stand-in, and each placeholder a letter.

    Every process that reads the tables checks every phrase; the real spaces and gaps are
    long classes that only multiply what it compiles (twice as much), and the phrase's
    own syntax is what can fail.
    """
    return _PLACEHOLDER.sub("x", _joined_phrase(normalised, _SPACE_STAND_IN, _GAP_STAND_IN))


#: The characters that make a phrase more than plain words to a regular expression.
_REGEX_SYNTAX = re.compile(r"[.^$*+?{}\[\]\\|()]")


def _plain_words(normalised: str) -> bool:
    """Whether a (normalised) phrase is plain words and `` ... `` gaps only.

    Its regular expression is then literal letters joined by white space and gaps, so it
    compiles and needs at least one character: compiling it to check would only cost time
    (two thirds of all phrases, in every process that reads the tables).
    """
    return bool(normalised.strip()) and not _REGEX_SYNTAX.search(normalised.replace(" ... ", " "))


def _require_items(values: tuple[str, ...]) -> tuple[str, ...]:
    if not values:
        raise ValueError("the list is empty: every language fills every list")
    return values


def _check_marks(values: tuple[str, ...]) -> tuple[str, ...]:
    for index, value in enumerate(values):
        if len(value) != 1 or value.isalnum() or value.isspace():
            raise ValueError(f"item {index} ('{value}') is not one punctuation character")
    return values


#: Punctuation characters, one per item.
Marks = Annotated[
    tuple[str, ...],
    BeforeValidator(as_tuple),
    AfterValidator(_require_items),
    AfterValidator(_check_marks),
]
#: A list of phrases: at least one, each a valid phrase.
Phrases = Annotated[
    tuple[str, ...],
    BeforeValidator(as_tuple),
    AfterValidator(_require_items),
    AfterValidator(_check_phrases_once),
]


class SentenceWords(BaseModel):
    """The markers that change what a sentence states."""

    model_config = STRICT_MODEL_CONFIG

    condition: Phrases
    """A sentence with one of these is a condition ("if", "wenn", "もし"): it states nothing."""
    question: Phrases
    """Phrases that make a sentence a question even without a question mark."""
    question_marks: Marks
    """The characters that end a question in this language ("?", Greek ";", Arabic "؟"), and
    one that opens it where the language writes one (Spanish "¿", see QUESTION_OPENERS)."""
    negation: Phrases
    """A negation before a success cue turns it around ("has not been cancelled")."""
    future: Phrases
    """Words that put a stop off until later ("until", "bis"): no charge until a date is a pause."""
    pause: Phrases
    """A sentence with one of these tells of a pause or a hold ("paused", "pausiert",
    "一時停止"): what it says stops comes back, so it states no end."""
    not_yet: Phrases
    """A line with one of these is before the end or after a renewal ("you're about to
    cancel", "payment received"): no sentence on that line states a cancellation."""
    goes_on: Phrases
    """A sentence with one of these says the plan goes on: it renews after the date it
    names ("then renews", "verlängert sich", "then charged"), only its trial ends ("trial
    ends on"), or a change to it is what was cancelled ("plan change"). It states no end.
    Written so the negated form ("will not renew") does not hold."""


class SuccessWords(BaseModel):
    """What a page says after a cancellation."""

    model_config = STRICT_MODEL_CONFIG

    subject: Phrases
    """What is cancelled: subscription, membership, plan, trial, account ..."""
    cancelled: Phrases
    """The state words: cancelled, terminated, ended (``{cancelled}``)."""
    stated: Phrases
    """Statements that it happened; a negation before one does not count."""
    stopped: Phrases
    """Statements that charges or renewals stop ("will not renew"); a following
    "until" turns them into a pause."""
    continues: Phrases
    """Access or benefits that go on "until <date>" without the word cancelled."""
    status_label: Phrases
    """Labels of a status line ("Status: Cancelled")."""
    heading: Phrases
    """A line (heading or title) that says it alone ("Cancellation confirmed")."""


class FailureWords(BaseModel):
    """What a page says when the cancellation failed."""

    model_config = STRICT_MODEL_CONFIG

    error: Phrases
    """Error messages ("Something went wrong")."""


class ControlWords(BaseModel):
    """The names of buttons and links, and of the steps a person approves."""

    model_config = STRICT_MODEL_CONFIG

    cancel: Phrases
    """A control that cancels or confirms the cancellation: still shown, it is not finished."""
    resume: Phrases
    """A control that brings a cancelled subscription back (shown only once cancelled)."""
    not_a_cancellation: Phrases
    """Steps that keep, pause, buy or change the plan: approving one proves no cancellation."""
    commit: Phrases
    """Irreversible or money-moving steps: the built-in checkpoints ask before them."""


class MoneyWords(BaseModel):
    """Words that say money moves, beside an amount or a saving."""

    model_config = STRICT_MODEL_CONFIG

    charge: Phrases
    """Money moves now or is billed ("today", "billed", "heute", "請求")."""
    plan: Phrases
    """A plan change or an offer (annual, upgrade, switch, stay on, a tier)."""
    tier: Phrases
    """A plan's tier or period (Premium, Plus, Family, monthly): money only beside a saving."""
    saving: Phrases
    """A saving that needs no amount beside a plan word or a tier ("save 20%", "20% off")."""
    free_then: Phrases
    """A free period that turns into a charge ("free for 3 months, then")."""
    decline: Phrases
    """A control that plainly turns the offer down ("No thanks", "Continue to cancel")."""
    amount_field: Phrases
    """Request field names that hold an amount (amount, price, Betrag)."""
    currency_field: Phrases
    """Request field names that hold a currency (currency, Währung)."""


class HandoffWords(BaseModel):
    """Pages that need the person: sign-in, a verification code, a bot check."""

    model_config = STRICT_MODEL_CONFIG

    sign_in: Phrases
    """Sign-in headings ("Sign in", "Anmelden")."""
    password: Phrases
    """A password field's name."""
    code: Phrases
    """Text asking for a verification code."""
    code_field: Phrases
    """A verification-code field's name (code, PIN, digits)."""
    captcha: Phrases
    """A bot check in words ("I'm not a robot")."""


class EndingWords(BaseModel):
    """Endings no click can reach, and an account's state seen later."""

    model_config = STRICT_MODEL_CONFIG

    offline_only: Phrases
    """Cancelling takes a phone call, a chat or a letter."""
    billed_elsewhere: Phrases
    """Another company ({biller}) bills the subscription."""
    renewed: Phrases
    """The plan renewed or a payment was taken."""
    active: Phrases
    """The plan renews or names its next payment."""


class ConsentWords(BaseModel):
    """Cookie and consent banners: answered with the most private choice, never asked."""

    model_config = STRICT_MODEL_CONFIG

    banner: Phrases
    """A banner's or a preference center's name ("Cookie banner", "Privacy preferences")."""
    private_choice: Phrases
    """Its most private answer ("Reject all", "Necessary cookies only", "Alle ablehnen")."""


class CommitWords(BaseModel):
    """How a request's address, operation name or fields say it ends the subscription.

    Read against identifiers split into lower-case words (``/api/cancel-subscription`` is
    ``cancel subscription``; ``cancelSubscription`` too), each phrase matching a whole part.
    Services in every language put these words in their addresses, often transliterated
    (``kuendigen``, ``resilier``, ``kaiyaku``), so a table lists both spellings.
    """

    model_config = STRICT_MODEL_CONFIG

    operation: Phrases
    """Ending the subscription or the account, as a path part or an operation name."""
    finishing: Phrases
    """A path part that finishes the operation named before it (``/cancel/confirm``)."""
    asking: Phrases
    """Finishing words that as often name the page that asks (a GET there only shows a form)."""
    subject: Phrases
    """What a subscription is called in a path (``/membership/finish``), and what a verb of
    :attr:`ending` ends (a pledge, a newsletter, automatic renewal)."""
    ending: Phrases
    """Verbs that end the subject beside them, in a path (``/account/delete``), a field's
    name (``delete_account``) or a form control's words ("Stop the ... subscription")."""
    passing: Phrases
    """Path parts that only pass through the flow (``/cancel/survey``, ``/offer/decline``,
    a pause, a resume, a sign-out): whatever its button says, the request is no commit."""
    finish_label: Phrases
    """Words on a control that finish a step ("Finish", "Confirm", "Yes", "Done"): a link
    that says one may commit, where one that names only the operation opens the flow."""


class LanguageWords(BaseModel):
    """One language's table (``words/<language>.toml``)."""

    model_config = STRICT_MODEL_CONFIG

    language: str
    """The BCP 47 tag (``en``, ``zh-Hant``); the file is named after it."""
    name: str
    """The language's English name, for messages and the docs."""
    spaced: bool
    """Words are separated by spaces (False for Japanese, Chinese and Thai)."""
    sentence: SentenceWords
    success: SuccessWords
    failure: FailureWords
    controls: ControlWords
    money: MoneyWords
    handoff: HandoffWords
    endings: EndingWords
    consent: ConsentWords
    commit: CommitWords

    def __hash__(self) -> int:
        # Equal tables are of the same language, so this agrees with equality; hashing
        # every list instead would cost more than the builders' caches keyed by a table save.
        return hash(self.language)

    def lists(self) -> dict[str, tuple[str, ...]]:
        """Every list of the table by its dotted key (``success.stated``)."""
        found: dict[str, tuple[str, ...]] = {}
        parts = ("sentence", "success", "failure", "controls", "money", "handoff", "endings")
        for part in (*parts, "consent", "commit"):
            group = getattr(self, part)
            for name in type(group).model_fields:
                found[f"{part}.{name}"] = getattr(group, name)
        return found


def read_language_words(path: Path) -> LanguageWords:
    """Parse and validate one table; ServiceConfigError names the file and the key."""
    try:
        content = path.read_bytes()
        data = tomllib.loads(content.decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ServiceConfigError(f"{path}: cannot be read: {error}") from None
    checked = was_checked(path, content)
    try:
        words = LanguageWords.model_validate(data, context={PHRASES_CHECKED: checked})
    except ValidationError as error:
        problems = [
            f"{path}: key '{key_path(detail['loc'])}': {describe_error(detail)}"
            for detail in error.errors(include_url=False)
        ]
        raise ServiceConfigError("\n".join(problems)) from None
    if words.language != path.stem:
        raise ServiceConfigError(
            f"{path}: key 'language': '{words.language}' does not match the file's name"
        )
    if not checked:
        remember_checked(path, content)
    return words


@functools.cache
def all_language_words() -> tuple[LanguageWords, ...]:
    """Every built-in table, English first (its words explain best), then by tag."""
    paths = sorted(WORDS_DIR.glob("*.toml"), key=lambda path: (path.stem != "en", path.stem))
    if not paths:
        raise ServiceConfigError(f"{WORDS_DIR}: no language tables found")
    return tuple(read_language_words(path) for path in paths)


def languages() -> tuple[str, ...]:
    """The tags of every built-in table."""
    return tuple(words.language for words in all_language_words())
