"""The text normaliser every rule reads through, and the built-in money checkpoint."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.inspection import ControlFacts, PageFacts
from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement
from subterminator_tui.guarded.guard import Guard
from subterminator_tui.rules import generic_service
from subterminator_tui.rules.defaults import DEFAULT_CHECKPOINTS
from subterminator_tui.rules.money import (
    SIGNS_FILE,
    computed_cldr_signs,
    computed_currency_symbols,
    declines,
    money_shown,
    shows_amount,
    shows_charge,
    write_signs_file,
)
from subterminator_tui.rules.text import fold_text, normalise_text

TOOLS = frozenset({"browser_click", "browser_press_key", "browser_select_option"})


@pytest.mark.parametrize(
    "spelt",
    [
        "Acc\u2060ept offer",  # WORD JOINER
        "Acc\u200bept offer",  # ZERO WIDTH SPACE (Cf)
        "Ac\u00adcept offer",  # SOFT HYPHEN
        "\u0410ccept offer",  # Cyrillic capital A
        "Acc\u0435pt \u043effer",  # Cyrillic e and o
        "\uff21ccept offer",  # fullwidth A
        "\U0001d400ccept offer",  # mathematical bold A
        "Accept\u00a0offer",  # no-break space
    ],
)
def test_a_spelling_trick_reads_as_the_plain_words(spelt: str) -> None:
    """Format characters, look-alike letters and compatibility forms all read as ASCII."""
    assert normalise_text(spelt) == "Accept offer"


@pytest.mark.parametrize(
    "text",
    ["Kündigung bestätigt", "解約が完了しました。", "¿Cancelación confirmada?", "It's done"],
)
def test_ordinary_text_of_any_language_is_left_alone(text: str) -> None:
    """Accented Latin, Japanese and ASCII come through unchanged."""
    assert normalise_text(text) == text


def test_curly_quotes_read_as_straight_ones() -> None:
    """A rule written with ' matches a page printing ’."""
    assert fold_text("You\u2019re all set") == "you're all set"


def test_a_default_checkpoint_holds_on_a_disguised_accept_offer() -> None:
    """The built-in "accept offer" pattern matches the Cyrillic and word-joined spellings."""
    (english, *_others) = DEFAULT_CHECKPOINTS
    for spelt in ("\u0410ccept offer", "Acc\u2060ept offer"):
        assert any(pattern.search(normalise_text(spelt)) for pattern in english.target_regex)


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("$14.97 today", "$14.97"),
        ("US$14.97", "$14.97"),
        ("14,97\u00a0€", "14,97 €"),
        ("1.299,00 EUR", "1.299,00 EUR"),
        ("¥1,200", "¥1,200"),
        ("1,200円", "1,200円"),
        ("1\u202f200 kr", "1 200 kr"),
        ("R$ 29,90", "R$ 29,90"),
        ("CHF 12.50", "CHF 12.50"),
        ("₹499", "₹499"),
        ("£7", "£7"),
        ("\uff04\uff17", "$7"),  # fullwidth dollar and digit
    ],
)
def test_an_amount_is_found_in_any_locale_format(text: str, amount: str) -> None:
    """A currency sign or an ISO code beside a number, whichever side, any separators."""
    assert shows_amount(text) == amount


@pytest.mark.parametrize("text", ["50% off", "3 months", "NEURO 5", "Step 1 of 2", "Top 10"])
def test_no_amount_without_a_currency(text: str) -> None:
    """Percentages, counts and words that merely contain a code are not money."""
    assert shows_amount(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "Annual plan, $99 billed today",
        "Last chance: 50% off, $7 today",
        "3 months for $14.97 today",
        "Jahresabo: 99 € heute abgebucht",
        "99 € facturés aujourd'hui",
        "Se cobrarán 99 € hoy",
        "R$ 29,90 cobrados hoje",
        "本日 ¥1,200 を請求します",
    ],
)
def test_a_charge_is_an_amount_beside_a_charge_word(text: str) -> None:
    """Money with "today", "billed", "heute", "facturés", "hoy", "hoje", "請求"... is a charge."""
    assert shows_charge(text) is not None


def test_an_account_pages_price_is_no_charge() -> None:
    """ "Premium plan · $22.99/month, Next billing date" states a price; it charges nothing."""
    assert shows_charge("Premium plan · $22.99/month Next billing date: December 22") is None


def test_a_price_on_the_control_itself_always_asks() -> None:
    """ "Take a break for 1 month ($2.99)" names its price: a purchase, whatever else it says."""
    assert money_shown(["Take a break for 1 month ($2.99)"]) is not None


def test_a_plain_decline_beside_a_charge_does_not_ask() -> None:
    """ "No thanks, continue to cancel" in a card that sells "$7 today" is the way on."""
    assert declines(["No thanks, continue to cancel"])
    assert money_shown(["No thanks, continue to cancel"], "Stay for $7 today") is None
    assert money_shown(["Continue"], "Stay 3 months for $14.97 today") is not None


def _page(*elements: SnapshotElement) -> NormalizedSnapshot:
    return NormalizedSnapshot("https://shop.example/offer", "Offer", "", elements=elements)


