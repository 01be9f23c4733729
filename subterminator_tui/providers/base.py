"""The provider-neutral face of a model: a conversation in, one reply (text and tool calls) out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from subterminator_tui.browser.calls import ToolCall


@dataclass(frozen=True)
class ToolSpec:
    """A tool as offered to a model (converted to each provider's format by its client)."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class Usage:
    """Tokens one model call used, as the provider counted them.

    ``input_tokens`` is every token of the prompt the model read, whether served
    from the prompt cache or not, so sums stay comparable with runs recorded
    before caching; ``cache_read_tokens`` and ``cache_write_tokens`` say how much
    of it came from, or went into, the provider's cache.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def uncached_input_tokens(self) -> int:
        """Prompt tokens billed at the full input price."""
        return max(0, self.input_tokens - self.cache_read_tokens - self.cache_write_tokens)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )


@dataclass(frozen=True)
class UserMessage:
    """Text from us to the model (the goal, a nudge)."""

    text: str


@dataclass(frozen=True)
class AssistantMessage:
    """What the model said; only the tool call that was executed is kept."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass
class ToolResultMessage:
    """The outcome of one tool call. Mutable: an old page is later replaced by a stub."""

    call_id: str
    content: str
    is_error: bool = False


Message = UserMessage | AssistantMessage | ToolResultMessage


@dataclass(frozen=True)
class ModelReply:
    """One model response, normalized."""

    text: str
    tool_calls: tuple[ToolCall, ...]
    usage: Usage
    #: Seconds the call took, retries included.
    latency: float = 0.0
    stop_reason: str | None = None
    attempts: int = 1
    extra: dict[str, Any] = field(default_factory=dict)


class ModelClient(Protocol):
    """A model behind one provider's official SDK."""

    @property
    def model(self) -> str:
        """The model name as the provider knows it."""
        ...

    @property
    def provider(self) -> str:
        """``anthropic``, ``openai`` or ``openai-compatible``."""
        ...

    async def complete(
        self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        """Send the conversation and return the reply; LLMError after retries or timeout."""
        ...

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        ...
