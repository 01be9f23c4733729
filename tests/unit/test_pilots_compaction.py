"""Compact snapshots: a few hundred tokens, every control a cancellation needs still there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from subterminator_tui.browser.snapshot import (
    NormalizedSnapshot,
    parse_elements,
)
from subterminator_tui.pilots.compact_lines import INTERACTIVE_ROLES
from subterminator_tui.pilots.compaction import compact_snapshot, estimate_tokens
from tests.fixtures.pages import SNAPSHOTS, page

PAGES = sorted(path.stem for path in SNAPSHOTS.glob("*.md"))


@pytest.mark.parametrize("name", PAGES)
def test_every_main_control_keeps_its_ref(name: str, tmp_path: Path) -> None:
    """Buttons, fields and links outside navigation and footer stay, with their refs."""
    snapshot = page(name, tmp_path)
    compact = compact_snapshot(snapshot)
    peripheral_depths: list[int] = []
    for element in snapshot.elements:
        while peripheral_depths and peripheral_depths[-1] >= element.depth:
            peripheral_depths.pop()
        if element.role in ("navigation", "contentinfo", "banner", "complementary"):
            peripheral_depths.append(element.depth)
            continue
        if element.role in INTERACTIVE_ROLES and element.ref and not peripheral_depths:
            assert f"[ref={element.ref}]" in compact, (name, element)


@pytest.mark.parametrize("name", PAGES)
def test_compact_pages_are_far_smaller(name: str, tmp_path: Path) -> None:
    """A practice page compacts to under half its full tree and under 600 tokens."""
    snapshot = page(name, tmp_path)
    compact = estimate_tokens(compact_snapshot(snapshot))
    assert compact <= 600
    assert compact * 2 < estimate_tokens(snapshot.content)


def test_link_targets_and_boxes_are_left_out(tmp_path: Path) -> None:
    """Boxes and local link targets are noise to a model choosing by ref."""
    compact = compact_snapshot(page("offer", tmp_path))
    assert "box=" not in compact
    assert "/help?topic=rejoin" not in compact


def tree(content: str, url: str, title: str) -> NormalizedSnapshot:
    """A page made of the accessibility tree ``content``."""
    return NormalizedSnapshot(url, title, content, None, tuple(parse_elements(content)))


def heavy_page(links: int) -> NormalizedSnapshot:
    """An account centre with a huge navigation, a long history and one cancel button."""
    lines = ["- generic [ref=e1]:", '  - navigation "Everything" [ref=e2]:', "    - list [ref=e3]:"]
    ref = 4
    for index in range(links):
        lines.append(f"      - listitem [ref=e{ref}]:")
        lines.append(f'        - link "Category {index}" [ref=e{ref + 1}]')
        ref += 2
    lines.append(f"  - main [ref=e{ref}]:")
    lines.append(f'    - heading "Account" [level=1] [ref=e{ref + 1}]')
    lines.append(f"    - list [ref=e{ref + 2}]:")
    ref += 3
    for index in range(links):
        lines.append(f"      - listitem [ref=e{ref}]:")
        lines.append(f'        - link "Invoice {index}" [ref=e{ref + 1}]')
        ref += 2
    lines.append(f'    - button "Cancel membership" [ref=e{ref}]')
    content = "\n".join(lines)
    return tree(content, "https://example.com/account", "Account")


def test_a_heavy_page_stays_in_budget_and_keeps_the_cancel_button() -> None:
    """1,500+ elements compact to <= 600 tokens; the button that matters survives."""
    snapshot = heavy_page(800)
    assert len(snapshot.elements) >= 1500
    compact = compact_snapshot(snapshot)
    assert estimate_tokens(compact) <= 600
    assert 'button "Cancel membership"' in compact
    assert "more listitem items not shown" in compact
    assert "not shown" in compact


def device_list(devices: int, extra: str | None = None) -> NormalizedSnapshot:
    """A long run of rows that all repeat a keyword, optionally with one row that differs."""
    lines = ['- heading "Signed-in devices" [level=2] [ref=e1]', "- list [ref=e2]:"]
    ref = 3
    labels = [f"Sign out device {index}" for index in range(devices)]
    if extra:
        labels.insert(devices // 2, extra)
    for label in labels:
        lines.append(f"  - listitem [ref=e{ref}]:")
        lines.append(f'    - link "{label}" [ref=e{ref + 1}]')
        ref += 2
    content = "\n".join(lines)
    return tree(content, "https://example.com/devices", "Devices")


def test_a_keyword_every_row_repeats_does_not_keep_the_whole_run() -> None:
    """150 "Sign out device N" links all match "sign": the run is still shortened."""
    compact = compact_snapshot(device_list(150))
    assert estimate_tokens(compact) <= 100
    assert "147 more listitem items not shown" in compact


def test_a_row_that_differs_from_its_run_is_kept() -> None:
    """One "Cancel membership" among 150 device rows survives the shortening."""
    snapshot = device_list(150, extra="Cancel membership")
    compact = compact_snapshot(snapshot)
    assert 'link "Cancel membership"' in compact
    assert "147 more listitem items not shown" in compact


def test_runs_inside_navigation_are_counted_not_listed() -> None:
    """A footer's long link list is a count under the footer's ref; the link that matters
    keeps its own ref."""
    lines = ["- contentinfo [ref=e1]:", '  - navigation "Footer" [ref=e2]:', "    - list [ref=e3]:"]
    names = [f"Guide {index}" for index in range(12)] + ["Cookie Preferences"]
    for offset, name in enumerate(names):
        ref = 4 + 2 * offset
        lines.append(f"      - listitem [ref=e{ref}]:")
        lines.append(f'        - link "{name}" [ref=e{ref + 1}]')
    content = "\n".join(lines)
    snapshot = tree(content, "https://example.com/", "Home")
    compact = compact_snapshot(snapshot)
    assert "navigation 'Footer' [ref=e2] (12 links not shown)" in compact
    assert 'link "Cookie Preferences" [ref=e' in compact
    assert "Guide 0" not in compact


def test_every_row_of_a_list_of_subscriptions_keeps_its_cancel_button() -> None:
    """Ten rows, each with its own "Cancel subscription": all stay, told apart by their row."""
    lines = ['- heading "Your subscriptions" [level=1] [ref=e1]', "- list [ref=e2]:"]
    services = [f"Service {index}" for index in range(9)] + ["Demoflix Premium"]
    for offset, service in enumerate(services):
        ref = 3 + 3 * offset
        lines.append(f"  - listitem [ref=e{ref}]:")
        lines.append(f"    - paragraph [ref=e{ref + 1}]: {service}, $9.99/month")
        lines.append(f'    - button "Cancel subscription" [ref=e{ref + 2}]')
    content = "\n".join(lines)
    snapshot = tree(content, "https://example.com/subs", "Subscriptions")
    compact = compact_snapshot(snapshot)
    assert compact.count('button "Cancel subscription"') == 10
    assert "[ref=e32] (in: Demoflix Premium, $9.99/month)" in compact
    assert "not shown" not in compact


def nav_with(names: list[str], extra: str = "") -> NormalizedSnapshot:
    """A page whose navigation holds ``names`` as links among 40 ordinary ones."""
    lines = ['- navigation "Menu" [ref=e1]:']
    for index in range(40):
        lines.append(f'  - link "Topic {index}" [ref=e{index + 2}]')
    for offset, name in enumerate(names):
        lines.append(f'  - link "{name}" [ref=e{100 + offset}]{extra}')
    return tree("\n".join(lines), "https://example.com/", "Home")


@pytest.mark.parametrize(
    "name",
    [
        "Abo kündigen",
        "Mein Konto",
        "Résilier mon abonnement",
        "Paramètres du compte",
        "Cancelar suscripción",
        "Iniciar sesión",
        "Disdici l'abbonamento",
        "Lidmaatschap opzeggen",
        "Minha assinatura",
        "Billing",
        "Sign in",
    ],
)
def test_a_control_that_matters_is_kept_in_any_of_seven_languages(name: str) -> None:
    """Account, subscription, cancel and sign-in controls survive inside navigation."""
    compact = compact_snapshot(nav_with([name]))
    assert f'link "{name}" [ref=e100]' in compact
    assert "Topic 3" not in compact


def test_ordinary_words_that_merely_contain_a_keyword_are_not_kept() -> None:
    """ "Planet", "design" and "barcode" are not "plan", "sign" or "code"."""
    compact = compact_snapshot(nav_with(["Planet Earth", "Web design", "Barcode scanner"]))
    assert "Planet" not in compact and "design" not in compact and "Barcode" not in compact


def test_the_focused_element_is_kept() -> None:
    """Whatever the focus is on stays, however ordinary its name."""
    compact = compact_snapshot(nav_with(["Topic 99"], extra=" [active]"))
    assert 'link "Topic 99" [ref=e100]' in compact


def article(paragraphs: int, extra: list[str]) -> NormalizedSnapshot:
    """A main article of long paragraphs with inline links, and ``extra`` lines after it."""
    lines = ["- main [ref=e1]:", '  - heading "Story" [level=1] [ref=e2]']
    ref = 3
    for index in range(paragraphs):
        lines.append(f"  - paragraph [ref=e{ref}]: {'Words of the story. ' * 12}")
        lines.append(f'  - link "Related {index}" [ref=e{ref + 1}]')
        lines.append(f'  - heading "Part {index}" [level=3] [ref=e{ref + 2}]')
        ref += 3
    lines.extend(f"  {line}" for line in extra)
    return tree("\n".join(lines), "https://example.com/story", "Story")


def test_over_budget_a_page_collapses_to_counted_lines_and_keeps_what_matters() -> None:
    """Text, ordinary links and minor headings become counts; fields and dialogs stay."""
    snapshot = article(
        40,
        [
            '- textbox "Email" [ref=e900]',
            '- dialog "Before you go" [ref=e901]:',
            "  - paragraph [ref=e902]: Are you sure?",
            '  - button "Stay" [ref=e903]',
        ],
    )
    compact = compact_snapshot(snapshot)
    assert estimate_tokens(compact) <= 350
    assert "not shown" in compact
    assert re.search(r"\.\.\. \d+ (texts|links|headings)", compact)
    for kept in ('textbox "Email" [ref=e900]', 'dialog "Before you go"', "Are you sure?"):
        assert kept in compact
    assert 'button "Stay" [ref=e903]' in compact
    assert 'heading "Story" [level=1]' in compact


def test_compaction_is_deterministic() -> None:
    """The same page compacts to the same text, every time."""
    snapshot = article(40, ['- button "Cancel membership" [ref=e900]'])
    assert compact_snapshot(snapshot) == compact_snapshot(snapshot)


def test_every_single_text_is_bounded() -> None:
    """A 100,000-character name, value or text costs a line, not the page."""
    long = "x" * 100_000
    content = (
        f'- heading "{long}" [level=1] [ref=e1]\n'
        f'- button "{long}" [ref=e2]\n'
        f'- textbox "Notes" [ref=e3]: {long}\n'
        f"- paragraph [ref=e4]: {long}\n"
        f'- link "Go" [ref=e5]:\n  - /url: https://example.com/{long}'
    )
    compact = compact_snapshot(tree(content, "https://example.com/", "T"))
    assert max(len(line) for line in compact.splitlines()) <= 260
    assert compact.count("…") >= 4
