"""The scripted model answers like a model that follows the schema it is offered."""

from __future__ import annotations

from typing import Any

from subterminator_bench.loopback_model import ModelRequest
from subterminator_bench.scripted_brain import PlaybookBrain
from subterminator_tui.browser.tools import MODEL_TOOLS
from subterminator_tui.rules import PlaybookStep

PAGE = 'Current page:\nSnapshot:\n- button "Cancel membership" [ref=e14]'
CLICK = next(tool for tool in MODEL_TOOLS if tool.name == "browser_click")
#: Playwright MCP's own schema for the click, as the naive configuration offers it.
SERVER_CLICK = {
    "type": "object",
    "properties": {"element": {"type": "string"}, "target": {"type": "string"}},
    "required": ["element", "target"],
}


def request(schema: dict[str, Any]) -> ModelRequest:
    """An Anthropic request offering one click tool with ``schema`` and showing ``PAGE``."""
    body = {
        "tools": [{"name": "browser_click", "description": "", "input_schema": schema}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": PAGE}]}],
    }
    return ModelRequest("anthropic", body, {})


def click_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """The arguments the brain sends for the one click step."""
    step = PlaybookStep(action="click", role="button", name="Cancel membership")
    turn = PlaybookBrain([step])(request(schema))
    assert turn.tool_calls and turn.tool_calls[0][0] == "browser_click"
    return turn.tool_calls[0][1]


def test_our_schema_gets_only_the_ref() -> None:
    """Our click declares no element description, so none is sent."""
    assert click_arguments(CLICK.input_schema) == {"target": "e14"}


def test_the_servers_schema_gets_the_description_it_asks_for() -> None:
    """Playwright's own click asks for a description of the element."""
    arguments = click_arguments(SERVER_CLICK)
    assert arguments == {"target": "e14", "element": "button Cancel membership"}


def test_tool_arguments_reads_openai_function_schemas() -> None:
    """The same question answered for the OpenAI wire format."""
    body = {"tools": [{"type": "function", "function": {"name": "x", "parameters": SERVER_CLICK}}]}
    assert ModelRequest("openai", body, {}).tool_arguments("x") == {"element", "target"}
    assert ModelRequest("openai", body, {}).tool_arguments("y") == set()


def test_a_missing_control_is_waited_for_once_then_counted_lost() -> None:
    """A page still drawing gets one wait for the control's text; still missing, it is lost."""
    step = PlaybookStep(action="click", role="button", name="Finish cancellation")
    brain = PlaybookBrain([step])
    first = brain(request(CLICK.input_schema))
    assert first.tool_calls == [("browser_wait_for", {"text": "Finish cancellation"})]
    assert brain.lost == []
    second = brain(request(CLICK.input_schema))
    assert second.tool_calls == []
    assert brain.lost == ["click button 'Finish cancellation'"]
