"""Rules judged against REAL Playwright MCP captures of the Demoflix practice site.

The snapshots under tests/fixtures/snapshots/demoflix/ were recorded through the
gateway (tests/fixtures/demoflix_walk.py); each ``<name>.yml`` is the raw
aria-snapshot and ``<name>.json`` its URL and title.
"""

from __future__ import annotations

from typing import Any

import pytest

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.rules.loader import load_services
from subterminator_tui.rules.matching import (
    checkpoint_for,
    detect_handoff,
    first_holding,
    rule_holds,
    target_elements,
    verify_completion,
)
from subterminator_tui.rules.models import ServiceConfig
from subterminator_tui.rules.page_rules import CheckpointRule, PageRule
from tests.fixtures.pages import page_from_parts as page

UNFINISHED_PAGES = ["login", "account", "survey", "offer", "confirm", "offer_accepted", "error"]


def ref(snapshot: NormalizedSnapshot, role: str, name: str) -> str:
    """The ref of the element with this role and exact name."""
    found = [e.ref for e in snapshot.elements if e.role == role and e.name == name and e.ref]
    assert len(found) == 1, f"{role} {name!r} on {snapshot.url}"
    return found[0]


def rule(**conditions: Any) -> PageRule:
    """A page rule, validated like one from services.toml."""
    return PageRule.model_validate(conditions)


def checkpoint(**conditions: Any) -> CheckpointRule:
    """A checkpoint rule, validated like one from services.toml."""
    return CheckpointRule.model_validate(conditions)


def click(ref_: str, element: str) -> ToolCall:
    """A browser_click as a model would send it, with its own description of the element."""
    return ToolCall(
        id="call-1", name="browser_click", arguments={"target": ref_, "element": element}
    )


@pytest.fixture(scope="module")
def demoflix() -> ServiceConfig:
    """The built-in demoflix service."""
    return load_services(user_file=None).get("demoflix")


# --- each condition, positive and negative ------------------------------------------


def test_url_any_holds_on_a_matching_url() -> None:
    """url_any finds a substring of the URL, ignoring case."""
    assert rule_holds(rule(url_any=["/CANCEL/DONE"]), page("done"))


def test_url_any_fails_elsewhere() -> None:
    """url_any does not hold on another URL."""
    assert not rule_holds(rule(url_any=["/cancel/done"]), page("confirm"))


def test_url_any_reads_the_query_string() -> None:
    """url_any matches the full URL, query included."""
    assert rule_holds(rule(url_any=["code=500"]), page("error"))


def test_url_regex_holds_on_a_matching_url() -> None:
    """url_regex is searched in the full URL."""
    assert rule_holds(rule(url_regex=r"/cancel/(done|confirm)$"), page("confirm"))


def test_url_regex_fails_elsewhere() -> None:
    """url_regex does not hold when nothing matches."""
    assert not rule_holds(rule(url_regex=r"/cancel/(done|confirm)$"), page("offer"))


def test_title_any_holds_on_a_matching_title() -> None:
    """title_any finds a substring of the title."""
    assert rule_holds(rule(title_any=["membership cancelled"]), page("done"))


def test_title_any_fails_elsewhere() -> None:
    """title_any does not hold on another title."""
    assert not rule_holds(rule(title_any=["membership cancelled"]), page("confirm"))


def test_title_regex_holds_on_a_matching_title() -> None:
    """title_regex is compiled case-insensitively."""
    assert rule_holds(rule(title_regex=r"^confirm CANCELLATION"), page("confirm"))


def test_title_regex_fails_elsewhere() -> None:
    """title_regex does not hold when nothing matches."""
    assert not rule_holds(rule(title_regex=r"^confirm cancellation"), page("done"))


def test_text_any_holds_on_visible_text() -> None:
    """text_any finds a paragraph's text."""
    assert rule_holds(rule(text_any=["membership ends on"]), page("done"))


def test_text_any_fails_elsewhere() -> None:
    """text_any does not hold when no needle is on the page."""
    assert not rule_holds(rule(text_any=["membership ends on"]), page("confirm"))


def test_text_all_holds_when_every_needle_is_present() -> None:
    """text_all needs every substring."""
    assert rule_holds(rule(text_all=["access continues", "not be charged"]), page("confirm"))


def test_text_all_fails_when_one_needle_is_missing() -> None:
    """One missing substring is enough for text_all to fail."""
    assert not rule_holds(rule(text_all=["access continues", "membership ends"]), page("confirm"))