def test_the_guard_asks_before_continue_in_a_card_that_charges() -> None:
    """ "Continue" whose card reads "$14.97 today" is asked, naming the money."""
    button = SnapshotElement("button", "Continue", ref="e1")
    facts = PageFacts(target=ControlFacts("button", text="Continue", region="$14.97 today"))
    guard = Guard(generic_service("shop.example"), offered_tools=TOOLS)
    judged = guard.judge(ToolCall("1", "browser_click", {"target": "e1"}), _page(button), facts)
    assert judged is not None and "$14.97" in judged.why


def test_the_guard_asks_before_choosing_a_priced_option() -> None:
    """A select's chosen option "Annual plan, $99 billed today" is what the call does."""
    combo = SnapshotElement("combobox", "Your plan", ref="e2")
    control = ControlFacts("select", options=(("annual", "Annual plan, $99 billed today"),))
    call = ToolCall("1", "browser_select_option", {"target": "e2", "values": ["annual"]})
    guard = Guard(generic_service("shop.example"), offered_tools=TOOLS)
    judged = guard.judge(call, _page(combo), PageFacts(target=control))
    assert judged is not None and "$99" in judged.why


def test_the_guard_asks_before_any_key_under_a_charging_dialog() -> None:
    """Escape on a page whose open dialog sells "$7 today" is asked."""
    call = ToolCall("1", "browser_press_key", {"key": "Escape"})
    guard = Guard(generic_service("shop.example"), offered_tools=TOOLS)
    facts = PageFacts(dialogs=("Last chance: 50% off, $7 today",))
    assert guard.judge(call, _page(), facts) is not None
    assert guard.judge(call, _page(), PageFacts()) is None


def test_cancel_membership_beside_the_plans_price_is_not_asked() -> None:
    """The account page's way in stays unasked: asks per run do not grow."""
    button = SnapshotElement("button", "Cancel membership", ref="e1")
    region = "Membership Premium plan · $22.99/month Next billing date: Dec 22 Cancel membership"
    facts = PageFacts(target=ControlFacts("button", text="Cancel membership", region=region))
    guard = Guard(generic_service("shop.example"), offered_tools=TOOLS)
    call = ToolCall("1", "browser_click", {"target": "e1"})
    assert guard.judge(call, _page(button), facts) is None


def test_a_plan_change_with_a_saving_and_no_amount_spends() -> None:
    """ "Upgrade to annual and save 20%" names no price and still changes what is paid."""
    assert money_shown(["Yes please"], "Upgrade to annual and save 20% Yes please") is not None


def test_a_free_period_that_turns_into_a_price_spends() -> None:
    """ "Free for 3 months, then €9,99/Monat": the price comes after the free months."""
    region = "Bleib dabei Free for 3 months, then €9,99/Monat. Start my trial"
    assert money_shown(["Start my trial"], region) is not None


def test_a_yes_under_a_priced_question_to_stay_spends() -> None:
    """A dialog headed "Stay on Plus for $9.99 a month?" over a bare "Yes, continue"."""
    region = "Stay on Plus for $9.99 a month? Yes, continue"
    assert money_shown(["Yes, continue"], region) is not None


def test_a_price_in_the_card_header_counts_with_billed_today_in_its_body() -> None:
    """The region the page reports holds the card's header: "$99.00" and "Billed today"."""
    region = "Annual plan $99.00 · Billed today. Sounds good"
    assert money_shown(["Sounds good"], region) is not None


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("Rp 49.000 hari ini", "Rp 49.000"),
        ("99 Kč dnes", "99 Kč"),
        ("49,90 zł dzisiaj", "49,90 zł"),
        ("₹199 आज", "₹199"),
        ("RM 19.90 hari ini", "RM 19.90"),
    ],
)
def test_an_amount_is_found_in_cldr_currency_formats(text: str, amount: str) -> None:
    """Signs CLDR writes with letters (Rp, Kč, zł, RM) are amounts as much as symbols are."""
    assert shows_amount(text) == amount


def test_a_tier_beside_its_price_alone_is_not_a_charge() -> None:
    """ "Premium plan · $22.99/month" on an account page names no change: not money."""
    assert shows_charge("Premium plan · $22.99/month") is None


@pytest.mark.parametrize(
    "region",
    [
        "$0.00 today, then $9.99/month after your trial Continue",
        "Stay 3 months for $ 14.97 today Continue",
        "Premium 14,97 € heute Continue",
        "50% off for 3 months · Pay $11.49/month instead of $22.99, starting today Continue",
    ],
)
def test_what_was_asked_is_still_asked(region: str) -> None:
    """Prices split over spans, "$0.00 today, then ...", a bare Continue under an offer."""
    assert money_shown(["Continue"], region) is not None


def test_the_saved_currency_signs_are_what_cldr_and_unicode_give(tmp_path: Path) -> None:
    """The file the rules read is the computation's, sign for sign (regenerate it with
    ``python -m subterminator_tui.rules.money`` when Babel or Unicode moves)."""
    write_signs_file(tmp_path / "signs.toml")
    assert (tmp_path / "signs.toml").read_text(encoding="utf-8") == SIGNS_FILE.read_text(
        encoding="utf-8"
    ), "currency_signs.toml is stale: run python -m subterminator_tui.rules.money"
    saved = tomllib.loads(SIGNS_FILE.read_text(encoding="utf-8"))
    assert saved["currency_symbols"] == computed_currency_symbols()
    assert saved["cldr_signs"] == computed_cldr_signs()
    assert {"zł", "R$", "kr", "₹"} <= {*saved["cldr_signs"], *saved["currency_symbols"]}
