"""Which ending a page calls for, if any: billed elsewhere, offline only (see ``endings``)."""

from __future__ import annotations

import re

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.results import Ending
from subterminator_tui.rules.endings import cancellation_letter, contact_details
from subterminator_tui.rules.generic import generic_rules
from subterminator_tui.rules.matching import first_holding
from subterminator_tui.rules.models import ServiceConfig

# A button or link that still cancels, ends or unsubscribes: the web can still do it.
_CANCEL_CONTROL = re.compile(
    r"\b(?:cancel|end|stop|terminate)\s+(?:my\s+|your\s+|the\s+)?(?:subscription|membership|plan|"
    r"trial|auto-?renew(?:al)?)\b|\bunsubscribe\b|\bturn\s+off\s+(?:auto-?renew|recurring)|"
    r"\bkündig|\brésili|\bannuler\s+(?:mon|l'|votre)|\bcancelar\s+(?:mi|la|tu|su)\b|\bdar\s+de\s+baja",
    re.IGNORECASE,
)
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
    return any(
        element.role in _CONTROL_ROLES and _CANCEL_CONTROL.search(element.label)
        for element in snapshot.elements
    )
