"""The real anthropic and openai SDK clients against FakeModelServer on loopback.

The SDKs are pointed at the fake through their own environment variables
(ANTHROPIC_BASE_URL, OPENAI_BASE_URL), exactly as a user would redirect them.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager

import pytest

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.errors import LLMError
from subterminator_tui.providers.anthropic_client import AnthropicModelClient
from subterminator_tui.providers.base import (
    AssistantMessage,
    Message,
    ModelClient,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from subterminator_tui.providers.openai_client import OpenAIModelClient
from subterminator_tui.providers.resolution import create_model_client
from subterminator_tui.providers.retry import RetryPolicy
from subterminator_tui.settings import load_settings
from tests.fakes.fake_model import FakeModelServer, FakeRequest, FakeTurn
from tests.fakes.provider_env import clear_provider_env

ANTHROPIC_KEY = "sk-ant-FAKE-never-show-me-4242"
OPENAI_KEY = "sk-proj-FAKE-never-show-me-4242"
MODELS = ["claude-sonnet-5-5", "gpt-4o"]
CLICK = ToolSpec(
    name="browser_click",
    description="Click an element",
    input_schema={"type": "object", "properties": {"target": {"type": "string"}}},
)
SNAPSHOT = ToolSpec(
    name="browser_snapshot", description="Read the page", input_schema={"type": "object"}
)
GOAL = [UserMessage("Cancel the subscription")]


class RecordedSleep:
    """A sleep that records the requested delays instead of sleeping."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture(autouse=True)
def fake_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Distinctive fake keys, and nothing else from the developer's environment."""
    clear_provider_env(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)


@pytest.fixture
def sleep() -> RecordedSleep:
    """The recorded back-off waits of the test's client."""
    return RecordedSleep()


#: Starts a FakeModelServer and points both SDKs at it.
Serve = Callable[[FakeModelServer], FakeModelServer]


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[Serve]:
    """Start servers, redirect the SDKs through their own env variables, stop them after."""
    started: list[FakeModelServer] = []

    def start(server: FakeModelServer) -> FakeModelServer:
        started.append(server.start())
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
        return server

    yield start
    for server in started:
        server.stop()


def scripted(*turns: FakeTurn) -> FakeModelServer:
    """A (not yet started) server answering ``turns`` in order."""
    return FakeModelServer.scripted(list(turns))


@asynccontextmanager
async def opened(model: str, policy: RetryPolicy) -> AsyncIterator[ModelClient]:
    """A client from create_model_client, closed afterwards."""
    client = create_model_client(model, load_settings(), policy=policy)
    try:
        yield client
    finally:
        assert isinstance(client, AnthropicModelClient | OpenAIModelClient)
        await client.aclose()


@pytest.mark.parametrize("model", MODELS)
async def test_tool_call_and_usage_come_back(
    model: str,
    serve: Serve,
    sleep: RecordedSleep,
) -> None:
    """A call offering tool schemas returns the model's tool call and its usage."""
    turn = FakeTurn(text="Opening account page", tool_calls=[("browser_click", {"target": "e3"})])
    serve(scripted(turn))
    async with opened(model, RetryPolicy(sleep=sleep)) as client:
        reply = await client.complete("Be careful", GOAL, [CLICK])
    assert [(call.name, call.arguments) for call in reply.tool_calls] == [
        ("browser_click", {"target": "e3"})
    ]
    assert reply.text == "Opening account page"
    assert reply.usage.input_tokens > 0 and reply.usage.output_tokens > 0
    assert reply.stop_reason in ("tool_use", "tool_calls")
    assert (reply.attempts, reply.latency > 0) == (1, True)


@pytest.mark.parametrize("model", MODELS)
async def test_request_carries_system_and_tools_in_provider_format(
    model: str,
    serve: Serve,
    sleep: RecordedSleep,
) -> None:
    """The fake sees the offered tools and the system prompt where each API expects them."""
    server = serve(scripted(FakeTurn(text="ok")))
    async with opened(model, RetryPolicy(sleep=sleep)) as client:
        await client.complete("Be careful", GOAL, [CLICK, SNAPSHOT])
    body = server.requests[0].body
    assert FakeRequest(server.requests[0].api, body, {}).tool_names == [
        "browser_click",
        "browser_snapshot",
    ]
    if server.requests[0].api == "anthropic":
        # One text block carrying the cache breakpoint for the tools and itself.
        assert [block["text"] for block in body["system"]] == ["Be careful"]
    else:
        assert body["messages"][0] == {"role": "system", "content": "Be careful"}


