"""Merchant names from bank descriptors, and who stands between the person and the service."""

from __future__ import annotations

import pytest

from subterminator_tui.statements.descriptors import intermediaries, name_merchant


@pytest.mark.parametrize(
    ("descriptor", "name"),
    [
        ("NETFLIX.COM 866-579-7172 CA", "Netflix"),
        ("PAYPAL *SPOTIFY", "Spotify"),
        ("GOOGLE *YouTube", "Youtube"),
        ("APPLE.COM/BILL", "Apple"),
        ("SQ *BLUE BOTTLE COFFEE", "Blue Bottle Coffee"),
        ("POS DEBIT 0312 ADOBE *CREATIVE CLOUD 408-536-6000 CA", "Adobe Creative Cloud"),
        ("CHECKCARD 0412 ZOOM.US 888-799-9666 CA", "Zoom"),
        ("Amazon Channels*2K4LZ0AB3", "Amazon Channels"),
    ],
)
def test_the_merchant_is_named_without_numbers_places_and_prefixes(
    descriptor: str, name: str
) -> None:
    """Phone numbers, references, states, card and processor prefixes are not the name."""
    assert name_merchant(descriptor).name == name


def test_paypal_paid_it_and_spotify_is_who() -> None:
    """PAYPAL *SPOTIFY: Spotify was paid, PayPal only paid it."""
    merchant = name_merchant("PAYPAL *SPOTIFY")
    assert (merchant.payer, merchant.biller, merchant.merchant_text) == ("PayPal", "", "SPOTIFY")


def test_an_app_sold_through_google_play_is_billed_there() -> None:
    """GOOGLE *Duolingo is an app Google Play sold: cancelled in Play."""
    merchant = name_merchant("GOOGLE *Duolingo")
    assert merchant.biller == "Google Play"
    assert merchant.name == "Duolingo"


def test_googles_own_service_is_not_billed_elsewhere() -> None:
    """GOOGLE *YouTube is Google's own: no other company to go to."""
    assert name_merchant("GOOGLE *YouTube").biller == ""


def test_apple_bills_apple_com_bill() -> None:
    """APPLE.COM/BILL is billed by Apple."""
    assert name_merchant("APPLE.COM/BILL 866-712-7753 CA").biller == "Apple"


def test_two_apps_from_one_biller_share_a_merchant_key() -> None:
    """Lines billed by Apple group together; prices tell the subscriptions apart later."""
    assert name_merchant("APPLE.COM/BILL").key == name_merchant("APPLE.COM/BILL CUPERTINO").key


def test_every_biller_points_to_a_billed_elsewhere_ending() -> None:
    """Each biller's ending exists in generic.toml, so find can say where to cancel."""
    from subterminator_tui.statements.catalog import biller_ending

    for biller in intermediaries().biller:
        ending = biller_ending(biller.ending)
        assert ending is not None and ending.how, biller.name
