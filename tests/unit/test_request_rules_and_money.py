"""A request is gated by a checkpoint rule's URL conditions and by the money it carries."""

from __future__ import annotations

import json

from subterminator_tui.browser.interception import InterceptedRequest
from subterminator_tui.rules import load_services
from subterminator_tui.rules.defaults import DEFAULT_CHECKPOINTS, checkpoints_for
from subterminator_tui.rules.page_rules import CheckpointRule
from subterminator_tui.rules.requests import RequestJudgement, classify

SITE = "https://www.example.com"


def request(
    method: str, path: str, body: object = None, *, form: bool = False
) -> InterceptedRequest:
    """A paused request to the site, with a JSON (or form) body."""
    if form:
        text, kind = str(body or ""), "application/x-www-form-urlencoded"
    else:
        text, kind = ("" if body is None else json.dumps(body)), "application/json"
    return InterceptedRequest(
        request_id=f"r-{method}-{path}",
        method=method,
        url=SITE + path,
        resource_type="Fetch",
        headers={"Content-Type": kind},
        body=text.encode(),
        target_type="page",
        top_level=False,
    )


def rule(**conditions: object) -> CheckpointRule:
    """A checkpoint rule as services.toml would give it."""
    return CheckpointRule.model_validate({"why": "a test rule", **conditions}, strict=False)


def judged(req: InterceptedRequest, *rules: CheckpointRule) -> RequestJudgement:
    """The judgement under ``rules`` and the built-in checkpoints."""
    return classify(req, (*rules, *DEFAULT_CHECKPOINTS), lambda _key: None)


# --- a checkpoint rule's URL conditions --------------------------------------------------

CONFIRM_URL = rule(url_any=["/cancelplan"], tool=["browser_click", "browser_press_key"])


def test_a_post_to_an_address_a_rule_names_is_gated() -> None:
    """POST /cancelplan says no gated word; the rule for clicks on its pages gates it."""
    assert judged(request("POST", "/cancelplan", {"step": 2})).kind == "state_changing"
    judgement = judged(request("POST", "/cancelplan", {"step": 2}), CONFIRM_URL)
    assert judgement.kind == "gated" and judgement.rule is CONFIRM_URL
    assert "URL" in judgement.why


def test_the_query_is_not_the_address() -> None:
    """A log POST whose query names the page is not a request to that page."""
    log = request("POST", "/log?page=/cancelplan", {"seen": 1})
    assert judged(log, CONFIRM_URL).kind == "state_changing"


def test_url_regex_counts_like_url_any() -> None:
    """A rule's regular expression is searched in the address as in a page's URL."""
    regex = rule(url_regex=[r"/membership/\w+/stop$"], tool=["browser_click"])
    assert judged(request("POST", "/membership/m42/stop"), regex).kind == "gated"
    assert judged(request("POST", "/membership/m42/stopwatch"), regex).kind == "state_changing"


def test_loading_the_page_that_asks_is_not_the_step() -> None:
    """GET /cancelplan opens the page where the person is asked: safe, unless the rule gates
    opening it (browser_navigate)."""
    assert judged(request("GET", "/cancelplan"), CONFIRM_URL).kind == "safe"
    opening = rule(url_any=["/cancelplan"], tool=["browser_navigate"])
    assert judged(request("GET", "/cancelplan"), opening).kind == "gated"


def test_a_rule_for_keys_or_dialogs_only_does_not_gate_its_pages_requests() -> None:
    """The gauntlet's "/cancel/" key rule judges untraceable keys, not every form posted there."""
    keys = rule(url_any=["/cancel/"], tool=["browser_press_key"])
    dialogs = rule(url_any=["/cancel/"], tool=["browser_handle_dialog"])
    assert judged(request("POST", "/cancel/reason/continue"), keys, dialogs).kind == (
        "state_changing"
    )


def test_a_rule_with_no_tool_gates_every_state_changing_request_there() -> None:
    """url_any alone: acting on those pages by any means asks, so a POST there does."""
    anywhere = rule(url_any=["/billing/commit"])
    assert judged(request("PUT", "/billing/commit"), anywhere).kind == "gated"
    assert judged(request("GET", "/billing/commit"), anywhere).kind == "safe"


