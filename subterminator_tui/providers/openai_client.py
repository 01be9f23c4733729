"""OpenAI's Chat Completions API (and servers that imitate it) behind ModelClient.

OpenAI caches prompts on its own: a prompt whose beginning matches an earlier
one (1,024 tokens or more) is served from the cache. What keeps that beginning
byte-stable is on our side: the tools in a fixed order, then the system prompt,
then the conversation, with nothing that changes per call (a clock, a turn
counter) before the newest page.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from typing import Any

import openai
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionMessageFunctionToolCallParam,
    ChatCompletionMessageParam,
    ChatCompletionToolParam,
)

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.costs import Usage
from subterminator_tui.errors import LLMError
from subterminator_tui.providers.base import (
    AssistantMessage,
    Message,
    ModelReply,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from subterminator_tui.providers.retry import (
    DEFAULT_TIMEOUT,
    CallFailure,
    DescribeError,
    RetryPolicy,
    call_with_retries,
    connection_failure,
    status_failure,
    timeout_failure,
)

logger = logging.getLogger(__name__)

#: Key under which arguments that are not a JSON object are kept, so the
#: tool-schema check refuses the call with a clear error instead of guessing.
UNPARSED_ARGUMENTS = "_unparsed"

# Chat Completions has no is_error flag on tool messages; the prefix keeps the signal.
_ERROR_PREFIX = "ERROR: "


def to_openai_tools(specs: Sequence[ToolSpec]) -> list[ChatCompletionToolParam]:
    """Tool specs as Chat Completions function tools."""
    return [
        {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.input_schema,
            },
        }
        for spec in specs
    ]


def to_openai_messages(
    messages: Sequence[Message], system: str = ""
) -> list[ChatCompletionMessageParam]:
    """The conversation as Chat Completions messages, the system prompt first when given."""
    converted: list[ChatCompletionMessageParam] = []
    if system:
        converted.append({"role": "system", "content": system})
    for message in messages:
        if isinstance(message, UserMessage):
            converted.append({"role": "user", "content": message.text})
        elif isinstance(message, ToolResultMessage):
            content = message.content
            if message.is_error and not content.startswith(_ERROR_PREFIX):
                content = _ERROR_PREFIX + content
            converted.append({"role": "tool", "tool_call_id": message.call_id, "content": content})
        else:
            converted.append(_assistant(message))
    return converted


def _assistant(message: AssistantMessage) -> ChatCompletionMessageParam:
    calls: list[ChatCompletionMessageFunctionToolCallParam] = [
        {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
        }
        for call in message.tool_calls
    ]
    content = message.text or None
    # The API rejects an empty tool_calls array, so the key is only sent with calls.
    if calls:
        return {"role": "assistant", "content": content, "tool_calls": calls}
    return {"role": "assistant", "content": content}


def parse_arguments(raw: str) -> dict[str, Any]:
    """Tool-call arguments as a dict; ``{"_unparsed": raw}`` when not a JSON object."""
    if not raw.strip():
        # Some local servers send "" for a call without arguments.
        return {}
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        parsed = None
    if isinstance(parsed, dict):
        return parsed
    logger.warning("Tool-call arguments are not a JSON object: %.200s", raw)
    return {UNPARSED_ARGUMENTS: raw}


def parse_openai_reply(
    response: ChatCompletion, provider: str = "openai"
) -> tuple[str, tuple[ToolCall, ...], Usage, str | None]:
    """Text, function tool calls in order, usage and finish reason of a completion."""
    if not response.choices:
        raise LLMError(f"{provider} returned a completion without choices.")
    choice = response.choices[0]
    calls = tuple(
        ToolCall(
            id=call.id,
            name=call.function.name,
            arguments=parse_arguments(call.function.arguments),
        )
        for call in choice.message.tool_calls or []
        if call.type == "function"
    )
    return choice.message.content or "", calls, usage_of(response), choice.finish_reason


def usage_of(response: ChatCompletion) -> Usage:
    """The completion's usage: ``prompt_tokens`` includes the cached ones, which
    ``prompt_tokens_details.cached_tokens`` counts (servers without a cache omit it)."""
    reported = response.usage
    if reported is None:
        return Usage()
    details = reported.prompt_tokens_details
    reads = (details.cached_tokens or 0) if details else 0
    writes = (details.cache_write_tokens or 0) if details else 0
    return Usage(
        input_tokens=reported.prompt_tokens,
        output_tokens=reported.completion_tokens,
        cache_read_tokens=reads,
        cache_write_tokens=writes,
    )


def error_describer(provider: str) -> DescribeError:
    """A describe_error for the retry loop that names ``provider`` in its messages."""

    def describe(error: Exception) -> CallFailure | None:
        if isinstance(error, openai.APITimeoutError):
            return timeout_failure(provider, error.message)
        if isinstance(error, openai.APIConnectionError):
            return connection_failure(provider, error.request.url.host, error.message)
        if isinstance(error, openai.APIStatusError):
            body = error.body
            message = body.get("message") if isinstance(body, dict) else None
            detail = str(message or error.message)
            return status_failure(provider, error.status_code, error.type, detail, "OPENAI_API_KEY")
        return None

    return describe


class OpenAIModelClient:
    """A model behind the official openai SDK's Chat Completions (OpenAI or compatible)."""

    def __init__(
        self,
        model: str,
        *,
        provider: str = "openai",
        client: openai.AsyncOpenAI | None = None,
        policy: RetryPolicy | None = None,
        max_tokens: int = 1024,
    ) -> None:
        self._model = model
        self._provider = provider
        self._client = client or openai.AsyncOpenAI(max_retries=0, timeout=DEFAULT_TIMEOUT)
        self._policy = policy or RetryPolicy()
        self._max_tokens = max_tokens
        self._describe = error_describer(provider)

    @property
    def model(self) -> str:
        """The model name as the server knows it (without an ``openai:`` prefix)."""
        return self._model

    @property
    def provider(self) -> str:
        """``openai`` or ``openai-compatible``."""
        return self._provider

    async def complete(
        self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        """Send the conversation and return the reply; LLMError after retries or timeout."""
        converted_tools = to_openai_tools(tools)
        converted_messages = to_openai_messages(messages, system)
        # OpenAI deprecated max_tokens (reasoning models refuse it), but local
        # servers imitating the API often know only max_tokens.
        hosted = self._provider == "openai"

        async def send() -> ChatCompletion:
            return await self._client.chat.completions.create(
                model=self._model,
                messages=converted_messages,
                tools=converted_tools or openai.omit,
                max_completion_tokens=self._max_tokens if hosted else openai.omit,
                max_tokens=openai.omit if hosted else self._max_tokens,
            )

        started = time.monotonic()
        response, attempts = await call_with_retries(self._policy, send, self._describe)
        latency = time.monotonic() - started
        text, calls, usage, finish_reason = parse_openai_reply(response, self._provider)
        return ModelReply(
            text=text,
            tool_calls=calls,
            usage=usage,
            latency=latency,
            stop_reason=finish_reason,
            attempts=attempts,
            extra={"response_id": response.id},
        )

    async def aclose(self) -> None:
        """Close the SDK client's HTTP connections."""
        await self._client.close()
