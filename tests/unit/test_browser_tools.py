"""The tool allowlist, the curated model tools, argument checks and the refs a call targets."""

from __future__ import annotations

import re
from typing import Any

import pytest

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.tools import (
    ALLOWED_TOOLS,
    MODEL_TOOLS,
    REF_PATTERN,
    REQUIRED_TOOLS,
    check_allowed,
    validate_arguments,
    with_schema_defaults,
)
from subterminator_tui.errors import MCPToolError

#: The loop adds these two tools of its own to the browser tools it offers a model.
VIRTUAL_TOOLS = ("complete_task", "request_human_approval")

# Input schemas as Playwright MCP 0.0.83 lists them in tools/list (descriptions shortened).
_TARGET = {"type": "string", "description": "Exact target element reference, or a selector"}
_ELEMENT = {"type": "string", "description": "Human-readable element description"}
SERVER_SCHEMAS: dict[str, dict[str, Any]] = {
    "browser_click": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "element": _ELEMENT,
            "target": _TARGET,
            "doubleClick": {"type": "boolean"},
            "button": {"type": "string", "enum": ["left", "right", "middle"]},
        },
        "required": ["target"],
        "additionalProperties": False,
    },
    "browser_hover": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"element": _ELEMENT, "target": _TARGET},
        "required": ["target"],
        "additionalProperties": False,
    },
    "browser_navigate": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"url": {"type": "string"}},
        "required": ["url"],
        "additionalProperties": False,
    },
    "browser_fill_form": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "fields": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "element": _ELEMENT,
                        "target": _TARGET,
                        "name": {"type": "string"},
                        "type": {
                            "type": "string",
                            "enum": ["textbox", "checkbox", "radio", "combobox", "slider"],
                        },
                        "value": {"type": "string"},
                    },
                    "required": ["target", "name", "type", "value"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["fields"],
        "additionalProperties": False,
    },
    "browser_drag": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "startElement": _ELEMENT,
            "startTarget": _TARGET,
            "endElement": _ELEMENT,
            "endTarget": _TARGET,
        },
        "required": ["startTarget", "endTarget"],
        "additionalProperties": False,
    },
    "browser_take_screenshot": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": ["png", "jpeg", "webp"]},
            "fullPage": {"type": "boolean"},
            "scale": {"default": "css", "type": "string", "enum": ["css", "device"]},
        },
        "required": ["scale"],
        "additionalProperties": False,
    },
}


def field(target: str, name: str = "Username") -> dict[str, str]:
    """One ``browser_fill_form`` field."""
    return {"target": target, "name": name, "type": "textbox", "value": "demo"}


# --- the allowlist ---------------------------------------------------------------------------


def test_allowlist_is_exactly_the_thirteen_tools() -> None:
    """Only these 13 Playwright MCP tools may ever reach the browser."""
    assert sorted(ALLOWED_TOOLS) == [
        "browser_click",
        "browser_fill_form",
        "browser_handle_dialog",
        "browser_hover",
        "browser_navigate",
        "browser_navigate_back",
        "browser_press_key",
        "browser_select_option",
        "browser_snapshot",
        "browser_tabs",
        "browser_take_screenshot",
        "browser_type",
        "browser_wait_for",
    ]


def test_required_tools_are_allowed() -> None:
    """Every tool the handshake insists on is one the gateway forwards."""
    assert REQUIRED_TOOLS <= ALLOWED_TOOLS


@pytest.mark.parametrize(
    "tool", ["browser_evaluate", "browser_run_code_unsafe", "browser_file_upload"]
)
def test_dangerous_tools_are_refused(tool: str) -> None:
    """Running page JavaScript or uploading files is refused by name."""
    with pytest.raises(MCPToolError, match=f"Tool '{tool}' is not allowed"):
        check_allowed(tool)


@pytest.mark.parametrize("tool", ["browser_close", "page_registered_tool", ""])
def test_unknown_and_unlisted_tools_are_refused(tool: str) -> None:
    """Anything off the list (server tools, page tools, nonsense) is refused."""
    with pytest.raises(MCPToolError, match="not allowed"):
        check_allowed(tool)


@pytest.mark.parametrize("tool", sorted(ALLOWED_TOOLS))
def test_allowed_tools_pass_the_check(tool: str) -> None:
    """An allowlisted tool passes ``check_allowed`` silently."""
    check_allowed(tool)