@pytest.mark.parametrize("model", MODELS)
async def test_multiple_tool_calls_keep_their_order(
    model: str,
    serve: Serve,
    sleep: RecordedSleep,
) -> None:
    """Several tool calls in one reply come back in the order the model gave them."""
    calls = [
        ("browser_snapshot", {}),
        ("browser_click", {"target": "e1"}),
        ("browser_click", {"target": "e2"}),
    ]
    serve(scripted(FakeTurn(tool_calls=calls)))
    async with opened(model, RetryPolicy(sleep=sleep)) as client:
        reply = await client.complete("", GOAL, [CLICK, SNAPSHOT])
    assert [(call.name, call.arguments) for call in reply.tool_calls] == calls
    assert len({call.id for call in reply.tool_calls}) == 3


@pytest.mark.parametrize("model", MODELS)
async def test_tool_result_round_trip(
    model: str,
    serve: Serve,
    sleep: RecordedSleep,
) -> None:
    """A converted conversation with a tool call and its result is accepted and read back."""
    serve(FakeModelServer(lambda request: FakeTurn(text=f"saw {request.latest_text}")))
    conversation: list[Message] = [
        *GOAL,
        AssistantMessage("", (ToolCall("call_9", "browser_click", {"target": "e1"}),)),
        ToolResultMessage("call_9", "Page: Account"),
    ]
    async with opened(model, RetryPolicy(sleep=sleep)) as client:
        reply = await client.complete("", conversation, [CLICK])
    assert reply.text == "saw Page: Account"


@pytest.mark.parametrize("status", [408, 409, 429, 500, 529])
@pytest.mark.parametrize("model", MODELS)
async def test_transient_error_then_success_is_retried(
    model: str,
    status: int,
    serve: Serve,
    sleep: RecordedSleep,
) -> None:
    """A 429 (or other transient status) then success: 2 requests, one 1 s wait."""
    server = serve(scripted(FakeTurn(status=status), FakeTurn(text="ok")))
    async with opened(model, RetryPolicy(sleep=sleep)) as client:
        reply = await client.complete("", GOAL, [CLICK])
    assert (reply.text, reply.attempts) == ("ok", 2)
    assert (len(server.requests), sleep.delays) == (2, [1.0])


@pytest.mark.parametrize("model", MODELS)
async def test_persistent_server_error_gives_up_after_three_requests(
    model: str,
    serve: Serve,
    sleep: RecordedSleep,
) -> None:
    """500, 500, 500: LLMError with the status after exactly 3 requests and waits of 1 s, 2 s."""
    server = serve(scripted(FakeTurn(status=500)))
    async with opened(model, RetryPolicy(sleep=sleep)) as client:
        with pytest.raises(LLMError, match="HTTP 500") as caught:
            await client.complete("", GOAL, [CLICK])
    assert "Scripted error 500" in str(caught.value)
    assert (len(server.requests), sleep.delays) == (3, [1.0, 2.0])


@pytest.mark.parametrize("model", MODELS)
async def test_sdk_retries_are_off(
    model: str,
    serve: Serve,
    sleep: RecordedSleep,
) -> None:
    """Every request is a first try for the SDK: ours is the only retry layer."""
    server = serve(scripted(FakeTurn(status=529)))
    async with opened(model, RetryPolicy(sleep=sleep)) as client:
        with pytest.raises(LLMError):
            await client.complete("", GOAL, [CLICK])
    assert len(server.requests) == 3
    assert [request.headers["x-stainless-retry-count"] for request in server.requests] == [
        "0",
        "0",
        "0",
    ]


@pytest.mark.parametrize("model", MODELS)
async def test_sdk_timeout_is_sixty_seconds(
    model: str,
    serve: Serve,
    sleep: RecordedSleep,
) -> None:
    """The SDK client itself is bounded at 60 s, as its request headers declare."""
    server = serve(scripted(FakeTurn(text="ok")))
    async with opened(model, RetryPolicy(sleep=sleep)) as client:
        await client.complete("", GOAL, [CLICK])
    assert server.requests[0].headers["x-stainless-read-timeout"] == "60.0"