def test_a_rule_with_target_words_needs_the_request_to_name_them() -> None:
    """url + target_any "stop": only a request there that says "stop" is the rule's step."""
    named = rule(url_any=["/members"], target_any=["stop"], tool=["browser_click"])
    assert judged(request("POST", "/members", {"op": "stop"}), named).kind == "gated"
    assert judged(request("POST", "/members", {"op": "rename"}), named).kind == "state_changing"


def test_the_services_own_url_rules_gate_their_requests() -> None:
    """Netflix's confirmation-URL rule gates a POST to /cancelplan on the real host."""
    netflix = load_services(user_file=None).get("netflix")
    rules = checkpoints_for(netflix.checkpoint, netflix.default_checkpoints)
    post = InterceptedRequest(
        request_id="n",
        method="POST",
        url="https://www.netflix.com/cancelplan",
        resource_type="Fetch",
        headers={},
        body=b"",
        target_type="page",
        top_level=False,
    )
    assert classify(post, rules, lambda _key: None).kind == "gated"


# --- money --------------------------------------------------------------------------------


def test_an_amount_with_a_plan_change_is_gated() -> None:
    """{"amount": "9.99", "currency": "EUR", "plan": "annual"}: no gated word, money moves."""
    judgement = judged(
        request("POST", "/api/plan", {"amount": "9.99", "currency": "EUR", "plan": "annual"})
    )
    assert judgement.kind == "gated"
    assert "EUR 9.99" in judgement.why and "annual" in judgement.why


def test_an_amount_alone_or_a_plan_word_alone_is_not_money_moving() -> None:
    """A price read back, or a plan named without an amount, changes no money."""
    assert judged(request("POST", "/api/quote", {"amount": "9.99", "currency": "EUR"})).kind == (
        "state_changing"
    )
    assert judged(request("POST", "/api/survey", {"reason": "annual_too_long"})).kind == (
        "state_changing"
    )


def test_an_amount_written_with_its_sign_counts_in_any_field() -> None:
    """ "€9,99" in a field named anything, beside "billed today"."""
    body = {"label": "€9,99", "note": "billed_today"}
    assert judged(request("POST", "/api/x", body)).kind == "gated"


def test_money_is_read_in_every_language_the_money_rule_knows() -> None:
    """Betrag / Währung / jährlich (German), prix / facturé (French), 料金 / 年額 (Japanese)."""
    german = {"betrag": "9,99", "währung": "EUR", "intervall": "jährlich"}
    french = {"prix": "9,99", "devise": "EUR", "mode": "annuel"}
    japanese = {"料金": "1200", "通貨": "JPY", "プラン": "年額"}
    for body in (german, french, japanese):
        assert judged(request("POST", "/api/plan", body)).kind == "gated", body


def test_money_in_a_form_body_or_the_query_counts() -> None:
    """A urlencoded form, or a POST whose query carries the price and the interval."""
    form = request("POST", "/checkout", "price=12.00&currency=USD&billing=yearly", form=True)
    assert judged(form).kind == "gated"
    assert judged(request("POST", "/checkout?price=12&interval=annual")).kind == "gated"


def test_a_decline_field_does_not_talk_the_money_out_of_it() -> None:
    """A page can write "declined" into a request as easily as "annual": still gated."""
    body = {"amount": "9.99", "currency": "EUR", "plan": "annual", "choice": "declined"}
    assert judged(request("POST", "/api/plan", body)).kind == "gated"


def test_money_in_a_get_is_judged_by_its_address_only() -> None:
    """A pricing page's GET with price and interval in its query is an ordinary page."""
    assert judged(request("GET", "/plans?price=9.99&interval=annual")).kind == "safe"


def test_the_single_page_apps_honest_requests_carry_no_money() -> None:
    """The gauntlet's JSON app: declining the offer is no money step (noise stays at one)."""
    decline = {"offer": "half_price_3_months", "accepted": False}
    assert judged(request("POST", "/api/cancellation/offer", decline)).kind == "state_changing"
