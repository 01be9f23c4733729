"""``subterminator find``'s core: statements in, the subscriptions they pay for out.

Everything happens on this computer: the statements are read, the charges grouped and
matched against the catalog in memory, and the result is the only thing returned. The
rows that are not subscriptions are dropped here and go nowhere else.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from subterminator_tui.inert_text import inert_line
from subterminator_tui.rules.models import ServiceConfig
from subterminator_tui.statements.catalog import CatalogMatch, how_to_cancel, match_service
from subterminator_tui.statements.columns import ColumnChoice, ColumnQuestion
from subterminator_tui.statements.descriptors import Merchant, name_merchant
from subterminator_tui.statements.reading import read_statement
from subterminator_tui.statements.recurring import Cadence, Charge, find_recurring
from subterminator_tui.statements.transactions import Statement, StatementError


@dataclass(frozen=True, slots=True)
class Subscription:
    """One recurring charge found: what it is, what it costs, where to cancel it."""

    name: str
    """The catalog service's name, or the merchant's read from the descriptor."""
    service_id: str
    """The catalog service (``netflix``), or "" when none matched for certain."""
    possible_services: tuple[str, ...]
    """Catalog services that bill under the same shared line (Apple's), when unsure."""
    amount: Decimal
    """The latest charge."""
    currency: str
    """ISO 4217 code, or "" when the statement does not say."""
    cadence: Cadence
    """weekly, monthly or yearly."""
    first_charge: datetime.date
    last_charge: datetime.date
    charges: int
    """How many charges the statements show."""
    yearly_cost: Decimal
    """The latest price times the periods in a year."""
    prices: tuple[Decimal, ...]
    """Each price it was charged at, oldest first (more than one: the price changed)."""
    billed_by: str
    """Apple, Google Play or Amazon when that company bills it; "" otherwise."""
    paid_through: str
    """PayPal when PayPal paid it; "" otherwise."""
    how_to_cancel: str
    """One line: ``subterminator cancel netflix``, or the biller's steps."""
    how_to_cancel_short: str
    """The same in a few words, for a table cell."""
    cancel_at: str
    """The biller's or the wallet's page for cancelling, when there is one."""
    descriptor: str
    """The latest charge's statement text: the one row of the statement kept."""
    statement: str
    """The file it was found in (its name only)."""
    lapsed: bool
    """No charge for a period and a half before the statement ends: perhaps cancelled."""

    def as_json(self) -> dict[str, Any]:
        """Plain JSON types: amounts as strings (exact), dates as ISO days."""
        return {
            "name": self.name,
            "service_id": self.service_id or None,
            "possible_services": list(self.possible_services),
            "amount": str(self.amount),
            "currency": self.currency or None,
            "cadence": self.cadence,
            "first_charge": self.first_charge.isoformat(),
            "last_charge": self.last_charge.isoformat(),
            "charges": self.charges,
            "yearly_cost": str(self.yearly_cost),
            "prices": [str(price) for price in self.prices],
            "billed_by": self.billed_by or None,
            "paid_through": self.paid_through or None,
            "how_to_cancel": self.how_to_cancel,
            "cancel_at": self.cancel_at or None,
            "descriptor": self.descriptor,
            "statement": self.statement,
            "lapsed": self.lapsed,
        }


@dataclass(frozen=True, slots=True)
class FindReport:
    """What ``find`` read and what it found."""

    statements: tuple[Statement, ...]
    subscriptions: tuple[Subscription, ...]
    yearly_totals: dict[str, Decimal] = field(default_factory=dict)
    """Per currency, the yearly cost of the subscriptions still charging."""


class NoRecurringChargeError(StatementError):
    """The statements were read, and no charge in them repeats."""


def find_subscriptions(
    paths: Sequence[Path],
    services: Sequence[ServiceConfig],
    *,
    choice: ColumnChoice | None = None,
    ask: ColumnQuestion | None = None,
) -> FindReport:
    """Read every statement, find the recurring charges and match them to ``services``."""
    statements = tuple(read_statement(path, choice, ask) for path in paths)
    for statement in statements:
        currencies = sorted(code for code in statement.currencies if code)
        if len(currencies) > 1:
            raise StatementError(
                statement.path,
                f"mixed currencies ({', '.join(currencies)}) in one statement",
                "Export each account (each currency) to a file of its own, and give them "
                "all to find.",
            )
    merchants: dict[str, tuple[Merchant, CatalogMatch]] = {}
    charges: list[Charge] = []
    source: dict[int, str] = {}
    seen: set[tuple[datetime.date, Decimal, str, str]] = set()
    for statement in statements:
        for transaction in statement.transactions:
            identity = (
                transaction.booked,
                transaction.spent,
                transaction.descriptor,
                transaction.currency,
            )
            if identity in seen and len(statements) > 1:
                continue  # the same row in two overlapping exports of one account
            seen.add(identity)
            # A statement is written by merchants too: no escape sequence survives.
            descriptor = inert_line(transaction.descriptor)
            merchant = name_merchant(descriptor)
            match = match_service(merchant, services)
            key = match.service.id if match.service is not None else merchant.key
            key = f"{key}|{merchant.biller}|{merchant.payer}"
            merchants.setdefault(key, (merchant, match))
            charge = Charge(
                booked=transaction.booked,
                amount=transaction.spent,
                merchant_key=key,
                descriptor=descriptor,
                currency=transaction.currency,
                known=match.service is not None,
            )
            source[id(charge)] = statement.path.name
            charges.append(charge)
    end = max(statement.last_day for statement in statements)
    found: list[Subscription] = []
    for series in find_recurring(charges):
        merchant, match = merchants[series.latest.merchant_key]
        latest_merchant = name_merchant(series.latest.descriptor)
        how = how_to_cancel(latest_merchant, match)
        service = match.service
        found.append(
            Subscription(
                name=service.name if service is not None else _biller_name(merchant),
                service_id=service.id if service is not None else "",
                possible_services=tuple(candidate.id for candidate in match.possible),
                amount=series.latest.amount,
                currency=series.latest.currency,
                cadence=series.cadence,
                first_charge=series.charges[0].booked,
                last_charge=series.latest.booked,
                charges=len(series.charges),
                yearly_cost=series.yearly_cost,
                prices=series.prices,
                billed_by=merchant.biller_name,
                paid_through=merchant.payer,
                how_to_cancel=how.text,
                how_to_cancel_short=how.short,
                cancel_at=how.cancel_at,
                descriptor=series.latest.descriptor,
                statement=source.get(id(series.latest), ""),
                lapsed=series.lapsed(end),
            )
        )
    if not found:
        names = ", ".join(str(statement.path) for statement in statements)
        raise NoRecurringChargeError(
            statements[0].path,
            f"no charge repeats in {names} (read {sum(len(s.transactions) for s in statements)} "
            "rows)",
            "Give statements that cover at least three months (a year finds yearly "
            "renewals too); several files of one account can be given together.",
        )
    totals: dict[str, Decimal] = {}
    for subscription in found:
        if not subscription.lapsed:
            totals[subscription.currency] = (
                totals.get(subscription.currency, Decimal(0)) + subscription.yearly_cost
            )
    return FindReport(statements=statements, subscriptions=tuple(found), yearly_totals=totals)


def _biller_name(merchant: Merchant) -> str:
    if merchant.biller_name and merchant.name.upper() in {
        merchant.biller_name.upper(),
        merchant.biller.upper(),
    }:
        return f"{merchant.biller_name} subscription"
    return merchant.name