# --- the curated model tools ------------------------------------------------------------------


def test_a_model_is_offered_fewer_than_ten_tools() -> None:
    """Browser tools plus the loop's two virtual tools stay under ten."""
    assert len(MODEL_TOOLS) + len(VIRTUAL_TOOLS) < 10


def test_model_tool_names_are_unique() -> None:
    """No tool is offered twice."""
    names = [tool.name for tool in MODEL_TOOLS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("tool", MODEL_TOOLS, ids=lambda tool: tool.name)
def test_every_model_tool_is_allowed(tool: Any) -> None:
    """A model is never offered a tool the gateway would refuse."""
    assert tool.name in ALLOWED_TOOLS


@pytest.mark.parametrize("tool", MODEL_TOOLS, ids=lambda tool: tool.name)
def test_every_model_tool_says_when_what_and_errors(tool: Any) -> None:
    """Each description says WHEN TO USE, WHAT HAPPENS and the ERRORS."""
    for heading in ("WHEN TO USE", "WHAT HAPPENS", "ERRORS"):
        assert heading in tool.description


@pytest.mark.parametrize("tool", MODEL_TOOLS, ids=lambda tool: tool.name)
def test_model_tool_targets_accept_refs_only(tool: Any) -> None:
    """Any ``target`` a model tool takes is constrained to the ref pattern."""
    target = tool.input_schema["properties"].get("target")
    if target is not None:
        assert target["pattern"] == REF_PATTERN


@pytest.mark.parametrize("ref", ["e1", "e12", "f1e3", "f12e345"])
def test_ref_pattern_accepts_playwright_refs(ref: str) -> None:
    """Refs as Playwright prints them, in the page and inside frames, match."""
    assert re.fullmatch(REF_PATTERN, ref)


@pytest.mark.parametrize("text", ["#submit", "button[type=submit]", "e", "ref=e1", "e1 ", "E1"])
def test_ref_pattern_rejects_selectors_and_near_misses(text: str) -> None:
    """Selectors and malformed refs do not match."""
    assert not re.search(REF_PATTERN, text)


# --- validate_arguments ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("browser_click", {"target": "e7"}),
        ("browser_hover", {"target": "f1e3", "element": "Help link"}),
        ("browser_navigate", {"url": "https://example.com/account"}),
        ("browser_fill_form", {"fields": [field("e4"), field("f2e5", "Password")]}),
        ("browser_drag", {"startTarget": "e1", "endTarget": "e2"}),
    ],
)
def test_valid_arguments_pass(tool: str, arguments: dict[str, Any]) -> None:
    """Ref targets and required arguments pass both the server's and our schema."""
    validate_arguments(tool, arguments, SERVER_SCHEMAS[tool])


@pytest.mark.parametrize(
    ("tool", "arguments", "where"),
    [
        ("browser_click", {"target": "button[type=submit]"}, "target"),
        ("browser_hover", {"target": "#help"}, "target"),
        ("browser_drag", {"startTarget": ".card", "endTarget": "e2"}, "startTarget"),
        ("browser_drag", {"startTarget": "e1", "endTarget": "text=Trash"}, "endTarget"),
    ],
)
def test_selectors_in_targets_are_refused(tool: str, arguments: dict[str, Any], where: str) -> None:
    """A selector instead of a ref is refused, naming the argument."""
    with pytest.raises(
        MCPToolError, match=f"Invalid arguments for {tool}: {where}: .*does not match"
    ):
        validate_arguments(tool, arguments, SERVER_SCHEMAS[tool])


@pytest.mark.parametrize("tool", ["browser_click", "browser_hover"])
def test_ref_with_a_trailing_newline_is_refused(tool: str) -> None:
    """``"e7\\n"`` is not a ref: Playwright would run it as a selector, unseen by the rules."""
    with pytest.raises(MCPToolError, match="target"):
        validate_arguments(tool, {"target": "e7\n"}, SERVER_SCHEMAS[tool])


def test_selector_in_a_form_field_is_refused() -> None:
    """``browser_fill_form`` is checked field by field: one selector refuses the call."""
    arguments = {"fields": [field("e4"), field("input[name=password]", "Password")]}
    with pytest.raises(MCPToolError, match=r"target: .*does not match"):
        validate_arguments("browser_fill_form", arguments, SERVER_SCHEMAS["browser_fill_form"])


