"""Counts in words: "1 match", "2 matches", never "match(es)"."""

from __future__ import annotations

#: Words whose plural is not the word plus "s".
_IRREGULAR = {"match": "matches", "this": "these", "is": "are", "was": "were"}


def plural(count: int, word: str, many: str | None = None) -> str:
    """``count`` and ``word``, in the plural unless ``count`` is 1 ("3 turns", "1 cookie")."""
    if count == 1:
        return f"{count:,} {word}"
    return f"{count:,} {many or _IRREGULAR.get(word, word + 's')}"