@pytest.mark.parametrize("model", MODELS)
async def test_unauthorized_is_not_retried(
    model: str,
    serve: Serve,
    sleep: RecordedSleep,
) -> None:
    """401: LLMError naming the key variable after exactly one request."""
    server = serve(scripted(FakeTurn(status=401)))
    async with opened(model, RetryPolicy(sleep=sleep)) as client:
        with pytest.raises(LLMError, match="HTTP 401") as caught:
            await client.complete("", GOAL, [CLICK])
    variable = "ANTHROPIC_API_KEY" if model.startswith("claude") else "OPENAI_API_KEY"
    assert variable in str(caught.value)
    assert (len(server.requests), sleep.delays) == (1, [])


@pytest.mark.parametrize("status", [400, 403, 404, 422])
@pytest.mark.parametrize("model", MODELS)
async def test_client_errors_are_not_retried(
    model: str,
    status: int,
    serve: Serve,
    sleep: RecordedSleep,
) -> None:
    """400 (and 403, 404, 422) fail at once: one request, no wait."""
    server = serve(scripted(FakeTurn(status=status)))
    async with opened(model, RetryPolicy(sleep=sleep)) as client:
        with pytest.raises(LLMError, match=f"HTTP {status}"):
            await client.complete("", GOAL, [CLICK])
    assert (len(server.requests), sleep.delays) == (1, [])


@pytest.mark.parametrize("model", MODELS)
async def test_slow_model_times_out_without_retry(
    model: str,
    serve: Serve,
    sleep: RecordedSleep,
) -> None:
    """An answer slower than the policy's timeout ends in "timed out" after one request."""
    server = serve(scripted(FakeTurn(text="late", delay=3.0)))
    async with opened(model, RetryPolicy(timeout=0.5, sleep=sleep)) as client:
        with pytest.raises(LLMError, match=r"timed out after 0\.5 s"):
            await client.complete("", GOAL, [CLICK])
    assert (len(server.requests), sleep.delays) == (1, [])


@pytest.mark.parametrize("model", MODELS)
async def test_api_key_never_appears_in_the_error(
    model: str,
    serve: Serve,
    sleep: RecordedSleep,
) -> None:
    """A 401 whose message echoes the key yields an LLMError with the key replaced by ***."""
    key = ANTHROPIC_KEY if model.startswith("claude") else OPENAI_KEY
    message = f"Incorrect API key provided: {key}"
    if model.startswith("claude"):
        body = {"type": "error", "error": {"type": "authentication_error", "message": message}}
    else:
        body = {
            "error": {
                "message": message,
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            }
        }
    serve(scripted(FakeTurn(status=401, error_body=body)))
    async with opened(model, RetryPolicy(sleep=sleep)) as client:
        with pytest.raises(LLMError) as caught:
            await client.complete("", GOAL, [CLICK])
    assert key not in str(caught.value)
    assert "Incorrect API key provided: ***" in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


@pytest.mark.parametrize("model", MODELS)
async def test_unreachable_server_is_retried_then_reported(
    model: str, monkeypatch: pytest.MonkeyPatch, sleep: RecordedSleep
) -> None:
    """A refused connection is retried with the usual waits, then reported as unreachable."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    async with opened(model, RetryPolicy(sleep=sleep)) as client:
        with pytest.raises(LLMError, match="Cannot reach"):
            await client.complete("", GOAL, [CLICK])
    assert sleep.delays == [1.0, 2.0]


async def test_openai_compatible_server_via_settings(
    monkeypatch: pytest.MonkeyPatch, serve: Serve, sleep: RecordedSleep
) -> None:
    """openai:<name> reaches the server named by SUBTERMINATOR_OPENAI_COMPATIBLE_BASE_URL."""
    server = serve(scripted(FakeTurn(tool_calls=[("browser_click", {"target": "e5"})])))
    monkeypatch.setenv("SUBTERMINATOR_OPENAI_COMPATIBLE_BASE_URL", server.openai_base_url)
    # The configured URL must win over the SDK's own variable.
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("OPENAI_API_KEY")
    async with opened("openai:llama3", RetryPolicy(sleep=sleep)) as client:
        reply = await client.complete("", GOAL, [CLICK])
    assert reply.tool_calls[0].arguments == {"target": "e5"}
    request = server.requests[0]
    assert (request.body["model"], request.body["max_tokens"]) == ("llama3", 1024)
    assert "max_completion_tokens" not in request.body
    assert request.headers["authorization"] == "Bearer not-needed"


async def test_hosted_openai_sends_max_completion_tokens(
    serve: Serve, sleep: RecordedSleep
) -> None:
    """OpenAI proper gets max_completion_tokens (reasoning models refuse max_tokens)."""
    server = serve(scripted(FakeTurn(text="ok")))
    async with opened("o3-mini", RetryPolicy(sleep=sleep)) as client:
        await client.complete("", GOAL, [CLICK])
    body = server.requests[0].body
    assert (body["max_completion_tokens"], "max_tokens" in body) == (1024, False)


#: A system prompt long enough for either provider to cache (over 1,024 tokens).
LONG_SYSTEM = "Cancel subscriptions carefully; never accept an offer. " * 100


def tool_conversation(pages: int) -> list[Message]:
    """The pilot's conversation after ``pages`` pages: the goal, stubs, and the newest page."""
    messages: list[Message] = [UserMessage("Goal: cancel"), UserMessage("Current page: 1")]
    for number in range(1, pages):
        messages[-1] = (
            ToolResultMessage(f"toolu_{number - 1}", "[old page]")
            if number > 1
            else UserMessage("[old page]")
        )
        call = ToolCall(f"toolu_{number}", "browser_click", {"target": f"e{number}"})
        messages.append(AssistantMessage("", (call,)))
        messages.append(ToolResultMessage(f"toolu_{number}", f"Current page: {number + 1}"))
    return messages


