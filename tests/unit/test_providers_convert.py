"""The pure converters between the neutral conversation and each provider's wire format."""

from __future__ import annotations

from typing import Any

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.providers.anthropic_client import to_anthropic_messages, to_anthropic_tools
from subterminator_tui.providers.base import (
    AssistantMessage,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from subterminator_tui.providers.openai_client import (
    UNPARSED_ARGUMENTS,
    parse_arguments,
    to_openai_messages,
    to_openai_tools,
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"target": {"type": "string"}},
    "required": ["target"],
}
CLICK = ToolSpec(name="browser_click", description="Click an element", input_schema=SCHEMA)
CALL = ToolCall(id="call_1", name="browser_click", arguments={"target": "e7"})


def block_types(content: Any) -> list[str]:
    """The type of each content block, in order."""
    return [block["type"] for block in content]


def test_anthropic_tool_uses_input_schema() -> None:
    """A ToolSpec becomes name/description/input_schema."""
    assert to_anthropic_tools([CLICK]) == [
        {"name": "browser_click", "description": "Click an element", "input_schema": SCHEMA}
    ]


def test_openai_tool_is_a_function_with_parameters() -> None:
    """A ToolSpec becomes a function tool with the schema as parameters."""
    assert to_openai_tools([CLICK]) == [
        {
            "type": "function",
            "function": {
                "name": "browser_click",
                "description": "Click an element",
                "parameters": SCHEMA,
            },
        }
    ]


def test_anthropic_user_text_is_a_user_turn() -> None:
    """A UserMessage becomes a user turn with one text block."""
    assert to_anthropic_messages([UserMessage("Cancel Netflix")]) == [
        {"role": "user", "content": [{"type": "text", "text": "Cancel Netflix"}]}
    ]


def test_anthropic_assistant_text_then_tool_use() -> None:
    """Assistant text comes first, then its tool_use blocks."""
    converted = to_anthropic_messages([AssistantMessage("Clicking.", (CALL,))])
    assert converted == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Clicking."},
                {
                    "type": "tool_use",
                    "id": "call_1",
                    "name": "browser_click",
                    "input": {"target": "e7"},
                },
            ],
        }
    ]


def test_anthropic_assistant_without_text_has_no_empty_text_block() -> None:
    """An assistant message with only a tool call sends no (rejected) empty text block."""
    converted = to_anthropic_messages([AssistantMessage("", (CALL,))])
    assert block_types(converted[0]["content"]) == ["tool_use"]


def test_anthropic_tool_result_carries_is_error() -> None:
    """A failed tool result is a tool_result block with is_error true."""
    converted = to_anthropic_messages([ToolResultMessage("call_1", "No such ref", is_error=True)])
    assert converted == [
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_1",
                    "content": "No such ref",
                    "is_error": True,
                }
            ],
        }
    ]


def test_anthropic_consecutive_user_content_merges_into_one_turn() -> None:
    """Tool results and a following nudge form one user turn."""
    converted = to_anthropic_messages(
        [
            AssistantMessage("", (CALL, ToolCall("call_2", "browser_snapshot"))),
            ToolResultMessage("call_1", "clicked"),
            ToolResultMessage("call_2", "page"),
            UserMessage("Keep going"),
        ]
    )
    assert [message["role"] for message in converted] == ["assistant", "user"]
    blocks = converted[1]["content"]
    assert block_types(blocks) == ["tool_result", "tool_result", "text"]


def test_anthropic_tool_results_precede_text_in_a_merged_turn() -> None:
    """A nudge that arrives before a tool result still follows it in the merged turn."""
    converted = to_anthropic_messages(
        [AssistantMessage("", (CALL,)), UserMessage("Hurry"), ToolResultMessage("call_1", "ok")]
    )
    assert block_types(converted[1]["content"]) == ["tool_result", "text"]


def test_anthropic_roles_alternate_over_a_conversation() -> None:
    """A whole conversation converts to strictly alternating roles, user first."""
    converted = to_anthropic_messages(
        [
            UserMessage("Goal"),
            UserMessage("Context"),
            AssistantMessage("Looking", (CALL,)),
            ToolResultMessage("call_1", "page"),
            AssistantMessage("Done"),
            AssistantMessage(""),
            UserMessage("Sure?"),
        ]
    )
    roles = [message["role"] for message in converted]
    assert roles == ["user", "assistant", "user", "assistant", "user"]


def test_anthropic_empty_assistant_message_is_dropped() -> None:
    """An assistant message with neither text nor calls is left out."""
    assert to_anthropic_messages([UserMessage("Goal"), AssistantMessage()]) == [
        {"role": "user", "content": [{"type": "text", "text": "Goal"}]}
    ]


def test_openai_system_prompt_comes_first() -> None:
    """The system prompt is the first message, role system."""
    converted = to_openai_messages([UserMessage("Goal")], "Be careful")
    assert converted == [
        {"role": "system", "content": "Be careful"},
        {"role": "user", "content": "Goal"},
    ]


def test_openai_without_system_prompt_sends_none() -> None:
    """An empty system prompt adds no system message."""
    assert to_openai_messages([UserMessage("Goal")]) == [{"role": "user", "content": "Goal"}]


def test_openai_assistant_tool_calls_carry_json_arguments() -> None:
    """Assistant tool calls are function calls with JSON-encoded arguments, content None."""
    assert to_openai_messages([AssistantMessage("", (CALL,))]) == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "browser_click", "arguments": '{"target": "e7"}'},
                }
            ],
        }
    ]


def test_openai_assistant_text_only_has_no_tool_calls_key() -> None:
    """A text-only assistant message sends no (rejected) empty tool_calls list."""
    assert to_openai_messages([AssistantMessage("Done")]) == [
        {"role": "assistant", "content": "Done"}
    ]


def test_openai_tool_result_is_a_tool_message() -> None:
    """A tool result is a role tool message keyed by tool_call_id."""
    assert to_openai_messages([ToolResultMessage("call_1", "clicked")]) == [
        {"role": "tool", "tool_call_id": "call_1", "content": "clicked"}
    ]


def test_openai_failed_tool_result_is_marked_in_content() -> None:
    """Chat Completions has no is_error flag, so a failure is prefixed with ERROR:."""
    converted = to_openai_messages([ToolResultMessage("call_1", "No such ref", is_error=True)])
    assert converted[0]["content"] == "ERROR: No such ref"


def test_openai_arguments_parse_as_json() -> None:
    """Valid JSON object arguments become a dict."""
    assert parse_arguments('{"target": "e7"}') == {"target": "e7"}


def test_openai_empty_arguments_are_an_empty_dict() -> None:
    """Blank arguments (some local servers send "") mean no arguments."""
    assert parse_arguments("") == {}


def test_openai_invalid_arguments_are_kept_unparsed() -> None:
    """Arguments that are not JSON are kept raw under _unparsed for the schema check."""
    assert parse_arguments('{"target": e7') == {UNPARSED_ARGUMENTS: '{"target": e7'}


def test_openai_non_object_arguments_are_kept_unparsed() -> None:
    """JSON that is not an object is refused the same way."""
    assert parse_arguments("[1, 2]") == {UNPARSED_ARGUMENTS: "[1, 2]"}
