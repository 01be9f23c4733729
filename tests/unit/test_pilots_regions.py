"""Collapsed regions: a summary line's ref opens exactly what it left out (show_region),
and a landmark the last page showed is one line unless it holds a control always kept."""

from __future__ import annotations

import re

import pytest

from subterminator_tui.browser.snapshot import NormalizedSnapshot, parse_elements
from subterminator_tui.pilots.ai import SYSTEM_PROMPT, default_tools
from subterminator_tui.pilots.compaction import compact_page, compact_snapshot, estimate_tokens
from subterminator_tui.pilots.regions import region_text
from subterminator_tui.pilots.virtual_tools import SHOW_REGION
from tests.fixtures.pages import page

_SUMMARY_REF = re.compile(r"\[ref=(\w+)\] \(.*not shown\)|not shown \(in ref (\w+)\)")
_REF = re.compile(r"\[ref=(\w+)\]")


def tree(content: str) -> NormalizedSnapshot:
    """A page made of the accessibility tree ``content``."""
    return NormalizedSnapshot(
        "https://example.com/", "Home", content, None, parse_elements(content)
    )


def footer_page(extra: str = "") -> NormalizedSnapshot:
    """A page whose footer holds 30 ordinary links (and ``extra`` lines inside it)."""
    lines = ["- main [ref=e1]:", '  - button "Cancel membership" [ref=e2]']
    lines += ["- contentinfo [ref=e3]:", '  - navigation "Footer" [ref=e4]:']
    lines += [f'    - link "Guide {n}" [ref=e{10 + n}]' for n in range(30)]
    lines += [f"    {line}" for line in extra.splitlines()]
    return tree("\n".join(lines))


def long_list_page() -> NormalizedSnapshot:
    """An account page with a billing history of 40 rows."""
    lines = ['- heading "Billing history" [level=2] [ref=e1]', "- list [ref=e2]:"]
    for n in range(40):
        lines.append(f"  - listitem [ref=e{100 + 2 * n}]:")
        lines.append(f'    - link "Invoice {n}" [ref=e{101 + 2 * n}]')
    return tree("\n".join(lines))


@pytest.mark.parametrize("snapshot", [footer_page(), long_list_page(), page("account")])
def test_every_ref_a_summary_names_opens_every_control_it_left_out(
    snapshot: NormalizedSnapshot,
) -> None:
    """Each "not shown" line's ref, given to show_region, lists every control it stood for."""
    compact = compact_snapshot(snapshot)
    shown = set(_REF.findall(compact))
    named = [a or b for a, b in _SUMMARY_REF.findall(compact)]
    assert named, compact
    opened: set[str] = set()
    for ref in named:
        opened |= set(_REF.findall(region_text(snapshot, ref)))
    left_out = {e.ref for e in snapshot.elements if e.ref and e.role == "link"} - shown
    assert left_out and left_out <= opened


def test_a_region_is_listed_in_full_with_its_refs() -> None:
    """show_region on the footer: every link by name and ref, nothing outside it."""
    region = region_text(footer_page(), "e3")
    assert region.splitlines()[0] == "- contentinfo [ref=e3]"
    for n in range(30):
        assert f'link "Guide {n}" [ref=e{10 + n}]' in region
    assert "Cancel membership" not in region


def test_an_unknown_ref_is_a_clear_error() -> None:
    """A ref the page does not have names itself and says what to use instead."""
    with pytest.raises(ValueError, match="No element with ref e999 on this page"):
        region_text(footer_page(), "e999")


def test_a_region_over_its_budget_says_which_ref_opens_the_rest() -> None:
    """A cut region ends with a count and a ref that opens the first element left out."""
    snapshot = long_list_page()
    region = region_text(snapshot, "e2", budget_tokens=100)
    assert estimate_tokens(region) <= 140
    last = region.splitlines()[-1]
    match = re.search(r"more elements not shown \(over 100 tokens\); show_region (\w+) opens", last)
    assert match is not None, last
    first_left_out = region_text(snapshot, match[1])
    assert f"[ref={match[1]}]" in first_left_out.splitlines()[0]
    assert f"[ref={match[1]}]" not in region


def test_the_model_is_told_of_show_region_and_offered_it() -> None:
    """The words that promise expansion name the tool that does it, and the tool is offered."""
    assert "show_region(ref) lists what a ref holds" in SYSTEM_PROMPT
    assert SHOW_REGION in [tool.name for tool in default_tools()]


def test_a_landmark_the_last_page_showed_is_one_line_with_its_ref() -> None:
    """The same footer on the next page: one line and its ref (the last page counted what
    it holds)."""
    first = compact_page(footer_page(), seen_landmarks=())
    second = compact_page(footer_page(), seen_landmarks=first.landmarks)
    assert "Guide" not in second.text
    assert "- contentinfo [ref=e3] (as before, not shown)" in second.text
    assert 'button "Cancel membership" [ref=e2]' in second.text


def test_a_landmark_that_changed_is_not_folded() -> None:
    """A footer with one more link than last time is listed as usual."""
    first = compact_page(footer_page(), seen_landmarks=())
    changed = footer_page('- link "Careers" [ref=e90]')
    second = compact_page(changed, seen_landmarks=first.landmarks)
    assert "(as before," not in second.text


def test_a_repeated_landmark_keeps_a_control_that_is_always_kept() -> None:
    """An "Account" link inside a repeated footer is never folded away: it keeps its ref."""
    footer = footer_page('- link "My account" [ref=e90]')
    first = compact_page(footer, seen_landmarks=())
    second = compact_page(footer, seen_landmarks=first.landmarks)
    assert 'link "My account" [ref=e90]' in second.text
    assert "(as before," not in second.text
