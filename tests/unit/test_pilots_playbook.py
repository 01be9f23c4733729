"""The playbook pilot on REAL Playwright MCP captures: which element a step hits, when it stops."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.pilots.playbook import PlaybookPilot, matching_elements
from subterminator_tui.rules import PlaybookStep, ServiceConfig, load_services
from tests.fixtures.pages import page

START_URL = "http://127.0.0.1:8000/account"


def offer_then_survey(tmp_path: Path) -> NormalizedSnapshot:
    """The offer page's elements followed by the survey's: "Continue to cancel" before "Continue".

    Both are real captures with distinct refs; together they make a page where
    a loose name match would hit the wrong button first.
    """
    offer, survey = page("offer", tmp_path), page("survey", tmp_path)
    return dataclasses.replace(
        offer,
        content=offer.content + "\n" + survey.content,
        elements=offer.elements + survey.elements,
    )


def step(**keys: Any) -> PlaybookStep:
    """A playbook step, validated like one from services.toml."""
    return PlaybookStep.model_validate(keys)


@pytest.fixture(scope="module")
def demoflix() -> ServiceConfig:
    """The built-in demoflix service and its recorded playbook."""
    return load_services(user_file=None).get("demoflix")


def with_playbook(service: ServiceConfig, *steps: PlaybookStep) -> ServiceConfig:
    """``service`` with its playbook replaced by ``steps``."""
    return service.model_copy(update={"playbook": steps})


def test_anchored_regex_picks_continue_not_continue_to_cancel(tmp_path: Path) -> None:
    """name_regex ^Continue$ matches only the button named exactly Continue."""
    both = offer_then_survey(tmp_path)
    found = matching_elements(step(action="click", role="button", name_regex="^Continue$"), both)
    assert [e.name for e in found] == ["Continue"]
    assert found[0].ref == page("survey", tmp_path).ref_of("button", "Continue")


def test_anchored_regex_matches_nothing_on_the_offer_page(tmp_path: Path) -> None:
    """On the real offer page ^Continue$ finds nothing, although a substring would."""
    offer = page("offer", tmp_path)
    assert matching_elements(step(action="click", name_regex="^Continue$"), offer) == []
    assert [e.name for e in matching_elements(step(action="click", name="Continue"), offer)] == [
        "Continue to cancel"
    ]


def test_an_exact_name_match_is_sorted_first(tmp_path: Path) -> None:
    """A name step finds both buttons; the exact one comes first though it is later on the page."""
    both = offer_then_survey(tmp_path)
    found = matching_elements(step(action="click", role="button", name="continue"), both)
    assert [e.name for e in found] == ["Continue", "Continue to cancel"]


def test_role_narrows_the_match(tmp_path: Path) -> None:
    """A radio step never hits a button with the same words."""
    survey = page("survey", tmp_path)
    found = matching_elements(step(action="click", role="radio", name="Too expensive"), survey)
    assert [(e.role, e.name) for e in found] == [("radio", "Too expensive")]
    assert (
        matching_elements(step(action="click", role="button", name="Too expensive"), survey) == []
    )


async def test_a_click_step_clicks_the_ref_of_the_matching_element(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """The demoflix playbook's first step on the account page clicks Cancel membership by ref."""
    account = page("account", tmp_path)
    pilot = PlaybookPilot(demoflix, START_URL)
    turn = await pilot.next_turn(account)
    assert turn.call is not None
    assert turn.call.name == "browser_click"
    assert turn.call.arguments == {
        "target": account.ref_of("button", "Cancel membership"),
        "element": "button 'Cancel membership'",
    }
    assert pilot.index == 1


async def test_an_optional_missing_step_is_skipped(demoflix: ServiceConfig, tmp_path: Path) -> None:
    """An optional survey answer absent from the offer page is skipped; the next step runs."""
    service = with_playbook(
        demoflix,
        step(action="click", role="radio", name="Too expensive", optional=True),
        step(action="click", role="button", name="Continue to cancel"),
    )
    offer = page("offer", tmp_path)
    pilot = PlaybookPilot(service, START_URL)
    turn = await pilot.next_turn(offer)
    assert turn.stop is None
    assert turn.call is not None
    assert turn.call.arguments["target"] == offer.ref_of("button", "Continue to cancel")
    assert pilot.index == 2


async def test_a_missing_required_step_diverges_naming_the_step(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """Step 1 (Cancel membership) is not on the confirm page: one wait for its text (a page
    may still be drawing itself), then the playbook stops and says so, a failed wait or not."""
    confirm = page("confirm", tmp_path)
    pilot = PlaybookPilot(demoflix, START_URL)
    wait = await pilot.next_turn(confirm)
    assert wait.call is not None and wait.call.name == "browser_wait_for"
    assert wait.call.arguments == {"text": "Cancel membership"}
    pilot.observe(wait.call, {"error": True, "message": "Timeout 5000ms exceeded"}, confirm)
    assert pilot.diverged is None, "a wait that times out is not the divergence"
    turn = await pilot.next_turn(confirm)
    assert turn.call is None
    assert turn.stop == (
        "step 1 (click button 'Cancel membership') is not on http://127.0.0.1:8000/cancel/confirm"
    )
    assert pilot.diverged == turn.stop


async def test_a_diverged_playbook_stays_stopped(demoflix: ServiceConfig, tmp_path: Path) -> None:
    """After diverging, even a page that fits gets the same stop, never a call."""
    pilot = PlaybookPilot(demoflix, START_URL)
    await pilot.next_turn(page("confirm", tmp_path))  # the one wait for the missing target
    first = await pilot.next_turn(page("confirm", tmp_path))
    again = await pilot.next_turn(page("account", tmp_path))
    assert again.call is None
    assert again.stop == first.stop


async def test_a_target_that_appears_while_waited_for_is_clicked(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """A page that draws its button after loading: one wait, then the step, no divergence."""
    pilot = PlaybookPilot(demoflix, START_URL)
    wait = await pilot.next_turn(page("confirm", tmp_path))
    assert wait.call is not None and wait.call.name == "browser_wait_for"
    account = page("account", tmp_path)
    turn = await pilot.next_turn(account)
    assert turn.call is not None and turn.call.name == "browser_click"
    assert turn.call.arguments["target"] == account.ref_of("button", "Cancel membership")
    assert pilot.diverged is None


async def test_a_page_where_success_holds_completes_immediately(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """On the done page the first turn is complete_task(success), no step is used."""
    pilot = PlaybookPilot(demoflix, START_URL)
    turn = await pilot.next_turn(page("done", tmp_path))
    assert turn.call is not None
    assert turn.call.name == "complete_task"
    assert turn.call.arguments["status"] == "success"
    assert pilot.index == 0


async def test_a_failed_step_ends_the_playbook(demoflix: ServiceConfig, tmp_path: Path) -> None:
    """An error result for a step sets diverged with the tool and the message."""
    account = page("account", tmp_path)
    pilot = PlaybookPilot(demoflix, START_URL)
    turn = await pilot.next_turn(account)
    assert turn.call is not None
    pilot.observe(turn.call, {"error": True, "message": "Timed out"}, account)
    assert pilot.diverged == "step 1 (browser_click) failed: Timed out"
    assert (await pilot.next_turn(page("survey", tmp_path))).stop == pilot.diverged
