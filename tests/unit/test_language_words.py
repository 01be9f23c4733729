"""Words as data: one table per language, every list filled, every phrase valid.

The tables in subterminator_tui/rules/words/ hold every word the rules read. These
tests read them as the rules do and check what a person adding a language relies on:
each claimed language fills each list, a mistake names the file and the key, and the
sentence judge built from a table reads conditions, questions, negations and a stop
"until" a date the way a person does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from subterminator_tui.errors import ServiceConfigError
from subterminator_tui.rules.generic import generic_rules
from subterminator_tui.rules.language_words import (
    WORDS_DIR,
    LanguageWords,
    all_language_words,
    languages,
    read_language_words,
)
from subterminator_tui.rules.sentences import date_regex, success_patterns

CLAIMED = {
    *("en", "de", "fr", "es", "it", "pt", "nl", "ja", "pl", "sv", "da", "nb", "fi"),
    *("cs", "tr", "ko", "zh-Hans", "zh-Hant", "ru", "ar", "he", "hi", "id", "vi", "th", "el"),
}


def test_every_claimed_language_has_a_table() -> None:
    """The 26 languages the rules claim each have one table, named after the language."""
    assert set(languages()) == CLAIMED
    assert {path.stem for path in WORDS_DIR.glob("*.toml")} == CLAIMED


@pytest.mark.parametrize("tag", sorted(CLAIMED))
def test_every_language_fills_every_list(tag: str) -> None:
    """No list of any table is empty or blank: a missing list is a judgement that never holds."""
    words = _table_of(tag)
    lists = words.lists()
    assert set(lists) == set(all_language_words()[0].lists())
    assert len(lists) >= 30
    # The words a request's address uses for the commit are lists like any other.
    commit = {"operation", "finishing", "asking", "subject", "finish_label"}
    assert {f"commit.{name}" for name in commit} <= set(lists)
    for key, items in lists.items():
        assert items and all(item.strip() for item in items), (tag, key)


def test_every_table_gives_rules_of_every_kind() -> None:
    """Each table yields its success, failure, sign-in, offline and renewal rules; every
    biller's one rule reads every language."""
    rules = generic_rules()
    for words in all_language_words():
        name = f"({words.name})"
        assert any(words.name in rule.why for rule in rules.success), name
        assert any(name in rule.why for rule in rules.failure), name
        assert any(name in rule.why for rule in rules.login), name
        assert any(name in rule.why for rule in rules.offline_only), name
        assert any(name in rule.why for rule in rules.renewed), name
        assert any(name in rule.why for rule in rules.active), name
    for rule in rules.billed_elsewhere:
        assert len(rule.text_regex) == 1
        pattern = rule.text_regex[0].pattern
        assert "abgerechnet" in pattern and "facturad" in pattern, rule.biller


def _table(tmp_path: Path, tag: str, change: tuple[str, str]) -> Path:
    """A copy of the English table under ``tag``, with one line changed."""
    text = (WORDS_DIR / "en.toml").read_text(encoding="utf-8")
    text = text.replace('language = "en"', f'language = "{tag}"')
    old, new = change
    assert old in text
    path = tmp_path / f"{tag}.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_an_unknown_key_names_the_file_and_the_key(tmp_path: Path) -> None:
    """A misspelt list is refused, naming the file, the key and the likely list."""
    path = _table(tmp_path, "xx", ("[money]\ncharge =", "[money]\ncharges ="))
    with pytest.raises(ServiceConfigError) as raised:
        read_language_words(path)
    message = str(raised.value)
    assert str(path) in message and "money.charges" in message and "unknown key" in message
    assert "money.charge'" in message and "required key is missing" in message


def test_an_empty_list_is_refused(tmp_path: Path) -> None:
    """Every language fills every list: an empty one is a load-time error."""
    path = _table(tmp_path, "xx", ('currency_field = ["curr\\\\w*"]', "currency_field = []"))
    with pytest.raises(ServiceConfigError, match=r"money\.currency_field.*every language"):
        read_language_words(path)


def test_an_invalid_phrase_names_its_item(tmp_path: Path) -> None:
    """A phrase that is not a valid regular expression names its list and index."""
    path = _table(tmp_path, "xx", ('amount_field = ["amount",', 'amount_field = ["amo(unt",'))
    with pytest.raises(ServiceConfigError, match=r"money\.amount_field.*item 0"):
        read_language_words(path)


def test_a_space_before_a_quantifier_is_refused(tmp_path: Path) -> None:
    """ "save \\d+ ?%" would need a space; the message says to write \\s? instead."""
    path = _table(tmp_path, "xx", ('"save (?:up to )?\\\\d+\\\\s?%"', '"save \\\\d+ ?%"'))
    with pytest.raises(ServiceConfigError, match=r"money\.saving.*write \\s\?"):
        read_language_words(path)


def test_a_table_named_for_another_language_is_refused(tmp_path: Path) -> None:
    """The file's name is the language's tag: a copied table keeps no stale tag."""
    path = _table(tmp_path, "xx", ('language = "xx"', 'language = "yy"'))
    with pytest.raises(ServiceConfigError, match="does not match"):
        read_language_words(path)


def _table_of(tag: str) -> LanguageWords:
    return next(words for words in all_language_words() if words.language == tag)


def _english() -> LanguageWords:
    return _table_of("en")


def _confirms(words: LanguageWords, text: str) -> bool:
    import re

    return any(re.search(p, text, re.IGNORECASE) for p in success_patterns(words).values())


