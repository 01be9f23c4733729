"""The guard on REAL Playwright MCP captures: what may reach the browser, what is asked first."""

from __future__ import annotations

from pathlib import Path

import pytest

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.browser.tools import ALLOWED_TOOLS, MODEL_TOOL_NAMES
from subterminator_tui.guarded.guard import Guard, describe_action
from subterminator_tui.rules import ServiceConfig, load_services
from subterminator_tui.rules.service_urls import pinned_to_site
from tests.fixtures.pages import page


def ref(snapshot: NormalizedSnapshot, role: str, name: str) -> str:
    """The ref of the one element with this role and exact name."""
    return snapshot.ref_of(role, name)


def click(target: str, element: str = "the button") -> ToolCall:
    """A browser_click as a model sends it, with its own description of the element."""
    return ToolCall("call-1", "browser_click", {"target": target, "element": element})


@pytest.fixture(scope="module")
def demoflix() -> ServiceConfig:
    """The built-in demoflix service, its site running on port 8000 (as the captures were)."""
    return pinned_to_site(load_services(user_file=None).get("demoflix"), "http://127.0.0.1:8000")


@pytest.fixture
def guard(demoflix: ServiceConfig) -> Guard:
    """The guard a run uses: the model's tools, checkpoints on."""
    return Guard(demoflix, offered_tools=MODEL_TOOL_NAMES)


def test_a_ref_from_an_earlier_page_is_refused(guard: Guard, tmp_path: Path) -> None:
    """A ref taken from the account page is stale on the confirm page: nothing may be clicked."""
    stale = ref(page("account", tmp_path), "button", "Cancel membership")
    confirm = page("confirm", tmp_path)
    assert confirm.element_by_ref(stale) is None
    refusal = guard.refusal(click(stale), confirm)
    assert refusal is not None
    assert "not on the current page" in refusal.message
    assert stale in refusal.message


def test_a_ref_on_the_current_page_is_not_refused(guard: Guard, tmp_path: Path) -> None:
    """A fresh ref of a real element passes the guard."""
    confirm = page("confirm", tmp_path)
    assert guard.refusal(click(ref(confirm, "button", "Keep my membership")), confirm) is None


def test_one_stale_ref_among_form_fields_is_refused(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """browser_fill_form targets every field: one ref from another page refuses the whole call."""
    guard = Guard(demoflix, offered_tools=ALLOWED_TOOLS)
    login = page("login", tmp_path)
    stale = ref(page("verify", tmp_path), "textbox", "Verification code")
    assert login.element_by_ref(stale) is None
    fields = [
        {"target": ref(login, "textbox", "Username"), "name": "Username", "value": "x"},
        {"target": stale, "name": "Code", "value": "1"},
    ]
    refusal = guard.refusal(ToolCall("call-1", "browser_fill_form", {"fields": fields}), login)
    assert refusal is not None
    assert f"Element ref {stale} is not on the current page" in refusal.message


def test_a_tool_not_offered_is_refused(guard: Guard, tmp_path: Path) -> None:
    """browser_evaluate is never offered, so it is refused and the offered tools are named."""
    confirm = page("confirm", tmp_path)
    call = ToolCall("call-1", "browser_evaluate", {"function": "() => document.title"})
    refusal = guard.refusal(call, confirm)
    assert refusal is not None
    assert "'browser_evaluate' is not available" in refusal.message
    assert "browser_click" in refusal.message


def test_an_allowed_tool_outside_the_offered_set_is_refused(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """A tool the gateway could forward is still refused when this guard does not offer it."""
    guard = Guard(demoflix, offered_tools=frozenset({"browser_click"}))
    call = ToolCall("call-1", "browser_navigate", {"url": "http://127.0.0.1:8000/account"})
    refusal = guard.refusal(call, page("account", tmp_path))
    assert refusal is not None
    assert "'browser_navigate' is not available" in refusal.message


def test_navigation_to_another_domain_is_refused(guard: Guard, tmp_path: Path) -> None:
    """Demoflix may only visit 127.0.0.1; example.com is refused and the domains are named."""
    call = ToolCall("call-1", "browser_navigate", {"url": "https://example.com/account"})
    refusal = guard.refusal(call, page("account", tmp_path))
    assert refusal is not None
    assert "https://example.com/account refused" in refusal.message
    assert "127.0.0.1" in refusal.message


def test_navigation_within_the_service_domain_is_allowed(guard: Guard, tmp_path: Path) -> None:
    """Another page of the practice site on 127.0.0.1 may be opened."""
    call = ToolCall("call-1", "browser_navigate", {"url": "http://127.0.0.1:8000/account"})
    assert guard.refusal(call, page("confirm", tmp_path)) is None


def test_another_port_on_the_practice_address_is_refused(guard: Guard, tmp_path: Path) -> None:
    """Another local server (serve's own /mcp, a database console) is not the practice site."""
    call = ToolCall("call-1", "browser_navigate", {"url": "http://127.0.0.1:8001/mcp"})
    refusal = guard.refusal(call, page("confirm", tmp_path))
    assert refusal is not None and "refused" in refusal.message


def test_describe_action_names_the_real_target_not_the_model_description(
    tmp_path: Path,
) -> None:
    """The model calls Finish "Continue"; the description comes from the snapshot."""
    confirm = page("confirm", tmp_path)
    call = click(ref(confirm, "button", "Finish cancellation"), element="Continue button")
    assert describe_action(call, Guard.target_of(call, confirm)) == (
        "Click button 'Finish cancellation'"
    )


def test_the_finish_click_asks_the_human_first(guard: Guard, tmp_path: Path) -> None:
    """With checkpoints on, clicking Finish cancellation is held for approval."""
    confirm = page("confirm", tmp_path)
    rule = guard.checkpoint(click(ref(confirm, "button", "Finish cancellation")), confirm)
    assert rule is not None
    assert rule.why == "Finishing the cancellation is irreversible"


def test_a_harmless_click_is_not_a_checkpoint(guard: Guard, tmp_path: Path) -> None:
    """Keep my membership matches no checkpoint rule."""
    confirm = page("confirm", tmp_path)
    assert guard.checkpoint(click(ref(confirm, "button", "Keep my membership")), confirm) is None


def test_checkpoints_off_never_asks(demoflix: ServiceConfig, tmp_path: Path) -> None:
    """checkpoints=False: even the Finish click has no checkpoint."""
    guard = Guard(demoflix, offered_tools=MODEL_TOOL_NAMES, checkpoints=False)
    confirm = page("confirm", tmp_path)
    assert guard.checkpoint(click(ref(confirm, "button", "Finish cancellation")), confirm) is None