def test_text_regex_holds_on_visible_text() -> None:
    """text_regex is searched in the visible text."""
    assert rule_holds(rule(text_regex=r"ends on \w+ \d+, \d{4}"), page("done"))


def test_text_regex_fails_elsewhere() -> None:
    """text_regex does not hold when nothing matches."""
    assert not rule_holds(rule(text_regex=r"ends on \w+ \d+, \d{4}"), page("account"))


def test_text_any_ignores_typographic_apostrophes() -> None:
    """A rule written with a curly apostrophe matches the page's straight one."""
    assert rule_holds(rule(text_any=["You\u2019ll pay"]), page("offer_accepted"))


def test_trap_link_target_is_not_visible_text() -> None:
    """'rejoin' inside the FAQ link's URL does not make the offer page a success."""
    assert not rule_holds(rule(text_any=["rejoin"]), page("offer"))


def test_trap_visible_rejoin_does_hold() -> None:
    """'rejoin' in the done page's text does hold."""
    assert rule_holds(rule(text_any=["rejoin"]), page("done"))


def test_heading_any_holds_on_a_heading() -> None:
    """heading_any finds a heading's name."""
    assert rule_holds(rule(heading_any=["Cancellation confirmed"]), page("done"))


def test_heading_any_fails_elsewhere() -> None:
    """heading_any does not hold when no heading matches."""
    assert not rule_holds(rule(heading_any=["Cancellation confirmed"]), page("confirm"))


def test_heading_any_ignores_paragraph_text() -> None:
    """Text that is on the page but not in a heading does not satisfy heading_any."""
    assert not rule_holds(rule(heading_any=["membership ends"]), page("done"))


def test_heading_regex_holds_on_a_heading() -> None:
    """heading_regex is searched in each heading's name."""
    assert rule_holds(rule(heading_regex=r"^finish cancelling"), page("confirm"))


def test_heading_regex_fails_elsewhere() -> None:
    """heading_regex does not hold when no heading matches."""
    assert not rule_holds(rule(heading_regex=r"^finish cancelling"), page("done"))


def test_element_any_holds_on_an_element_name() -> None:
    """element_any finds an element's accessible name."""
    assert rule_holds(rule(element_any=["Restart membership"]), page("already_cancelled"))


def test_element_any_fails_elsewhere() -> None:
    """element_any does not hold when no element matches."""
    assert not rule_holds(rule(element_any=["Restart membership"]), page("account"))


def test_element_any_ignores_text_without_a_name() -> None:
    """A paragraph's text is not an accessible name; text_any is for text."""
    assert not rule_holds(rule(element_any=["membership ends on"]), page("done"))


def test_element_any_narrowed_by_role_holds() -> None:
    """role keeps elements of the given roles."""
    assert rule_holds(rule(element_any=["Continue"], role=["button"]), page("survey"))


def test_element_any_narrowed_by_another_role_fails() -> None:
    """An element of another role does not count."""
    assert not rule_holds(rule(element_any=["Continue"], role=["link"]), page("survey"))


def test_element_regex_holds_on_an_element_name() -> None:
    """element_regex is searched in each element's name."""
    assert rule_holds(rule(element_regex=r"^continue$"), page("survey"))


def test_element_regex_fails_elsewhere() -> None:
    """An anchored pattern does not hit 'Continue to cancel'."""
    assert not rule_holds(rule(element_regex=r"^continue$"), page("offer"))


def test_every_condition_must_hold() -> None:
    """A rule whose URL matches but whose heading does not, does not hold."""
    both = rule(url_any=["/cancel/done"], heading_any=["Something went wrong"])
    assert not rule_holds(both, page("done"))


def test_first_holding_returns_the_first_rule_that_holds() -> None:
    """first_holding picks in order, skipping rules that fail."""
    rules = [rule(url_any=["/error"]), rule(url_any=["/cancel/done"]), rule(text_any=["ends"])]
    assert first_holding(rules, page("done")) is rules[1]


def test_first_holding_returns_none_when_none_holds() -> None:
    """No holding rule gives None."""
    assert first_holding([rule(url_any=["/error"])], page("done")) is None


# --- checkpoints: the targeted element decides, never the model's words -------------


