"""The Anthropic Messages API behind the provider-neutral ModelClient.

Prompt caching uses Anthropic's own breakpoints (``cache_control``): one after
the system prompt, which caches the tool definitions with it (they come first
in the prompt, in a fixed order), and one before the conversation's last block,
the end of the part that later calls resend unchanged. That last block is the
fresh page, which the next call replaces by a stub, so marking it would only pay
for cache writes that are never read.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, cast

import anthropic
from anthropic.types import (
    CacheControlEphemeralParam,
    ContentBlockParam,
    Message,
    MessageParam,
    TextBlockParam,
    ToolParam,
    ToolResultBlockParam,
)

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.costs import Usage
from subterminator_tui.providers.base import Message as ConversationMessage
from subterminator_tui.providers.base import (
    ModelReply,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from subterminator_tui.providers.retry import (
    DEFAULT_TIMEOUT,
    CallFailure,
    RetryPolicy,
    call_with_retries,
    connection_failure,
    status_failure,
    timeout_failure,
)

PROVIDER = "anthropic"
_EPHEMERAL: CacheControlEphemeralParam = {"type": "ephemeral"}


def to_anthropic_tools(specs: Sequence[ToolSpec]) -> list[ToolParam]:
    """Tool specs in the Messages API's ``tools`` shape."""
    return [
        {"name": spec.name, "description": spec.description, "input_schema": spec.input_schema}
        for spec in specs
    ]


def to_anthropic_messages(messages: Sequence[ConversationMessage]) -> list[MessageParam]:
    """The conversation as strictly alternating user/assistant turns.

    Consecutive tool results and user texts become one user turn, tool
    results first: the API rejects a tool_result that follows text in the
    turn after a tool_use. Empty texts are dropped (the API rejects empty text
    blocks), and so is an assistant message left with no content.
    """
    turns: list[tuple[str, list[ContentBlockParam]]] = []
    for message in messages:
        role, blocks = _to_blocks(message)
        if not blocks:
            continue
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
    converted: list[MessageParam] = []
    for role, blocks in turns:
        if role == "user":
            converted.append({"role": "user", "content": _tool_results_first(blocks)})
        else:
            converted.append({"role": "assistant", "content": blocks})
    return converted


def _to_blocks(message: ConversationMessage) -> tuple[str, list[ContentBlockParam]]:
    if isinstance(message, UserMessage):
        text_blocks: list[ContentBlockParam] = []
        if message.text.strip():
            text_blocks.append({"type": "text", "text": message.text})
        return "user", text_blocks
    if isinstance(message, ToolResultMessage):
        result: ToolResultBlockParam = {
            "type": "tool_result",
            "tool_use_id": message.call_id,
            "content": message.content,
        }
        if message.is_error:
            # Omitted when false (the API's default): every result is resent with each call.
            result["is_error"] = True
        return "user", [result]
    blocks: list[ContentBlockParam] = []
    if message.text.strip():
        blocks.append({"type": "text", "text": message.text})
    blocks.extend(
        {"type": "tool_use", "id": call.id, "name": call.name, "input": dict(call.arguments)}
        for call in message.tool_calls
    )
    return "assistant", blocks


def cached_system(system: str) -> list[TextBlockParam]:
    """The system prompt as one text block ending in a cache breakpoint.

    The tools come before the system prompt in Anthropic's prompt order, so
    this one breakpoint caches both.
    """
    return [{"type": "text", "text": system, "cache_control": _EPHEMERAL}]


def mark_stable_prefix(messages: list[MessageParam]) -> list[MessageParam]:
    """``messages`` with a cache breakpoint on the block before the conversation's last one.

    The last block carries the fresh page (a tool result, or the first page after
    the goal), which the next call replaces by a stub; everything before it is
    sent again byte for byte, so that is where the cache can grow. The messages
    are copied, not changed.
    """
    positions = [
        (index, block)
        for index, message in enumerate(messages)
        if not isinstance(message["content"], str)
        for block in range(len(list(message["content"])))
    ]
    if len(positions) < 2:
        return messages
    index, block = positions[-2]
    blocks = list(messages[index]["content"])
    last: dict[str, Any] = dict(cast(dict[str, Any], blocks[block]))
    last["cache_control"] = _EPHEMERAL
    blocks[block] = cast(ContentBlockParam, last)
    marked = list(messages)
    marked[index] = cast(MessageParam, {"role": messages[index]["role"], "content": blocks})
    return marked


