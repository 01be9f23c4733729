"""Marks a language writes or leaves out at will do not change what a rule reads.

Arabic is written with or without its short-vowel marks (harakat), shadda and sukun,
and a word may be stretched with tatweel: "تمّ" and "تم", "تلقائيًا" and "تلقائيا"
are the same word to a reader, so they must be one text to the rules.
"""

from __future__ import annotations

import re

from subterminator_tui.rules.language_words import all_language_words
from subterminator_tui.rules.sentences import success_patterns
from subterminator_tui.rules.text import normalise_text


def test_arabic_vowel_marks_shadda_and_tatweel_are_dropped() -> None:
    """Harakat, shadda, sukun and tatweel go; the plain spelling is what remains."""
    assert normalise_text("تمّ إلغاء اشتراكك تلقائيًا") == "تم إلغاء اشتراكك تلقائيا"
    assert normalise_text("الاشـــتراك مُلغىً") == "الاشتراك ملغى"


def test_letters_with_hamza_are_kept() -> None:
    """A hamza that is part of the letter (إ, أ, ؤ) is a letter, not an optional mark."""
    assert normalise_text("إلغاء أُلغي مؤقتًا") == "إلغاء ألغي مؤقتا"


def test_a_confirmation_written_with_shadda_verifies() -> None:
    """A confirmation written with shadda ("تمّ إلغاء اشتراكك") reads as stated."""
    arabic = next(words for words in all_language_words() if words.language == "ar")
    stated = success_patterns(arabic)["stated"]
    assert re.search(stated, normalise_text("تمّ إلغاء اشتراكك."), re.IGNORECASE)