@pytest.mark.parametrize("model", MODELS)
async def test_a_repeated_prefix_is_read_from_the_cache(
    serve: Serve, sleep: RecordedSleep, model: str
) -> None:
    """The second call of a conversation reads the first call's prefix from the cache, and the
    usage says so the way the provider does (Anthropic: cache fields; OpenAI: cached_tokens)."""
    serve(scripted(FakeTurn(tool_calls=[("browser_click", {"target": "e1"})])))
    async with opened(model, RetryPolicy(sleep=sleep)) as client:
        first = await client.complete(LONG_SYSTEM, tool_conversation(1), [CLICK])
        second = await client.complete(LONG_SYSTEM, tool_conversation(2), [CLICK])
    assert first.usage.cache_read_tokens == 0
    assert second.usage.cache_read_tokens >= 1024
    assert second.usage.input_tokens > second.usage.cache_read_tokens
    if model.startswith("claude"):
        # Anthropic writes at its breakpoints; the uncached rest is counted apart.
        assert first.usage.cache_write_tokens >= 1024
        assert second.usage.uncached_input_tokens > 0
    else:
        # OpenAI reports whole 128-token steps of the cached beginning.
        assert (second.usage.cache_read_tokens - 1024) % 128 == 0


@pytest.mark.parametrize("model", MODELS)
async def test_a_prompt_under_the_minimum_is_never_cached(
    serve: Serve, sleep: RecordedSleep, model: str
) -> None:
    """Under 1,024 tokens neither provider caches: the same short call twice reads nothing."""
    serve(scripted(FakeTurn(tool_calls=[("browser_click", {"target": "e1"})])))
    async with opened(model, RetryPolicy(sleep=sleep)) as client:
        await client.complete("Be careful.", GOAL, [CLICK])
        again = await client.complete("Be careful.", GOAL, [CLICK])
    assert again.usage.cache_read_tokens == again.usage.cache_write_tokens == 0


async def test_anthropic_marks_the_system_prompt_and_the_block_before_the_page(
    serve: Serve, sleep: RecordedSleep
) -> None:
    """Breakpoints after the system prompt (the tools come before it) and before the newest
    page, never on the page itself, which the next call replaces by a stub."""
    server = serve(scripted(FakeTurn(tool_calls=[("browser_click", {"target": "e1"})])))
    async with opened("claude-sonnet-5-5", RetryPolicy(sleep=sleep)) as client:
        await client.complete(LONG_SYSTEM, tool_conversation(3), [CLICK, SNAPSHOT])
    body = server.requests[0].body
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    blocks = [block for message in body["messages"] for block in message["content"]]
    assert "cache_control" not in blocks[-1]
    assert blocks[-2]["type"] == "tool_use" and blocks[-2]["cache_control"]["type"] == "ephemeral"
    assert sum("cache_control" in block for block in blocks) == 1
    assert [tool["name"] for tool in body["tools"]] == ["browser_click", "browser_snapshot"]
