"""The held-out split's shape: languages, sources, sizes (never its recall).

The held-out sentences (tests/fixtures/corpus/held_out/confirmations.toml) measure the
generic rules on what their authors did not write; benchmarks/held_out_words.py reports
that figure. These tests keep the file usable as a measure: every sentence cited and in
a claimed language, no sentence twice, and enough of each kind in every language.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

HELD_OUT = (
    Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "held_out" / "confirmations.toml"
)
#: The languages the held-out split covers (the rules are to claim each of them).
LANGUAGES = frozenset(
    {
        *("en", "de", "fr", "es", "it", "pt", "nl", "ja", "pl", "sv", "da", "nb", "fi"),
        *("cs", "tr", "ko", "zh-Hans", "zh-Hant", "ru", "ar", "he", "hi", "id", "vi", "th"),
        "el",
    }
)
#: The languages the rules claimed first hold more confirmations than the rest.
FIRST_LANGUAGES = frozenset({"en", "de", "fr", "es", "it", "pt", "nl", "ja"})
KINDS = ("confirmation", "near_miss", "received")


def held_out() -> dict[str, list[dict[str, Any]]]:
    """The held-out file, read once per call."""
    with HELD_OUT.open("rb") as file:
        return tomllib.load(file)


def every_entry() -> list[dict[str, Any]]:
    """Every sentence of every kind."""
    data = held_out()
    return [item for kind in KINDS for item in data.get(kind, [])]


def test_the_file_holds_only_the_three_kinds() -> None:
    """Confirmations, near-misses and requests received: no other table."""
    assert set(held_out()) == set(KINDS)


def test_every_entry_has_a_claimed_language_a_text_and_a_web_source() -> None:
    """lang in the 26 languages, non-empty text, an http(s) source, no other keys."""
    for item in every_entry():
        assert set(item) == {"lang", "text", "source"}, item
        assert item["lang"] in LANGUAGES, item
        assert item["text"].strip(), item
        assert item["source"].startswith(("https://", "http://")), item


def test_no_sentence_appears_twice() -> None:
    """A text appears once across all kinds (a duplicate would count twice)."""
    texts = Counter(" ".join(item["text"].split()).casefold() for item in every_entry())
    assert [text for text, count in texts.items() if count > 1] == []


def test_the_split_is_large_enough_overall() -> None:
    """At least 420 confirmations, 320 near-misses and 25 requests received."""
    data = held_out()
    assert len(data["confirmation"]) >= 420
    assert len(data["near_miss"]) >= 320
    assert len(data["received"]) >= 25


def test_every_language_has_enough_confirmations() -> None:
    """20 or more in each first language, 12 or more in every other."""
    counts = Counter(item["lang"] for item in held_out()["confirmation"])
    short = {
        lang: counts[lang]
        for lang in LANGUAGES
        if counts[lang] < (20 if lang in FIRST_LANGUAGES else 12)
    }
    assert short == {}


def test_every_language_has_near_misses() -> None:
    """Every language has near-misses, so a false verification could show in it."""
    counts = Counter(item["lang"] for item in held_out()["near_miss"])
    assert {lang for lang in LANGUAGES if counts[lang] < 8} == set()