def _tool_results_first(blocks: list[ContentBlockParam]) -> list[ContentBlockParam]:
    results = [block for block in blocks if block["type"] == "tool_result"]
    others = [block for block in blocks if block["type"] != "tool_result"]
    return results + others


def parse_anthropic_reply(response: Message) -> tuple[str, tuple[ToolCall, ...], Usage]:
    """Text (text blocks joined by newlines), tool calls in order, and usage of a response."""
    texts = [block.text for block in response.content if block.type == "text"]
    calls = tuple(
        ToolCall(id=block.id, name=block.name, arguments=dict(block.input))
        for block in response.content
        if block.type == "tool_use"
    )
    usage = usage_of(response)
    return "\n".join(texts), calls, usage


def usage_of(response: Message) -> Usage:
    """The response's usage in our terms: Anthropic's ``input_tokens`` counts only the
    tokens after the last cache breakpoint, so the cache's reads and writes are added
    to give every token the model read."""
    reported = response.usage
    reads = reported.cache_read_input_tokens or 0
    writes = reported.cache_creation_input_tokens or 0
    return Usage(
        input_tokens=reported.input_tokens + reads + writes,
        output_tokens=reported.output_tokens,
        cache_read_tokens=reads,
        cache_write_tokens=writes,
    )


def describe_anthropic_error(error: Exception) -> CallFailure | None:
    """Classify an anthropic SDK error for the retry loop; None for anything else."""
    if isinstance(error, anthropic.APITimeoutError):
        return timeout_failure(PROVIDER, error.message)
    if isinstance(error, anthropic.APIConnectionError):
        return connection_failure(PROVIDER, error.request.url.host, error.message)
    if isinstance(error, anthropic.APIStatusError):
        detail = error.api_message or error.message
        return status_failure(PROVIDER, error.status_code, error.type, detail, "ANTHROPIC_API_KEY")
    return None


class AnthropicModelClient:
    """A Claude model through the official anthropic SDK (Messages API, no streaming)."""

    def __init__(
        self,
        model: str,
        *,
        client: anthropic.AsyncAnthropic | None = None,
        policy: RetryPolicy | None = None,
        max_tokens: int = 1024,
    ) -> None:
        self._model = model
        self._client = client or anthropic.AsyncAnthropic(max_retries=0, timeout=DEFAULT_TIMEOUT)
        self._policy = policy or RetryPolicy()
        self._max_tokens = max_tokens

    @property
    def model(self) -> str:
        """The model name as Anthropic knows it."""
        return self._model

    @property
    def provider(self) -> str:
        """Always ``anthropic``."""
        return PROVIDER

    async def complete(
        self,
        system: str,
        messages: Sequence[ConversationMessage],
        tools: Sequence[ToolSpec],
    ) -> ModelReply:
        """Send the conversation and return the reply; LLMError after retries or timeout."""
        converted_tools = to_anthropic_tools(tools)
        if converted_tools and not system:
            # No system prompt to carry the breakpoint: the last tool carries it.
            converted_tools[-1] = {**converted_tools[-1], "cache_control": _EPHEMERAL}
        converted_messages = mark_stable_prefix(to_anthropic_messages(messages))

        async def send() -> Message:
            return await self._client.messages.create(
                model=self._model,
                max_tokens=self._max_tokens,
                system=cached_system(system) if system else anthropic.omit,
                messages=converted_messages,
                tools=converted_tools or anthropic.omit,
            )

        started = time.monotonic()
        response, attempts = await call_with_retries(self._policy, send, describe_anthropic_error)
        latency = time.monotonic() - started
        text, calls, usage = parse_anthropic_reply(response)
        return ModelReply(
            text=text,
            tool_calls=calls,
            usage=usage,
            latency=latency,
            stop_reason=response.stop_reason,
            attempts=attempts,
            extra={"response_id": response.id},
        )

    async def aclose(self) -> None:
        """Close the SDK client's HTTP connections."""
        await self._client.close()
