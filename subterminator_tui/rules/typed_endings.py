"""Which ending a page calls for, if any: billed elsewhere, offline only (see ``endings``)."""

from __future__ import annotations

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.results import Ending
from subterminator_tui.rules.endings import cancellation_letter, contact_details
from subterminator_tui.rules.generic import generic_rules
from subterminator_tui.rules.matching import first_holding
from subterminator_tui.rules.models import ServiceConfig
from subterminator_tui.rules.sentences import every_language_pattern
from subterminator_tui.rules.text import normalise_text

_CONTROL_ROLES = frozenset({"button", "link"})


def detect_ending(service: ServiceConfig, snapshot: NormalizedSnapshot) -> Ending | None:
    """The ending ``snapshot`` calls for (with its details), or None when the web can go on."""
    rules = generic_rules()
    biller = first_holding(rules.billed_elsewhere, snapshot)
    if biller is not None:
        return Ending(
            reason="billed_elsewhere",
            why=biller.explain(),
            biller=biller.biller,
            cancel_at=biller.cancel_at or None,
            how=biller.how or None,
        )
    offline = first_holding(rules.offline_only, snapshot)
    if offline is not None and not offers_to_cancel(snapshot):
        return Ending(
            reason="offline_only",
            why=offline.explain(),
            contacts=contact_details(snapshot.visible_text),
            letter=cancellation_letter(service.name, snapshot),
        )
    return None


def offers_to_cancel(snapshot: NormalizedSnapshot) -> bool:
    """Whether a button or link on the page still cancels (so phone talk is one way of several)."""
    cancels = every_language_pattern("controls.cancel")
    return any(
        element.role in _CONTROL_ROLES and cancels.search(normalise_text(element.label))
        for element in snapshot.elements
    )
