"""Which catalog service a merchant is, and where its subscription is cancelled.

Services say how their charges read in ``services.toml`` (``billing_descriptors``);
a descriptor matches as whole words, the longest match winning. A line another company
bills (Apple, Google Play, Amazon) is cancelled there, as the billed_elsewhere ending
for that biller in ``generic.toml`` says; a line PayPal paid is cancelled with the
service, and PayPal can stop paying it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from subterminator_tui.rules.endings import BillerRule
from subterminator_tui.rules.generic import generic_rules
from subterminator_tui.rules.models import ServiceConfig
from subterminator_tui.statements.descriptors import (
    Merchant,
    intermediaries,
    normalise_descriptor,
)


@dataclass(frozen=True, slots=True)
class CatalogMatch:
    """What the catalog says about one merchant."""

    service: ServiceConfig | None
    """The service, when one matched for certain."""
    possible: tuple[ServiceConfig, ...] = ()
    """Services that bill under the biller's shared line (iCloud+ under APPLE.COM/BILL):
    the line alone cannot say which, if any."""


def match_service(merchant: Merchant, services: Sequence[ServiceConfig]) -> CatalogMatch:
    """The catalog service ``merchant`` is, by the longest billing descriptor found in it."""
    best: tuple[int, ServiceConfig] | None = None
    shared: list[ServiceConfig] = []
    for service in services:
        for descriptor in service.billing_descriptors:
            needle = normalise_descriptor(descriptor)
            if not any(
                _pattern(needle).search(text) for text in (merchant.text, merchant.merchant_text)
            ):
                continue
            if merchant.biller and _is_billers_own_line(needle):
                shared.append(service)
                continue
            if best is None or len(needle) > best[0]:
                best = (len(needle), service)
    if best is not None:
        return CatalogMatch(service=best[1])
    sold = _app_sold_by_store(merchant, services)
    if sold is not None:
        return CatalogMatch(service=sold)
    return CatalogMatch(service=None, possible=tuple(dict.fromkeys(shared)))


def _app_sold_by_store(
    merchant: Merchant, services: Sequence[ServiceConfig]
) -> ServiceConfig | None:
    """An app store's line names the app exactly ("GOOGLE *Calm"): the service whose
    descriptor is that name once its web and star dressing is dropped ("CALM*", "CALM.COM").

    Only for a line a biller or wallet wrote: elsewhere a bare word is too common a
    name ("Calm" is in many shops' names), which is why such descriptors carry dressing.
    """
    if not (merchant.biller or merchant.payer) or not merchant.merchant_text:
        return None
    name = _core(merchant.merchant_text)
    for service in services:
        for descriptor in service.billing_descriptors:
            # Apple's one line for everything names no app, however exactly it matches.
            if _is_billers_own_line(normalise_descriptor(descriptor)):
                continue
            if _core(descriptor) == name:
                return service
    return None


def _core(text: str) -> str:
    without_dressing = re.sub(r"\.(?:COM|NET|ORG|IO|US|TV|APP)\b|\*", " ", text.upper())
    return re.sub(r"[^A-Z0-9]", "", without_dressing)


@functools.cache
def _pattern(needle: str) -> re.Pattern[str]:
    # Whole words: "CALM" is not inside "CALMER", "ZOOM" not inside "ZOOMCAR".
    return re.compile(rf"(?<![A-Z0-9]){re.escape(needle)}(?![A-Z0-9])")


def _is_billers_own_line(needle: str) -> bool:
    """``needle`` is how a biller writes any of its lines (APPLE.COM/BILL), not one app."""
    for biller in intermediaries().biller:
        if not biller.one_line_for_all:
            continue
        for pattern in biller.patterns:
            match = re.search(pattern, needle)
            if match is not None and not (match.groupdict().get("merchant") or "").strip():
                return True
    return False


def biller_ending(biller: str) -> BillerRule | None:
    """The billed_elsewhere ending whose biller is ``biller`` (its place and steps)."""
    for rule in generic_rules().billed_elsewhere:
        if rule.biller == biller:
            return rule
    return None


@dataclass(frozen=True, slots=True)
class HowToCancel:
    """Where and how to stop paying: a short cell for a table, the whole line, an address."""

    short: str
    """Fits a table cell: ``subterminator cancel netflix``, ``at Apple``."""
    text: str
    """The whole line, the biller's or wallet's steps included."""
    cancel_at: str = ""


def how_to_cancel(merchant: Merchant, match: CatalogMatch) -> HowToCancel:
    """One line for the person: the command to run, or the biller to go to."""
    if merchant.biller:
        ending = biller_ending(merchant.biller)
        steps = ending.how if ending is not None else ""
        place = ending.cancel_at if ending is not None else ""
        return HowToCancel(
            f"at {merchant.biller_name}",
            f"Billed by {merchant.biller_name}: {steps}".strip(),
            place,
        )
    if merchant.payer:
        payer = next(entry for entry in intermediaries().payer if entry.name == merchant.payer)
        if match.service is not None:
            command = f"subterminator cancel {match.service.id}"
            return HowToCancel(
                command,
                f"{command} (paid through {payer.name}, which can also stop paying: "
                f"{payer.cancel_at})",
                payer.cancel_at,
            )
        return HowToCancel(
            f"with the merchant, or in {payer.name}",
            f"Paid through {payer.name}: {payer.how}",
            payer.cancel_at,
        )
    if match.service is not None:
        command = f"subterminator cancel {match.service.id}"
        return HowToCancel(command, command)
    if merchant.domain:
        command = f"subterminator cancel {merchant.domain}"
        return HowToCancel(command, f"Not in the catalog: {command} (generic rules verify)")
    return HowToCancel(
        "subterminator cancel --url ADDRESS",
        "Not in the catalog: find the account page on the merchant's site, then "
        "subterminator cancel --url ADDRESS",
    )
