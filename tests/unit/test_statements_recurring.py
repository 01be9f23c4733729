"""Which charges repeat: cadences, price rises, missed months, refunds, one-offs, two services."""

from __future__ import annotations

import datetime
from decimal import Decimal

from subterminator_tui.statements.recurring import Charge, find_recurring

START = datetime.date(2025, 1, 5)


def _charges(
    amounts: list[str], *, every_days: float = 30.44, key: str = "M", skip: tuple[int, ...] = ()
) -> list[Charge]:
    return [
        Charge(
            booked=START + datetime.timedelta(days=round(index * every_days)),
            amount=Decimal(amount),
            merchant_key=key,
            descriptor=key,
            currency="EUR",
        )
        for index, amount in enumerate(amounts)
        if index not in skip
    ]


def test_a_monthly_charge_is_monthly() -> None:
    """Twelve equal charges a month apart: one monthly subscription."""
    [series] = find_recurring(_charges(["9.99"] * 12))
    assert series.cadence == "monthly"
    assert series.yearly_cost == Decimal("119.88")


def test_a_price_rise_stays_one_subscription() -> None:
    """15.49 for eight months then 17.99: one series, both prices, the new one counts."""
    [series] = find_recurring(_charges(["15.49"] * 8 + ["17.99"] * 5))
    assert series.prices == (Decimal("15.49"), Decimal("17.99"))
    assert series.latest.amount == Decimal("17.99")


def test_a_missed_month_is_tolerated() -> None:
    """A month without a charge (an expired card) does not break the series."""
    [series] = find_recurring(_charges(["10.99"] * 12, skip=(5,)))
    assert series.cadence == "monthly" and len(series.charges) == 11


def test_a_weekly_charge_is_weekly() -> None:
    """A charge every seven days is weekly, 52 a year."""
    [series] = find_recurring(_charges(["2.50"] * 10, every_days=7))
    assert series.cadence == "weekly"
    assert series.yearly_cost == Decimal("130.00")


def test_a_yearly_renewal_is_yearly() -> None:
    """Two equal charges a year apart at a merchant seen for nothing else: yearly."""
    [series] = find_recurring(_charges(["99.00", "99.00"], every_days=365))
    assert series.cadence == "yearly"


def test_refunds_are_not_charges() -> None:
    """A refund (money in) neither forms nor breaks a series."""
    charges = _charges(["9.99"] * 6) + _charges(["-9.99"], every_days=1)
    [series] = find_recurring(charges)
    assert all(charge.amount > 0 for charge in series.charges)


def test_one_offs_are_not_subscriptions() -> None:
    """Two equal purchases three weeks apart, and purchases at changing prices: nothing."""
    assert find_recurring(_charges(["12.00", "12.00"], every_days=21)) == []
    assert (
        find_recurring(_charges(["84.11", "52.30", "61.75", "47.20", "90.05"], every_days=7)) == []
    )


def test_two_services_from_one_merchant_are_kept_apart() -> None:
    """Two Apple subscriptions, 2.99 and 9.99, charged side by side: two series."""
    small = _charges(["2.99"] * 12, key="APPLE")
    large = [
        Charge(c.booked + datetime.timedelta(days=13), Decimal("9.99"), "APPLE", "APPLE", "EUR")
        for c in small
    ]
    found = find_recurring(small + large)
    assert sorted(series.latest.amount for series in found) == [Decimal("2.99"), Decimal("9.99")]


def test_a_stopped_subscription_reads_lapsed() -> None:
    """No charge for months before the statement ends: perhaps cancelled."""
    [series] = find_recurring(_charges(["15.99"] * 6))
    assert series.lapsed(series.latest.booked + datetime.timedelta(days=120))
    assert not series.lapsed(series.latest.booked + datetime.timedelta(days=20))


def test_an_irregular_interval_is_no_cadence() -> None:
    """Equal charges 10, 50 and 75 days apart follow no cadence."""
    charges = [
        Charge(START + datetime.timedelta(days=days), Decimal("5.00"), "X", "X", "EUR")
        for days in (0, 10, 60, 135)
    ]
    assert find_recurring(charges) == []
