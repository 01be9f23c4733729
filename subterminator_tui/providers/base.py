"""The provider-neutral face of a model: a conversation in, one reply (text and tool calls) out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.costs import Usage


@dataclass(frozen=True)
class ToolSpec:
    """A tool as offered to a model (converted to each provider's format by its client)."""

    name: str
    description: str
    input_schema: dict[str, Any]


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
