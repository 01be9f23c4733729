"""Which charges repeat: weekly, monthly or yearly, at a steady price.

Charges are grouped by merchant, then by price: charges whose prices sit within a few
percent of each other form a price group (a foreign-currency subscription wobbles by
cents). A series is built from price groups that follow one another in time (a price
rise) and never from groups that run side by side (two services from one merchant, such
as two subscriptions billed by Apple). A series is recurring when the days between its
charges are whole numbers of one period, mostly one: a missed month is two. Refunds,
income and one-off purchases (a price seen once, or at no steady interval) are left out.
"""

from __future__ import annotations

import datetime
import itertools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

Cadence = Literal["weekly", "monthly", "yearly"]

#: Days in one period, how far a charge may drift from it, how many periods may pass
#: between two charges (a skipped month), and how many charges prove the pattern.
_PERIODS: dict[Cadence, tuple[float, float, int, int]] = {
    "weekly": (7.0, 1.5, 2, 4),
    "monthly": (30.44, 4.5, 3, 3),
    "yearly": (365.25, 20.0, 1, 2),
}
PER_YEAR: dict[Cadence, int] = {"weekly": 52, "monthly": 12, "yearly": 1}

#: Prices within this share of each other are one price (cents of exchange-rate wobble).
_SAME_PRICE = Decimal("0.03")
#: A price change larger than this is another product, not a price rise.
_PRICE_STEP = Decimal("0.45")
#: Two price groups overlap when each has a charge this many days inside the other's span.
_OVERLAP_DAYS = 10


@dataclass(frozen=True, slots=True)
class Charge:
    """One charge as detection sees it: a day, a price and the merchant it went to."""

    booked: datetime.date
    amount: Decimal
    merchant_key: str
    descriptor: str
    currency: str
    known: bool = False
    """The merchant is a catalog service: a yearly renewal needs no more proof."""


@dataclass(frozen=True, slots=True)
class RecurringSeries:
    """Charges that repeat at one cadence: one subscription."""

    cadence: Cadence
    charges: tuple[Charge, ...]
    """Oldest first."""

    @property
    def latest(self) -> Charge:
        """The most recent charge: its price is what the subscription costs now."""
        return self.charges[-1]

    @property
    def prices(self) -> tuple[Decimal, ...]:
        """Each price the series was charged at, in order, once each."""
        seen: list[Decimal] = []
        for charge in self.charges:
            if not seen or seen[-1] != charge.amount:
                seen.append(charge.amount)
        return tuple(seen)

    @property
    def yearly_cost(self) -> Decimal:
        """The current price times the periods in a year."""
        return self.latest.amount * PER_YEAR[self.cadence]

    def lapsed(self, statement_end: datetime.date) -> bool:
        """No charge for a period and a half before the statement ends: perhaps cancelled."""
        days = _PERIODS[self.cadence][0] * 1.5 + _PERIODS[self.cadence][1]
        return (statement_end - self.latest.booked).days > days


def find_recurring(charges: Iterable[Charge]) -> list[RecurringSeries]:
    """Every recurring series among ``charges`` (money out only), most expensive first."""
    by_merchant: dict[tuple[str, str], list[Charge]] = defaultdict(list)
    for charge in charges:
        if charge.amount > 0:
            by_merchant[(charge.merchant_key, charge.currency)].append(charge)
    found: list[RecurringSeries] = []
    for merchant_charges in by_merchant.values():
        groups = _price_groups(merchant_charges)
        for series in _series(groups):
            cadence = _cadence(series)
            if cadence is None:
                continue
            known = series[0].known
            if cadence == "yearly" and not known and len(groups) > 1 and len(series) < 3:
                # Two equal prices a year apart at a shop bought from at other prices
                # too is a coincidence, not a renewal.
                continue
            found.append(RecurringSeries(cadence=cadence, charges=tuple(series)))
    return sorted(found, key=lambda series: (-series.yearly_cost, series.latest.descriptor))


def _price_groups(charges: Sequence[Charge]) -> list[list[Charge]]:
    ordered = sorted(charges, key=lambda charge: (charge.amount, charge.booked))
    groups: list[list[Charge]] = []
    for charge in ordered:
        if groups and charge.amount <= groups[-1][0].amount * (1 + _SAME_PRICE):
            groups[-1].append(charge)
        else:
            groups.append([charge])
    for group in groups:
        group.sort(key=lambda charge: charge.booked)
    return groups


def _series(groups: list[list[Charge]]) -> list[list[Charge]]:
    """Price groups joined where one follows another in time at a near price."""
    built: list[list[Charge]] = []
    for group in sorted(groups, key=lambda group: (-len(group), group[0].booked)):
        for series in built:
            if len(series) >= 2 and _follows(series, group):
                series.extend(group)
                series.sort(key=lambda charge: charge.booked)
                break
        else:
            built.append(list(group))
    return built


def _follows(series: list[Charge], group: list[Charge]) -> bool:
    """``group`` continues ``series`` after (or before) it, at a price a rise away."""
    first, last = series[0].booked, series[-1].booked
    margin = datetime.timedelta(days=_OVERLAP_DAYS)
    if group[0].booked >= last - margin:
        neighbour = series[-1].amount
    elif group[-1].booked <= first + margin:
        neighbour = series[0].amount
    else:
        return False
    price = group[0].amount
    return abs(price - neighbour) <= neighbour * _PRICE_STEP


def _cadence(series: Sequence[Charge]) -> Cadence | None:
    days = [(later.booked - earlier.booked).days for earlier, later in itertools.pairwise(series)]
    for cadence, (period, drift, most_skipped, fewest) in _PERIODS.items():
        if len(series) < fewest:
            continue
        steps = [_steps(gap, period, drift, most_skipped) for gap in days]
        if any(step is None for step in steps):
            continue
        single = sum(step == 1 for step in steps)
        if single * 2 >= len(steps):
            return cadence
    return None


def _steps(gap: int, period: float, drift: float, most_skipped: int) -> int | None:
    """How many periods ``gap`` days are (a skipped month is 2), or None when none fits."""
    steps = round(gap / period)
    if 1 <= steps <= most_skipped and abs(gap - steps * period) <= drift * steps**0.5:
        return steps
    return None
