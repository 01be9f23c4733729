"""The fixture ledgers, case by case: what find must and must not report in them."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from subterminator_tui.rules.loader import load_services
from subterminator_tui.statements.finding import FindReport, Subscription, find_subscriptions

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "statements"


@pytest.fixture(scope="module")
def everyday() -> FindReport:
    """The everyday ledger, read from its MT940 file."""
    return find_subscriptions([FIXTURES / "statement.mt940"], load_services(user_file=None).all())


@pytest.fixture(scope="module")
def varied() -> FindReport:
    """The varied ledger, read from its camt.053 file."""
    return find_subscriptions(
        [FIXTURES / "varied-statement.camt053.xml"], load_services(user_file=None).all()
    )


def _lines(report: FindReport, start: str) -> list[Subscription]:
    return [s for s in report.subscriptions if s.descriptor.upper().startswith(start.upper())]


def test_the_skipped_month_is_still_spotify(everyday: FindReport) -> None:
    """Spotify missed June 2025 and is one monthly subscription of 13 charges."""
    [spotify] = _lines(everyday, "PAYPAL *SPOTIFY")
    assert (spotify.service_id, spotify.cadence, spotify.charges) == ("spotify", "monthly", 13)


def test_the_netflix_refund_is_not_a_charge(everyday: FindReport) -> None:
    """A refund of one month leaves 14 charges, at the new price."""
    [netflix] = _lines(everyday, "NETFLIX.COM")
    assert netflix.charges == 14 and netflix.amount == Decimal("17.99")


def test_the_one_off_apple_purchase_is_no_third_subscription(everyday: FindReport) -> None:
    """A 4.99 purchase on Apple's line beside its two subscriptions changes nothing."""
    amounts = sorted(s.amount for s in _lines(everyday, "APPLE.COM/BILL"))
    assert amounts == [Decimal("2.99"), Decimal("9.99")]


def test_zoom_stopped_in_july(everyday: FindReport) -> None:
    """Zoom's last charge was in July 2025: reported, and marked stopped."""
    [zoom] = _lines(everyday, "ZOOM.US")
    assert zoom.lapsed and zoom.last_charge.month == 7


def test_groceries_coffee_and_one_offs_are_not_reported(everyday: FindReport) -> None:
    """Nothing from the grocer, the café, the marketplace, the cinema or the payroll."""
    for start in ("CORNER GROCERY", "SQ *BLUE BOTTLE", "AMZN MKTP", "CINEMA CITY", "ACME CORP"):
        assert _lines(everyday, start) == []


def test_two_creators_on_one_platform_are_two_subscriptions(varied: FindReport) -> None:
    """Patreon billing 5.00 and 12.00 on the same line: both, both Patreon."""
    found = _lines(varied, "PATREON*")
    assert sorted(s.amount for s in found) == [Decimal("5.00"), Decimal("12.00")]
    assert {s.service_id for s in found} == {"patreon"}


def test_two_missed_months_in_a_row_are_tolerated(varied: FindReport) -> None:
    """Disney+ skipped September and October 2025 and is still monthly."""
    [disney] = _lines(varied, "DISNEY PLUS")
    assert disney.cadence == "monthly" and disney.charges == 12


def test_a_coffee_every_weekday_at_one_price_is_no_subscription(varied: FindReport) -> None:
    """4.50 every weekday repeats, but at no weekly, monthly or yearly step."""
    assert _lines(varied, "SQ *DAILY GRIND") == []


def test_rides_beside_a_membership_are_not_the_membership(varied: FindReport) -> None:
    """Uber One is found at 9.99; the rides at changing prices are not."""
    [membership] = _lines(varied, "UBER *")
    assert membership.service_id == "uber-one" and membership.amount == Decimal("9.99")


def test_a_quarterly_plan_is_not_looked_for(varied: FindReport) -> None:
    """Known limit: every three months is none of weekly, monthly, yearly."""
    assert _lines(varied, "SIRIUSXM") == []
