"""What the rules compile, and when: no judgement may change for being compiled later or less.

Compiling every language's expressions takes seconds of CPU; a process that lists
services or starts the server reads none of them. The built-in generic rules' expressions
are compiled when first read: each is the one :func:`compile_pattern` gives for the same
text, and every one of them compiles (this is where the whole set is compiled eagerly).
A table's phrase that is plain words is not compiled to be checked: it always compiles.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from subterminator_tui.resources import builtin_generic_rules_file
from subterminator_tui.rules.fields import DeferredPattern, compile_pattern
from subterminator_tui.rules.generic import (
    RULE_LISTS,
    GenericRules,
    generic_rules,
    read_generic_rules,
)
from subterminator_tui.rules.language_words import (
    _PLACEHOLDER,
    _check_phrases,
    _plain_words,
    all_language_words,
    checked_phrase_regex,
    phrase_regex,
)
from subterminator_tui.rules.page_rules import PageRule
from subterminator_tui.rules.required_words import required_words, required_words_of_list
from subterminator_tui.rules.sentences import success_patterns
from subterminator_tui.rules.text import mark_inner_dots, normalise_text


def _built_patterns(rules: GenericRules) -> list[tuple[str, DeferredPattern]]:
    """Every deferred expression of the generic rules, with the rule it belongs to."""
    found = []
    for name in (*RULE_LISTS, "billed_elsewhere", "offline_only", "renewed", "active"):
        for rule in getattr(rules, name):
            for key in rule.condition_keys():
                for item in getattr(rule, key):
                    if isinstance(item, DeferredPattern):
                        found.append((f"{name}: {rule.why} ({key})", item))
    return found


def test_every_built_in_expression_compiles_as_compile_pattern_would() -> None:
    patterns = _built_patterns(generic_rules())
    # Every language's success, failure, hand-off and ending rules are built, not written.
    assert len(patterns) > 300
    for where, deferred in patterns:
        try:
            compiled = deferred.compiled()
        except ValueError as error:
            pytest.fail(f"{where}: {error}")
        eager = compile_pattern(deferred.source)
        assert (compiled.pattern, compiled.flags) == (eager.pattern, eager.flags), where
        assert deferred.pattern == eager.pattern, where


def test_reading_the_generic_rules_compiles_nothing() -> None:
    """Neither the build nor the load of what an earlier process built (built_rules.py)."""
    for rules in (read_generic_rules(builtin_generic_rules_file()), generic_rules.__wrapped__()):
        patterns = _built_patterns(rules)
        assert len(patterns) > 300
        assert not any(item.is_compiled for _, item in patterns)


def test_a_deferred_expression_reads_like_the_compiled_one() -> None:
    source = r"(?m)^\s*your plan (?:was|has been) cancell?ed\s*$"
    deferred, eager = DeferredPattern(source), compile_pattern(source)
    assert not deferred.is_compiled
    assert deferred.pattern == eager.pattern
    assert not deferred.is_compiled, "the expression's text needs no compiling"
    for text in ("Account\n  Your plan was CANCELED  \nok", "your plan was not cancelled", ""):
        found, expected = deferred.search(text), eager.search(text)
        assert (found and found.span()) == (expected and expected.span())
    assert deferred.is_compiled
    assert deferred.flags == eager.flags
    assert deferred == eager and eager == deferred
    assert hash(deferred) == hash(eager)
    assert deferred != compile_pattern("your plan")
    assert deferred == DeferredPattern(source)


def test_a_rule_with_deferred_expressions_equals_and_shows_as_the_compiled_one() -> None:
    data = {"why": "", "text_regex": ["cancell?ed", "ended"], "title_regex": ["done"]}
    eager = PageRule.model_validate(data, strict=False)
    deferred = PageRule.model_validate(
        {**data, "text_regex": [DeferredPattern(p) for p in data["text_regex"]]}, strict=False
    )
    assert deferred == eager
    assert deferred.summary() == eager.summary()
    assert deferred.model_dump(mode="json") == eager.model_dump(mode="json")


def test_a_broken_built_expression_fails_when_read_with_its_text() -> None:
    deferred = DeferredPattern("cancel(")
    with pytest.raises(ValueError, match=re.escape("invalid regular expression 'cancel('")):
        deferred.search("cancel")
    assert "matches an empty string" in _error_of(DeferredPattern("x*"))


def _error_of(pattern: DeferredPattern) -> str:
    try:
        pattern.compiled()
    except ValueError as error:
        return str(error)
    return ""


def test_every_plain_phrase_would_pass_the_compiled_check() -> None:
    """The phrases let through uncompiled compile, and none matches an empty text."""
    phrases = [
        phrase
        for words in all_language_words()
        for key, values in words.lists().items()
        if key != "sentence.question_marks"
        for phrase in values
    ]
    plain = [phrase for phrase in phrases if _plain_words(normalise_text(phrase))]
    assert len(phrases) > len(plain) > len(phrases) // 2
    for phrase in plain:
        pattern = _PLACEHOLDER.sub("x", phrase_regex(normalise_text(phrase), spaced=True))
        assert re.compile(pattern, re.IGNORECASE).search("") is None, phrase


@pytest.mark.parametrize(
    ("phrase", "plain"),
    [
        ("has been cancelled", True),
        ("plan ... cancelled", True),
        ("auto-renewal is off", True),
        ("cancell?ed", False),
        ("{subject} ended", False),
        ("wait...", False),
        ("plan ... ... ended", False),
        # Fullwidth brackets are brackets once normalised.
        ("plan \uff08basic\uff09", False),
        # Nothing left once the invisible characters are removed.
        ("\u200b", False),
    ],
)
def test_plain_words_are_told_from_regular_expressions(phrase: str, plain: bool) -> None:
    assert _plain_words(normalise_text(phrase)) is plain


def _phrase_outcome(pattern: str) -> str:
    try:
        compiled = re.compile(pattern, re.IGNORECASE)
    except re.error:
        return "invalid"
    return "empty" if compiled.search("") is not None else "valid"


#: Phrases that break, or nearly break, where a space or a gap meets the phrase's own syntax.
_EDGE_PHRASES = (
    "(?:a)? (?:b)?",
    "(?:a)? ... (?:b)?",
    "a {2}b",
    "a ... {2}b",
    "a ... ?b",
    "a ... *b",
    "a ... +b",
    "(?:a ... b)",
    "(?:a b)",
    "a) (b",
    "[a ... b]",
    "a\\ b",
    "a\\ ... b",
    "(?<=a b)c",
    "(?<=a ... b)c",
    "x* ... y*",
    "(?:x)? ... (?:y)? ... (?:z)?",
    "{date} ... {biller}",
    "(?:{subject})? (?:ended)?",
)


def test_a_phrase_is_checked_as_its_full_expression_would_be() -> None:
    """With stand-ins for spaces and gaps, every phrase of every table, and each edge case,
    compiles, fails or matches an empty text exactly as its full expression does; the
    edge cases hold all three outcomes, so the comparison can fail."""
    phrases = [
        normalise_text(phrase)
        for words in all_language_words()
        for key, values in words.lists().items()
        if key != "sentence.question_marks"
        for phrase in values
    ]
    phrases += [normalise_text(phrase) for phrase in _EDGE_PHRASES]
    outcomes = set()
    for phrase in phrases:
        full = _PLACEHOLDER.sub("x", phrase_regex(phrase, spaced=True, marked=True))
        outcome = _phrase_outcome(full)
        assert _phrase_outcome(checked_phrase_regex(phrase)) == outcome, phrase
        outcomes.add(outcome)
    assert outcomes == {"valid", "invalid", "empty"}


def test_a_phrase_of_invisible_characters_is_still_refused() -> None:
    with pytest.raises(ValueError, match="matches an empty text"):
        _check_phrases(("\u200b\u2060",))
    with pytest.raises(ValueError, match="not a valid phrase"):
        _check_phrases(("plan \uff08basic",))


# Sentences whose full stops inside a date or a number do not end them, and near-misses
# whose do: a marked expression must judge each as the unmarked one does.
_INNER_DOTS = {
    "de": (
        "Ihr Abonnement wurde gekündigt und endet am 30. Juni 2027.",
        "Ihr Abonnement wurde zum 30.6.2027 gekündigt.",
        "Ihr Abonnement läuft bis 30. 6. 2027 weiter. Möchten Sie es kündigen?",
        "Version 2.1. Ihr Abonnement wurde nicht gekündigt.",
    ),
    "cs": (
        "Vaše předplatné bylo zrušeno k 30. 6. 2027.",
        "Předplatné platí do 30. června 2027. Chcete ho zrušit?",
    ),
    "ko": (
        "구독이 2025. 5. 3.까지 유지된 후 해지되었습니다.",
        "구독이 해지되었습니다. 2025. 5. 3.",
    ),
}


def test_a_marked_expression_judges_inner_full_stops_as_the_unmarked_one() -> None:
    """Built to read marked text (the generic rules' form), each success pattern holds on
    exactly the sentences the unmarked build holds on; searching the text unmarked would
    end sentences at those full stops, and judges differently."""
    tables = {words.language: words for words in all_language_words()}
    judged = differs = 0
    for language, sentences in _INNER_DOTS.items():
        words = tables[language]
        plain = success_patterns(words)
        marked = success_patterns(words, marked=True)
        for kind, source in marked.items():
            expected_pattern = compile_pattern(plain[kind])
            built = DeferredPattern(source, marked=True)
            for sentence in sentences:
                text = normalise_text(f"Account\n{sentence}")
                expected = expected_pattern.search(text) is not None
                assert (built.search(text) is not None) == expected, (language, kind, sentence)
                judged += expected
                differs += (built.compiled().search(text) is not None) != expected
    assert judged >= 4, "the sentences must include confirmations the rules hold on"
    assert differs >= 1, "without marking, some sentence must be judged otherwise"


def test_a_page_without_a_languages_letters_compiles_none_of_its_statements() -> None:
    """A statement in a language with its own script needs one of its letters: a page in
    Latin letters is answered without compiling it, and a page with them is read."""
    gated = [item for _, item in _built_patterns(generic_rules.__wrapped__()) if item.needs_any]
    # Eleven languages have a script of their own, each with six statements.
    assert len(gated) >= 60
    _compiled_only_where_read(
        gated,
        elsewhere="Account\nYour subscription has been cancelled. Status: cancelled",
        own="アカウント\nサブスクリプションは解約されました。",
    )


def _compiled_only_where_read(gated: list[DeferredPattern], *, elsewhere: str, own: str) -> None:
    """A page in another language is answered without compiling any of ``gated``; a page
    in their own holds at least one, and those are compiled."""
    other_page = normalise_text(elsewhere)
    assert all(item.search(other_page) is None for item in gated)
    assert not any(item.is_compiled for item in gated), "another language's page compiled one"
    own_page = normalise_text(own)
    found = [item for item in gated if item.search(own_page) is not None]
    assert found, "the language's own statement of a cancellation holds"
    assert all(item.is_compiled for item in found)


def test_a_page_without_a_languages_words_compiles_none_of_its_expressions() -> None:
    """Sixteen tables are written in Latin letters: a German expression needs one of its
    own words, so an English page is answered without compiling it, and a German page
    compiles it and is read."""
    tables = {words.language: words for words in all_language_words()}
    built = _built_patterns(generic_rules.__wrapped__())
    german_words = [item for where, item in built if item.needs_one_of and "German" in where]
    assert len(german_words) >= 8, "every German expression built from phrases needs words"
    _compiled_only_where_read(
        german_words,
        elsewhere="Account\nYour membership is active. Next payment: 3 May 2027.",
        own="Konto\nIhr Abonnement wurde erfolgreich gekündigt.",
    )
    # Every expression built from a table's phrase lists has words to look for.
    assert tables["de"].spaced
    assert sum(1 for _, item in built if item.needs_one_of) >= 8 * len(tables)


def test_a_page_naming_no_biller_compiles_no_billers_expression() -> None:
    """A biller's expression needs a sentence naming the biller: a page that names none is
    answered without compiling it (each is every language's words, ~50,000 characters),
    and a page billed through Apple compiles and holds Apple's.

    The mobile carriers' names need "o" (O2) or "at" (AT&T): nearly every page holds one,
    so theirs is compiled as before.
    """
    built = _built_patterns(generic_rules.__wrapped__())
    billers = [item for where, item in built if where.startswith("billed_elsewhere:")]
    assert len(billers) >= 5 and all(item.needs_one_of for item in billers)
    named = [item for item in billers if min(map(len, item.needs_one_of)) > 2]
    assert len(named) >= 4, "Apple, Google Play, Roku and Amazon each need a telling word"
    _compiled_only_where_read(
        named,
        elsewhere="Account\nYour membership is active. Cancel anytime online.",
        own="Account\nYour subscription is billed through the App Store.",
    )


@pytest.mark.parametrize(
    ("phrase", "needed"),
    [
        ("has been cancelled", ("cancelled",)),
        # The letter before a quantifier may be missing: the run ends before it.
        ("cancell?ed", ("cancel",)),
        # A group is needed unless a quantifier makes it optional; then one of its choices.
        ("(?:was|is now) (?:terminated|ended)", ("ended", "terminated")),
        ("(?:now )?ended", ("ended",)),
        ("(?:you|we)(?:'ve| have)? cancel+ed", ("cancel",)),
        # A look-around holds no text; a class, an escape or a dot needs nothing.
        ("(?!not )[a-z]+ \\w+ renews", ("renews",)),
        ("x{0,2}yz", ("yz",)),
        # A top-level choice: each side needs its own word.
        ("auto-renew is off|stopped", ("renew", "stopped")),
    ],
)
def test_a_phrase_needs_the_words_every_match_of_it_holds(
    phrase: str, needed: tuple[str, ...]
) -> None:
    words = next(iter(all_language_words()))
    assert required_words(words, [phrase]) == needed


def test_a_phrase_that_needs_no_word_leaves_its_list_nothing_to_look_for() -> None:
    words = next(iter(all_language_words()))
    assert required_words(words, ["cancelled", "(?:not )?\\w+"]) == ()
    assert required_words(words, ["(?:cancelled)?"]) == ()


def test_a_placeholder_needs_one_of_its_lists_words() -> None:
    english = next(words for words in all_language_words() if words.language == "en")
    cancelled = required_words_of_list(english, "cancelled")
    assert "cancel" in cancelled or "cancelled" in cancelled
    assert required_words(english, ["{subject} {cancelled}"]) in (
        cancelled,
        required_words_of_list(english, "subject"),
    )


def test_the_letters_and_words_an_expression_needs_never_change_a_judgement() -> None:
    """On every sentence of the corpus, in every language, an expression with its letters
    or its words looked for first judges as the compiled expression alone does."""
    corpus = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "confirmations.toml"
    with corpus.open("rb") as file:
        data = tomllib.load(file)
    texts = [
        normalise_text(f"Account\n{case['text']}")
        for kind in ("confirmation", "near_miss")
        for case in data[kind]
    ]
    built = _built_patterns(generic_rules.__wrapped__())
    gated = [item for _, item in built if item.needs_any or item.needs_one_of]
    compiled = [(item, item.compiled()) for item in gated]
    held = 0
    # Text by text: each is marked once (the marking's cache holds fewer texts than these).
    for text in texts:
        marked = mark_inner_dots(text)
        for item, pattern in compiled:
            alone = pattern.search(marked) is not None
            assert (item.search(text) is not None) == alone, (item.source[:80], text)
            held += alone
    assert held >= 1000, "the corpus's statements in every language must be read"


def test_a_marked_expression_is_not_the_same_expression_unmarked() -> None:
    """It reads marked text, so it judges otherwise and equals only a marked twin."""
    source = r"(?m)^your plan ends on \d+\.\d+\.\d+"
    marked = DeferredPattern(source, marked=True)
    assert marked != DeferredPattern(source)
    assert marked != compile_pattern(source)
    assert marked == DeferredPattern(source, marked=True)
    assert DeferredPattern(source) == compile_pattern(source)
