"""Cookie and consent banners: recognised, and answered with the most private choice.

A consent banner stands between the person and the page on most sites, and its
buttons say "Confirm", "Accept" and "Save", which read like the steps the checkpoints
guard. It is no part of a cancellation: the run answers it itself, with the most
private choice the banner offers (reject all, necessary cookies only), asks nobody,
and never counts its buttons as evidence.

A banner is a dialog, region or other container whose name the language tables call
a consent banner (``consent.banner``: "Cookie banner", "Privacy Preference Center",
"Datenschutzeinstellungen"); its answer is a button inside it whose name is a private
choice (``consent.private_choice``). A banner that offers no private choice is left
to the pilot, asked like any page.

We read the accessibility tree rather than running DuckDuckGo's autoconsent: its
npm package carries its rule set and a browser-extension build, but no script a page
can be given without building its TypeScript engine, and a banner that names itself
in the tree (as consent platforms do for screen readers) needs no per-vendor rule.
"""

from __future__ import annotations

from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement
from subterminator_tui.rules.sentences import every_language_pattern
from subterminator_tui.rules.text import normalise_text

#: Roles a banner or a preference center is drawn with.
_CONTAINERS = frozenset(
    {"dialog", "alertdialog", "region", "banner", "complementary", "contentinfo", "form"}
)
_CHOICES = frozenset({"button", "link"})


def consent_regions(snapshot: NormalizedSnapshot) -> list[list[SnapshotElement]]:
    """The elements inside each consent banner of ``snapshot`` (outermost banners only)."""
    banner = every_language_pattern("consent.banner")
    regions: list[list[SnapshotElement]] = []
    inside: int | None = None
    for element in snapshot.elements:
        if inside is not None and element.depth > inside:
            regions[-1].append(element)
            continue
        inside = None
        if element.role in _CONTAINERS and banner.search(normalise_text(element.name)):
            inside = element.depth
            regions.append([])
    return regions


def private_choice(snapshot: NormalizedSnapshot) -> SnapshotElement | None:
    """The most private answer a consent banner on ``snapshot`` offers, or None."""
    private = every_language_pattern("consent.private_choice")
    for region in consent_regions(snapshot):
        for element in region:
            if (
                element.role in _CHOICES
                and element.ref
                and private.search(normalise_text(element.label))
            ):
                return element
    return None