@pytest.mark.parametrize(
    "text",
    [
        "You will not be charged again until March 3, 2027.",
        "If you cancel, your plan will not renew.",
        "Do you want your subscription to be cancelled?",
        "Your subscription has not been cancelled.",
        "Your subscription hasn't been cancelled yet.",
    ],
)
def test_conditions_questions_negations_and_pauses_state_nothing(text: str) -> None:
    """A stop until a date is a pause; a condition, a question and a negation confirm nothing."""
    assert not _confirms(_english(), text)


@pytest.mark.parametrize(
    "text",
    [
        "Your subscription has now been cancelled.",
        "Automatic Renewal is now OFF.",
        "Your access continues until 22 December 2026.",
        "Status: Cancelled",
        "Cancellation confirmed",
        "Your plan reverts to the free plan on May 1.",
    ],
)
def test_the_shapes_real_services_use_confirm(text: str) -> None:
    """An adverb in the verb, renewal off, access until a date, a status line, a heading."""
    assert _confirms(_english(), text)


@pytest.mark.parametrize(
    ("tag", "pause", "end"),
    [
        ("en", "You've paused your subscription.", "Your access ends on June 30, 2027."),
        ("de", "Dein Paket ist jetzt pausiert.", "Es wird nicht verlängert."),
        ("es", "Tu suscripción está en pausa.", "No se te cobrará nada más."),
    ],
)
def test_a_pause_in_one_sentence_holds_for_its_whole_line(tag: str, pause: str, end: str) -> None:
    """An end told after a pause, on the same line, is the pause's end: the end alone confirms,
    the two together do not."""
    words = _table_of(tag)
    assert _confirms(words, end)
    assert not _confirms(words, f"{pause} {end}")


@pytest.mark.parametrize(
    ("text", "confirms"),
    [
        ("Account\nCancelled", True),
        ("Subscription\nCanceled \u00b7 Ends June 3, 2027", True),
        ("Status: Cancelled on June 3, 2027", True),
        ("Account\nCancelled subscriptions cannot be restored.", False),
        ("Account\nCanceled plans can be reactivated from this page.", False),
    ],
)
def test_a_status_value_on_the_next_line_stands_alone(text: str, confirms: bool) -> None:
    """A label over a value on its own line is a status line; a heading over a sentence that
    merely starts with "Cancelled" is not."""
    assert _confirms(_english(), text) is confirms


@pytest.mark.parametrize(
    ("tag", "text"),
    [
        ("en", "December 22, 2026"),
        ("de", "22. Dezember 2026"),
        ("fr", "22 décembre 2026"),
        ("ru", "22 декабря 2026"),
        ("el", "22 Δεκεμβρίου 2026"),
        ("he", "22 בדצמבר 2026"),
        ("ja", "2026年12月22日"),
        ("ko", "2026년 12월 22일"),
        ("pl", "22.12.2026"),
    ],
)
def test_dates_are_found_in_every_locale(tag: str, text: str) -> None:
    """Month names come from CLDR in every width; figures in any order."""
    import re

    from subterminator_tui.rules.text import normalise_text

    assert re.fullmatch(date_regex(tag), normalise_text(text), re.IGNORECASE)


def test_a_confirm_page_that_predicts_the_end_leaves_the_done_page_as_evidence() -> None:
    """Before the last click the page says "access continues until ..."; after it,
    "Cancellation confirmed": some success rule holds after that did not hold before."""
    from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement
    from subterminator_tui.rules.evidence import holds_on_seen

    def page(*lines: str) -> tuple[NormalizedSnapshot, str]:
        elements = tuple(SnapshotElement("paragraph", text=line) for line in lines)
        return NormalizedSnapshot(
            "https://shop.example/c", "Shop", "", elements=elements
        ), "\n".join(lines)

    before = page(
        "Finish cancelling your membership",
        "Your access continues until 22 December 2026. After that you will not be charged.",
    )
    after = page("Cancellation confirmed", "Your membership ends on 22 December 2026.")
    rules = generic_rules().success
    held_before = {rule.why for rule in rules if holds_on_seen(rule, *before)}
    held_after = {rule.why for rule in rules if holds_on_seen(rule, *after)}
    assert held_after - held_before


@pytest.mark.parametrize(
    ("text", "confirms"),
    [
        # A question opened by "¿" is asked even where its closing mark is missing.
        ("¿Tu suscripción ha sido cancelada", False),
        ("¿Confirmas que tu suscripción ha sido cancelada", False),
        # A question opened after a statement with no full stop asks only what follows.
        ("Tu suscripción ha sido cancelada ¿Quieres volver a suscribirte?", True),
        # After a comma the opening mark tags the sentence: the whole of it is asked.
        ("Tu suscripción ha sido cancelada, ¿verdad?", False),
        ("Si continúas, ¿tu suscripción se cancelará al final del periodo?", False),
        # A closed question on its own ends there; what follows is stated.
        ("¿Listo? Tu suscripción ha sido cancelada.", True),
        ("¿Seguro que quieres cancelar? Tu suscripción se cancelará al final del periodo.", False),
    ],
)
def test_an_inverted_question_mark_opens_a_question(text: str, confirms: bool) -> None:
    """Spanish writes a question between "¿" and "?": the opening mark starts what is asked,
    and never ends the sentence before it."""
    assert _confirms(_table_of("es"), text) is confirms
