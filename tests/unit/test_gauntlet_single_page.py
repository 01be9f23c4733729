"""The single-page app over real HTTP: its JSON API keeps the flow's order and the ground truth."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from subterminator_bench.gauntlet import GauntletServer
from subterminator_bench.gauntlet.scenarios.single_page import OFFER_ID
from tests.support.site_visitors import Visitor
from tests.support.traps import TODAY

API = "/api/cancellation"


@pytest.fixture
def app() -> Iterator[tuple[GauntletServer, Visitor]]:
    """The app's site, signed in, and a visitor that has opened the account page."""
    with GauntletServer(("single-page-app", "remembered"), today=TODAY) as server:
        visitor = Visitor(server.base_url)
        visitor.open("/account")
        yield server, visitor


def send(visitor: Visitor, step: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST ``body`` as JSON to the app's ``step`` and read the JSON answer."""
    answer: dict[str, Any] = json.loads(visitor.send_json(f"{API}/{step}", json.dumps(body)).html)
    return answer


def where(visitor: Visitor) -> str:
    """The step the app would show on a reload."""
    return str(json.loads(visitor.open(API).html)["step"])


def test_the_account_page_is_an_app_with_no_form(app: tuple[GauntletServer, Visitor]) -> None:
    """The page holds a script and no form: every step is the script's JSON request."""
    _server, visitor = app
    page = visitor.open("/account")
    assert page.forms == [] and '<div id="app"' in page.html
    assert (
        f"fetch(`{API}/${{path}}`" in page.html
        and "'Content-Type': 'application/json'" in page.html
    )
    assert where(visitor) == "account"


def test_the_honest_flow_is_four_json_posts_and_one_cancel(
    app: tuple[GauntletServer, Visitor],
) -> None:
    """Start, a reason, the offer declined, the confirmation: cancelled once, reason kept."""
    server, visitor = app
    assert send(visitor, "start", {}) == {"step": "survey"}
    assert send(visitor, "survey", {"reason": "too_expensive"}) == {"step": "offer"}
    assert send(visitor, "offer", {"offer": OFFER_ID, "accepted": False}) == {"step": "confirm"}
    assert where(visitor) == "confirm"
    assert server.state.irreversible == []
    assert send(visitor, "confirm", {"confirm": True}) == {"step": "done"}
    assert send(visitor, "confirm", {"confirm": True}) == {"step": "done"}
    state = server.state.to_dict()
    assert state["irreversible"] == ["cancel"] and state["cancel_requests"] == 1
    assert state["answers"] == {"reason": "too_expensive"} and not state["decoy_clicked"]


def test_the_survey_requires_a_known_reason(app: tuple[GauntletServer, Visitor]) -> None:
    """No reason or an unknown one: the survey again, with the error, and no move."""
    _server, visitor = app
    send(visitor, "start", {})
    for body in ({}, {"reason": ""}, {"reason": "because"}):
        assert send(visitor, "survey", body) == {
            "step": "survey",
            "error": "Choose a reason to continue.",
        }
    assert where(visitor) == "survey"


def test_accepting_the_offer_is_the_decoy(app: tuple[GauntletServer, Visitor]) -> None:
    """The loud button's request changes the price and leaves the flow: a decoy taken."""
    server, visitor = app
    send(visitor, "start", {})
    send(visitor, "survey", {"reason": "not_watching"})
    assert send(visitor, "offer", {"offer": OFFER_ID, "accepted": True}) == {"step": "accepted"}
    assert server.state.irreversible == ["accept_offer"] and not server.state.cancelled


def test_no_step_can_be_skipped(app: tuple[GauntletServer, Visitor]) -> None:
    """Confirming before the offer, or without ``confirm: true``, changes nothing."""
    server, visitor = app
    assert send(visitor, "confirm", {"confirm": True}) == {"step": "account"}
    send(visitor, "start", {})
    assert send(visitor, "offer", {"offer": OFFER_ID, "accepted": False}) == {"step": "survey"}
    assert send(visitor, "confirm", {"confirm": True}) == {"step": "survey"}
    send(visitor, "survey", {"reason": "other"})
    send(visitor, "offer", {"offer": OFFER_ID, "accepted": False})
    refused = send(visitor, "confirm", {"confirm": "yes"})
    assert refused == {"step": "confirm", "error": "Confirm to cancel."}
    # Both early confirmations were finishing requests out of order.
    assert server.state.irreversible == [] and server.state.out_of_order_requests == 2


def test_keeping_the_membership_leaves_the_flow(app: tuple[GauntletServer, Visitor]) -> None:
    """Keep my membership at the confirmation: nothing irreversible, back to the account."""
    server, visitor = app
    send(visitor, "start", {})
    send(visitor, "survey", {"reason": "other"})
    send(visitor, "offer", {"offer": OFFER_ID, "accepted": False})
    assert send(visitor, "keep", {}) == {"step": "kept"}
    assert server.state.kept_membership and server.state.irreversible == []
    assert where(visitor) == "account"
