"""The generic rules against real-world confirmation sentences, in every claimed language.

The corpus (tests/fixtures/corpus/confirmations.toml) holds paraphrases of what public
help pages say a service shows after a cancellation, each with its source, and
near-misses that must never verify: offers, warnings before the last click, pauses,
renewals and failures. A sentence verifies when a generic success rule holds on it as
shown text and no generic failure rule holds.
"""

from __future__ import annotations

import functools
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement
from subterminator_tui.rules import generic_service
from subterminator_tui.rules.evidence import holds_on_seen
from subterminator_tui.rules.language_words import languages
from subterminator_tui.rules.matching import first_holding

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "confirmations.toml"
LANGUAGES = set(languages())
SERVICE = generic_service("shop.example")


@functools.cache
def corpus() -> dict[str, list[dict[str, Any]]]:
    """The corpus file, read once (each of its hundreds of tests reads it, and no test
    changes it)."""
    with CORPUS.open("rb") as file:
        return tomllib.load(file)


def verifies(text: str) -> bool:
    """Whether the generic rules verify a page that shows ``text`` (and a heading)."""
    elements = (
        SnapshotElement("heading", "Account", level=1),
        SnapshotElement("paragraph", text=text),
    )
    page = NormalizedSnapshot("https://shop.example/account", "Account", "", elements=elements)
    seen = f"Account\n{text}"
    if first_holding(SERVICE.failure, page) is not None:
        return False
    return any(holds_on_seen(rule, page, seen) for rule in SERVICE.success)


def test_the_corpus_is_large_cited_and_multilingual() -> None:
    """At least 200 confirmations and 100 near-misses, every one cited, in every language
    that has a table: at least five confirmations and three near-misses each."""
    data = corpus()
    confirmations, near_misses = data["confirmation"], data["near_miss"]
    assert len(confirmations) >= 200 and len(near_misses) >= 100
    assert len(LANGUAGES) >= 26
    per_language = Counter(item["lang"] for item in confirmations)
    misses_per_language = Counter(item["lang"] for item in near_misses)
    for lang in LANGUAGES:
        assert per_language[lang] >= 5 and misses_per_language[lang] >= 3, lang
    assert {item["lang"] for item in confirmations} >= LANGUAGES
    assert {item["lang"] for item in near_misses} >= LANGUAGES
    for item in (*confirmations, *near_misses):
        assert item["source"].startswith(("https://", "http://")), item


def test_generic_rules_verify_at_least_95_percent_of_real_confirmations() -> None:
    """Recall >= 95% over the whole corpus, and >= 80% in every language."""
    confirmations = corpus()["confirmation"]
    missed = [item for item in confirmations if not verifies(item["text"])]
    recall = 1 - len(missed) / len(confirmations)
    assert recall >= 0.95, [item["text"] for item in missed]
    totals = Counter(item["lang"] for item in confirmations)
    misses = Counter(item["lang"] for item in missed)
    for lang, total in totals.items():
        assert 1 - misses[lang] / total >= 0.8, (lang, [i["text"] for i in missed])


@pytest.mark.parametrize("index", range(len(corpus()["near_miss"])))
def test_no_near_miss_verifies(index: int) -> None:
    """Offers, warnings, pauses, renewals and failures: 0 false verifications."""
    item = corpus()["near_miss"][index]
    assert not verifies(item["text"]), item