def test_finish_button_described_as_continue_still_hits_the_checkpoint(
    demoflix: ServiceConfig,
) -> None:
    """A click on the Finish cancellation ref is checked even when called 'Continue'."""
    confirm = page("confirm")
    call = click(ref(confirm, "button", "Finish cancellation"), element="Continue")
    hit = checkpoint_for(demoflix.checkpoint, call, confirm)
    assert hit is not None and hit.target_any == ("finish cancellation",)


def test_keep_button_described_as_finish_does_not_hit_the_checkpoint(
    demoflix: ServiceConfig,
) -> None:
    """A click on Keep my membership is not a finish, whatever the model calls it."""
    confirm = page("confirm")
    call = click(ref(confirm, "button", "Keep my membership"), element="Finish cancellation")
    assert checkpoint_for(demoflix.checkpoint, call, confirm) is None


def test_accepting_the_offer_hits_the_checkpoint(demoflix: ServiceConfig) -> None:
    """Accepting a retention offer is asked about too."""
    offer = page("offer")
    call = click(ref(offer, "button", "Accept 50% off"), element="Continue")
    hit = checkpoint_for(demoflix.checkpoint, call, offer)
    assert hit is not None and hit.target_any == ("accept",)


def test_declining_the_offer_needs_no_checkpoint(demoflix: ServiceConfig) -> None:
    """Continue to cancel is not irreversible."""
    offer = page("offer")
    call = click(ref(offer, "button", "Continue to cancel"), element="Continue to cancel")
    assert checkpoint_for(demoflix.checkpoint, call, offer) is None


def test_stale_ref_does_not_satisfy_a_target_condition() -> None:
    """A ref missing from the snapshot resolves to nothing; the gateway refuses it."""
    rules = [checkpoint(target_any=["finish"])]
    assert checkpoint_for(rules, click("e999", "Finish cancellation"), page("confirm")) is None


def test_tool_condition_fails_for_another_tool() -> None:
    """Hovering over Finish cancellation is not a click."""
    confirm = page("confirm")
    hover = ToolCall(
        id="call-1",
        name="browser_hover",
        arguments={"target": ref(confirm, "button", "Finish cancellation")},
    )
    assert checkpoint_for([checkpoint(tool=["browser_click"])], hover, confirm) is None


def test_key_press_on_the_confirm_page_hits_the_checkpoint(demoflix: ServiceConfig) -> None:
    """Enter could press a focused Finish button, so key presses there are checked."""
    press = ToolCall(id="call-1", name="browser_press_key", arguments={"key": "Enter"})
    assert checkpoint_for(demoflix.checkpoint, press, page("confirm")) is not None


def test_key_press_elsewhere_needs_no_checkpoint(demoflix: ServiceConfig) -> None:
    """A key press on the survey is harmless."""
    press = ToolCall(id="call-1", name="browser_press_key", arguments={"key": "Enter"})
    assert checkpoint_for(demoflix.checkpoint, press, page("survey")) is None


def test_target_regex_holds_on_the_targeted_name() -> None:
    """target_regex is searched in the targeted element's name."""
    confirm = page("confirm")
    call = click(ref(confirm, "button", "Finish cancellation"), element="x")
    hit = checkpoint_for([checkpoint(target_regex=r"^finish cancellation$")], call, confirm)
    assert hit is not None


def test_target_regex_fails_for_another_target() -> None:
    """target_regex does not hold for a target whose name does not match."""
    confirm = page("confirm")
    call = click(ref(confirm, "button", "Keep my membership"), element="x")
    assert checkpoint_for([checkpoint(target_regex=r"^finish")], call, confirm) is None


def test_target_role_narrows_the_target() -> None:
    """A button is not a link, even with a matching name."""
    confirm = page("confirm")
    call = click(ref(confirm, "button", "Finish cancellation"), element="x")
    as_link = checkpoint(target_any=["finish"], target_role=["link"])
    as_button = checkpoint(target_any=["finish"], target_role=["button"])
    assert checkpoint_for([as_link], call, confirm) is None
    assert checkpoint_for([as_button], call, confirm) is as_button


def test_page_conditions_of_a_checkpoint_must_hold_too() -> None:
    """A checkpoint for clicks on the confirm page does not fire on the survey."""
    rules = [checkpoint(tool=["browser_click"], heading_any=["Finish cancelling"])]
    survey = page("survey")
    assert checkpoint_for(rules, click(ref(survey, "button", "Continue"), "x"), survey) is None


