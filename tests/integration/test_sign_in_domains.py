"""Signing in at an identity provider: reachable only while the person signs in there.

The practice portal (127.0.0.1) signs people in at Practice ID (127.0.0.2), which it
names in ``sign_in_domains``. Real Playwright MCP, Chromium and egress filter; the
playbook pilot (no model). The person is played by a gate that acts in the browser
as someone at the headed window would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.sign_in_portals import run_portal

pytestmark = pytest.mark.browser


async def test_a_sign_in_redirect_to_the_provider_is_the_persons_and_closes_again(
    tmp_path: Path,
) -> None:
    """The sign-in page's link leads to Practice ID and back; then the run cancels, verified."""
    run = await run_portal("portal", tmp_path)
    assert run.result.reason == "completed", run.result
    assert run.state.membership == "cancelled" and run.state.cancel_requests == 1
    assert [request.kind for request in run.person.handoffs] == ["login"]
    assert run.refused_during_run == 0
    assert "POST /authorize" in run.state.provider_requests
    assert run.person.open_at_approval == [False]
    assert run.refused_after
    # The provider's own page never reached the journal (nor, so, any pilot).
    assert b"Sign in with Practice ID" not in run.journal_text


async def test_a_redirect_refused_while_closed_is_reloaded_for_the_person(
    tmp_path: Path,
) -> None:
    """Straight to Practice ID: refused (filter or gate), then opened for the person only."""
    run = await run_portal("portal-direct", tmp_path)
    assert run.result.reason == "completed", run.result
    assert run.refused_during_run + run.gate_refused >= 1
    assert run.state.provider_requests.count("GET /authorize") >= 1
    (handoff,) = run.person.handoffs
    assert handoff.fields == ()
    assert "127.0.0.2" in handoff.why
    assert run.person.open_at_approval == [False]
    assert run.refused_after


async def test_a_sign_in_pop_up_works_and_is_gone_afterwards(tmp_path: Path) -> None:
    """The pop-up (about:blank first, then Practice ID) signs the portal in and closes."""
    run = await run_portal("portal", tmp_path, popup=True)
    assert run.result.reason == "completed", run.result
    assert run.state.membership == "cancelled"
    assert "POST /authorize" in run.state.provider_requests
    assert run.person.open_at_approval == [False]


async def test_the_same_flow_is_refused_without_sign_in_domains(tmp_path: Path) -> None:
    """Without Practice ID in sign_in_domains the filter refuses it and nothing is cancelled."""
    run = await run_portal("portal-closed", tmp_path)
    assert run.result.reason != "completed"
    assert run.state.membership == "active"
    assert run.refused_during_run >= 1
    assert run.state.provider_requests == []
    assert run.person.handoffs == []


async def test_a_pop_up_refused_while_closed_is_reopened_for_the_person(tmp_path: Path) -> None:
    """The pilot's own click opens the pop-up: refused (filter or gate), then loaded again for
    the person only."""
    run = await run_portal("portal-popup", tmp_path)
    assert run.result.reason == "completed", run.result
    # Refused by the gate in the browser (nothing is sent), or by the filter for a request
    # that reaches it before the gate has attached to the new tab: a race a busy machine
    # decides, so either count may be the one.
    refused = (run.refused_during_run, run.gate_refused)
    assert sum(refused) >= 1, refused
    (handoff,) = run.person.handoffs
    assert handoff.fields == () and "127.0.0.2" in handoff.why
    assert "POST /authorize" in run.state.provider_requests
    assert run.person.open_at_approval == [False]
