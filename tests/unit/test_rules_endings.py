"""Endings no click can reach: billed elsewhere and offline only, in four languages.

Phrasings come from real pages where one was found (the source is named beside it)
and from our practice portal; each kind has near misses that must not end a run.
"""

from __future__ import annotations

import pytest

from subterminator_tui.browser.snapshot import NormalizedSnapshot, parse_elements
from subterminator_tui.rules.endings import cancellation_letter, contact_details
from subterminator_tui.rules.generic import generic_rules
from subterminator_tui.rules.loader import load_services
from subterminator_tui.rules.models import ServiceConfig
from subterminator_tui.rules.typed_endings import detect_ending


@pytest.fixture(scope="module")
def service() -> ServiceConfig:
    """Any service: the ending rules are the same for all."""
    return load_services(user_file=None).get("portal")


def page(*paragraphs: str, extra: str = "") -> NormalizedSnapshot:
    """A page of paragraphs (aria snapshot lines), plus ``extra`` lines."""
    body = "\n".join(f"- paragraph: {text}" for text in paragraphs) + (
        "\n" + extra if extra else ""
    )
    return NormalizedSnapshot(
        url="https://www.example.com/account",
        title="Account",
        content=body,
        elements=tuple(parse_elements(body)),
    )


@pytest.mark.parametrize(
    ("text", "biller"),
    [
        # help.netflix.com/node/25097 ("Netflix billing through Apple").
        ("Some members billed through Apple may be asked to add a new payment method.", "Apple"),
        # support.acorn.tv: a Roku-billed account.
        (
            "Acorn TV's customer service is unable to cancel or issue refunds for accounts "
            "purchased through Roku.",
            "Roku",
        ),
        # playbook-docs.helpscoutdocs.com: "You will need to cancel through Google Play Store."
        ("You will need to cancel through Google Play Store.", "Google Play"),
        ("You subscribed through Apple. Your subscription is billed by Apple.", "Apple"),
        ("You're paying through the App Store.", "Apple"),
        ("Your plan is billed through Amazon Prime Video Channels.", "Amazon"),
        (
            "Your subscription is included with your phone bill from T-Mobile.",
            "your mobile carrier",
        ),
        (
            "Ihr Abo wurde über Google Play abgeschlossen und kann nur dort gekündigt werden.",
            "Google Play",
        ),
        ("Dein Abonnement wird über Apple abgerechnet.", "Apple"),
        ("Votre abonnement est facturé par votre opérateur Orange.", "your mobile carrier"),
        ("Votre abonnement a été souscrit via l'App Store.", "Apple"),
        ("Tu suscripción está facturada a través de Google Play.", "Google Play"),
        ("Tu plan fue comprado a través de Roku.", "Roku"),
    ],
)
def test_a_page_naming_another_biller_ends_billed_elsewhere(
    service: ServiceConfig, text: str, biller: str
) -> None:
    """The biller is named, with its own place to cancel when it has one."""
    ending = detect_ending(service, page(text))
    assert ending is not None and ending.reason == "billed_elsewhere"
    assert ending.biller == biller
    if biller != "your mobile carrier":
        assert ending.cancel_at and ending.cancel_at.startswith("https://")


@pytest.mark.parametrize(
    "text",
    [
        # macworld.co.uk: a conditional, true of some accounts, said to all of them.
        "When you sign up for Netflix using the iPhone app you are given the option of "
        "using iTunes billing.",
        "If you subscribed through Apple, cancel in your Apple settings.",
        "Wenn Sie über Apple abgeschlossen haben, kündigen Sie dort.",
        "Si vous avez souscrit via l'App Store, résiliez dans vos réglages.",
        "Paid with Apple Pay on 3 March.",
        "Download our app on the App Store and Google Play.",
        "Plan: Premium. Your plan renews on 1 January 2027.",
    ],
)
def test_near_misses_do_not_end_the_run(service: ServiceConfig, text: str) -> None:
    """Conditions, payment methods and app-store badges are no biller."""
    assert detect_ending(service, page(text)) is None


@pytest.mark.parametrize(
    "text",
    [
        "To cancel your membership, please call Member Services at +1 800 555 0199.",
        "Cancellations can only be made by phone.",
        "Please call us to cancel at 555 123 4567.",
        "Die Kündigung ist nur schriftlich per Brief an Musterstraße 1, 10115 Berlin möglich.",
        "Pour résilier, appelez le 01 23 45 67 89.",
        "Para darte de baja, llámanos al 900 123 456.",
        "Print this form and hand it to the manager, or send it by certified or registered mail.",
        "Aby zrezygnować z członkostwa, zadzwoń na infolinię 800 123 456.",
        "解約のお手続きはお電話でのみ承っております。",
        "Для расторжения договора позвоните по телефону 8 800 555 35 35.",
    ],
)
def test_a_page_asking_for_a_call_or_letter_ends_offline_only(
    service: ServiceConfig, text: str
) -> None:
    """Phone, chat or letter only: offline_only with a letter to send."""
    ending = detect_ending(service, page(text))
    assert ending is not None and ending.reason == "offline_only"
    assert ending.letter is not None and service.name in ending.letter


def test_a_phone_number_beside_a_cancel_button_is_one_way_of_several(
    service: ServiceConfig,
) -> None:
    """The page still offers the cancellation: the run goes on."""
    extra = '- button "Cancel membership" [ref=e9]'
    assert detect_ending(service, page("To cancel, call us at 555 123 4567.", extra=extra)) is None


def test_contact_details_are_read_off_the_page() -> None:
    """Phone numbers, e-mail and postal addresses, in page order; dates and prices are not."""
    text = (
        "Call +1 800 555 0199 or 0800 123 4567, write to cancel@example.com or to "
        "Member Services, 100 Example Street, Springfield, IL 62701. Renews 2027-01-01 for $9.99."
    )
    found = contact_details(text)
    assert found[:3] == ("+1 800 555 0199", "0800 123 4567", "cancel@example.com")
    assert any(item.startswith("100 Example Street") for item in found)
    assert not any("2027" in item or "9.99" in item for item in found)


def test_the_letter_names_the_membership_number() -> None:
    """A membership number on the page goes into the letter."""
    letter = cancellation_letter("Practice Portal", page("Membership number: PP-2026-0042."))
    assert "PP-2026-0042" in letter and "I hereby cancel" in letter


def test_every_biller_rule_cites_its_source() -> None:
    """A biller's place to cancel and its steps come from a named page."""
    for rule in generic_rules().billed_elsewhere:
        assert rule.how, rule.biller
        if rule.cancel_at:
            assert rule.source.startswith("https://"), rule.biller


def test_a_recorded_ending_is_shown_by_show_and_runs() -> None:
    """`show` prints the biller, the place to cancel and each contact; `runs` names the biller."""
    from subterminator_tui.cli.journal_views import ending_rows

    rows = ending_rows(
        {
            "reason": "billed_elsewhere",
            "biller": "Apple",
            "cancel_at": "https://support.apple.com/en-us/118428",
            "contacts": ["+1 800 555 0199"],
        }
    )
    assert ("Billed by", "Apple") in rows
    assert ("Cancel at", "https://support.apple.com/en-us/118428") in rows
    assert ("Contact", "+1 800 555 0199") in rows
    assert ending_rows(None) == []


def test_contact_details_carry_no_escape_sequences() -> None:
    """An address line with a terminal escape sequence is shown inert."""
    found = contact_details("Write to 100 Example Street\x1b[2J\x1b]0;owned\x07, Springfield.")
    assert found and not any("\x1b" in item or "\x07" in item for item in found)