def test_missing_required_argument_is_refused() -> None:
    """A call without a required argument fails before dispatch, naming it."""
    with pytest.raises(MCPToolError, match="'url' is a required property"):
        validate_arguments("browser_navigate", {}, SERVER_SCHEMAS["browser_navigate"])


def test_additional_property_is_refused() -> None:
    """An argument the schema does not list is refused."""
    with pytest.raises(MCPToolError, match=r"Additional properties.*'evil'"):
        validate_arguments(
            "browser_navigate",
            {"url": "about:blank", "evil": 1},
            SERVER_SCHEMAS["browser_navigate"],
        )


def test_curated_schema_narrows_the_servers() -> None:
    """A server-valid click option the model tool does not offer (doubleClick) is refused."""
    with pytest.raises(MCPToolError, match="Additional properties"):
        validate_arguments(
            "browser_click", {"target": "e7", "doubleClick": True}, SERVER_SCHEMAS["browser_click"]
        )


def test_tool_the_server_does_not_offer_is_refused() -> None:
    """Without a server schema there is nothing to dispatch to."""
    with pytest.raises(MCPToolError, match="does not offer 'browser_tabs'"):
        validate_arguments("browser_tabs", {"action": "list"}, None)


# --- with_schema_defaults ---------------------------------------------------------------------


def test_schema_defaults_fill_a_missing_argument() -> None:
    """A zod default listed as required (``scale``) is filled in."""
    schema = {"properties": {"scale": {"default": "css"}}, "required": ["scale"]}
    assert with_schema_defaults({}, schema) == {"scale": "css"}


def test_schema_defaults_never_override_a_given_argument() -> None:
    """An argument the caller gave keeps its value."""
    schema = {"properties": {"scale": {"default": "css"}}, "required": ["scale"]}
    assert with_schema_defaults({"scale": "device"}, schema) == {"scale": "device"}


def test_schema_defaults_leave_the_input_untouched() -> None:
    """The caller's mapping is not mutated; a new dict is returned."""
    arguments: dict[str, Any] = {"type": "png"}
    filled = with_schema_defaults(arguments, SERVER_SCHEMAS["browser_take_screenshot"])
    assert filled == {"type": "png", "scale": "css"}
    assert arguments == {"type": "png"}


def test_defaults_make_a_real_screenshot_schema_pass() -> None:
    """The real screenshot schema (scale required with a default) validates once filled."""
    schema = SERVER_SCHEMAS["browser_take_screenshot"]
    with pytest.raises(MCPToolError, match="'scale' is a required property"):
        validate_arguments("browser_take_screenshot", {"type": "png"}, schema)
    validate_arguments(
        "browser_take_screenshot", with_schema_defaults({"type": "png"}, schema), schema
    )


def test_schema_defaults_without_a_schema_copy_the_arguments() -> None:
    """No schema means nothing to fill."""
    assert with_schema_defaults({"url": "about:blank"}, None) == {"url": "about:blank"}


# --- ToolCall.target_refs ------------------------------------------------------------------


def test_target_refs_of_a_click_is_its_target() -> None:
    """A click acts on its one target."""
    assert ToolCall("1", "browser_click", {"target": "e7"}).target_refs() == ["e7"]


def test_target_refs_of_a_drag_are_start_then_end() -> None:
    """A drag acts on both ends, in argument order."""
    call = ToolCall("2", "browser_drag", {"startTarget": "e1", "endTarget": "f1e2"})
    assert call.target_refs() == ["e1", "f1e2"]


def test_target_refs_of_a_form_are_every_field() -> None:
    """``browser_fill_form`` acts on every field's target, not only the first."""
    call = ToolCall(
        "3", "browser_fill_form", {"fields": [field("e4"), field("e6", "Password"), field("e9")]}
    )
    assert call.target_refs() == ["e4", "e6", "e9"]


def test_target_refs_of_a_call_without_targets_is_empty() -> None:
    """Navigation and key presses target no element."""
    assert ToolCall("4", "browser_navigate", {"url": "https://example.com"}).target_refs() == []
    assert ToolCall("5", "browser_press_key", {"key": "Escape"}).target_refs() == []