def test_netflix_final_page_checkpoint_fires_for_clicks_only() -> None:
    """The final-page text rule asks before a click, not before a snapshot."""
    netflix = load_services(user_file=None).get("netflix")
    confirm = page("confirm")
    snapshot_call = ToolCall(id="call-1", name="browser_snapshot", arguments={})
    keep = click(ref(confirm, "button", "Keep my membership"), element="Keep")
    assert checkpoint_for(netflix.checkpoint, snapshot_call, confirm) is None
    assert checkpoint_for(netflix.checkpoint, keep, confirm) is netflix.checkpoint[0]


def test_target_elements_reads_every_fill_form_field() -> None:
    """A fill_form call targets each of its fields."""
    login = page("login")
    fields = [
        {"target": ref(login, "textbox", "Username"), "value": "demo"},
        {"target": ref(login, "textbox", "Password"), "value": "demo-pass"},
    ]
    call = ToolCall(id="call-1", name="browser_fill_form", arguments={"fields": fields})
    assert [element.name for element in target_elements(call, login)] == ["Username", "Password"]


def test_target_elements_skips_stale_refs() -> None:
    """A ref not in the snapshot yields no element."""
    assert target_elements(click("e999", "Finish cancellation"), page("confirm")) == []


# --- the built-in demoflix rules on every page ---------------------------------------


@pytest.mark.parametrize("name", ["done", "already_cancelled"])
def test_cancelled_pages_are_verified(demoflix: ServiceConfig, name: str) -> None:
    """The done page and an already-cancelled account prove the cancellation."""
    result = verify_completion(demoflix, page(name))
    assert result.verified and result.success_rule is not None


@pytest.mark.parametrize("name", UNFINISHED_PAGES)
def test_unfinished_pages_are_not_verified(demoflix: ServiceConfig, name: str) -> None:
    """No page before the confirmation counts as success."""
    result = verify_completion(demoflix, page(name))
    assert not result.verified and result.success_rule is None


def test_error_page_is_a_failure(demoflix: ServiceConfig) -> None:
    """The error page is recognised as a failure."""
    assert verify_completion(demoflix, page("error")).failure_rule is not None


def test_accepted_offer_is_a_failure(demoflix: ServiceConfig) -> None:
    """Taking the discount means the membership continues."""
    assert verify_completion(demoflix, page("offer_accepted")).failure_rule is not None


def test_failure_beats_success(demoflix: ServiceConfig) -> None:
    """When a success rule and a failure rule both hold, the run is not verified."""
    greedy = demoflix.model_copy(update={"success": (rule(text_any=["please try again"]),)})
    result = verify_completion(greedy, page("error"))
    assert result.success_rule is not None and result.failure_rule is not None
    assert not result.verified
    assert "failure" in result.message


def test_verification_message_names_the_rule(demoflix: ServiceConfig) -> None:
    """A verified result says which rule decided, in its own words."""
    result = verify_completion(demoflix, page("done"))
    assert result.message == "Verified: The cancellation confirmation page."


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("login", "login"),
        ("session_expired", "login"),
        ("verify", "two_factor"),
        ("captcha", "captcha"),
    ],
)
def test_handoff_pages_are_detected(demoflix: ServiceConfig, name: str, kind: str) -> None:
    """Sign-in, verification and captcha pages hand the browser to the human."""
    handoff = detect_handoff(demoflix, page(name))
    assert handoff is not None and handoff.kind == kind


@pytest.mark.parametrize("name", ["account", "survey", "offer", "confirm", "done"])
def test_flow_pages_need_no_handoff(demoflix: ServiceConfig, name: str) -> None:
    """The cancellation flow itself needs no human hand-off."""
    assert detect_handoff(demoflix, page(name)) is None


def test_two_factor_beats_login(demoflix: ServiceConfig) -> None:
    """When a login rule also holds on the verification page, two_factor wins."""
    broad = demoflix.model_copy(update={"login": (rule(url_any=["127.0.0.1"]),)})
    handoff = detect_handoff(broad, page("verify"))
    assert handoff is not None and handoff.kind == "two_factor"


def test_captcha_beats_login(demoflix: ServiceConfig) -> None:
    """When a login rule also holds on the captcha page, captcha wins."""
    broad = demoflix.model_copy(update={"login": (rule(url_any=["127.0.0.1"]),)})
    handoff = detect_handoff(broad, page("captcha"))
    assert handoff is not None and handoff.kind == "captcha"
