"""Counts read as words: one of a thing, several things."""

from __future__ import annotations

from subterminator_tui.plurals import plural


def test_one_is_singular() -> None:
    """1 match, 1 turn."""
    assert plural(1, "match") == "1 match"
    assert plural(1, "turn") == "1 turn"


def test_none_and_many_are_plural() -> None:
    """0 matches, 2 turns, 1,200 cookies."""
    assert plural(0, "match") == "0 matches"
    assert plural(2, "turn") == "2 turns"
    assert plural(1200, "cookie") == "1,200 cookies"
