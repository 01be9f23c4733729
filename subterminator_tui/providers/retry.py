"""The one retry layer around model calls: bounded attempts, fixed back-off, scrubbed errors.

The SDK clients are built with ``max_retries=0`` so that this is the only
place a request is repeated; stacking our retries on the SDK's would multiply
both the requests and the wait.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from subterminator_tui.errors import LLMError

T = TypeVar("T")

#: Seconds one model call may take, per attempt; also handed to the SDK clients.
DEFAULT_TIMEOUT = 60.0

#: Environment variables whose values must never appear in an error message.
SECRET_VARIABLES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")

# Shorter values are placeholders, not secrets; scrubbing them would mangle
# ordinary words in the message (a key of "x" would hit every "x").
_MIN_SECRET_LENGTH = 8

# Request timeout, conflict (Anthropic uses it for transient contention), rate limit.
_RETRYABLE_4XX = frozenset({408, 409, 429})


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long a model call is tried.

    The wait before attempt ``n + 1`` is ``delays[n - 1]``; ``sleep`` is
    injectable so tests can record the waits instead of sleeping.
    """

    attempts: int = 3
    delays: tuple[float, ...] = (1.0, 2.0, 4.0)
    timeout: float = DEFAULT_TIMEOUT
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    def delay_after(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        if not self.delays:
            return 0.0
        return self.delays[min(attempt, len(self.delays)) - 1]


@dataclass(frozen=True)
class CallFailure:
    """A provider error, classified by the provider's client for the retry loop."""

    #: Provider, HTTP status and the API's own message (secrets are scrubbed later).
    message: str
    retryable: bool
    #: The SDK's own timeout fired; treated like ours (not retried).
    timed_out: bool = False


def timeout_failure(provider: str, message: str) -> CallFailure:
    """The SDK's own timeout fired."""
    return CallFailure(f"{provider}: {message}", retryable=False, timed_out=True)


def connection_failure(provider: str, host: str, message: str) -> CallFailure:
    """The API could not be reached; worth another attempt."""
    return CallFailure(f"Cannot reach the {provider} API at {host}: {message}", retryable=True)


def status_failure(
    provider: str, status: int, error_type: str | None, detail: str, key_variable: str
) -> CallFailure:
    """An HTTP error from the API, with a hint at the key on 401/403."""
    kind = f" {error_type}" if error_type else ""
    hint = f" Check {key_variable}." if status in (401, 403) else ""
    return CallFailure(
        f"{provider} API error: HTTP {status}{kind}: {detail.rstrip('.')}.{hint}",
        retryable=is_retryable_status(status),
    )


#: Turns an exception from ``send`` into a CallFailure, or None to let it propagate.
DescribeError = Callable[[Exception], CallFailure | None]


def is_retryable_status(status: int) -> bool:
    """Whether an HTTP status is worth another attempt (408, 409, 429, 5xx incl. 529)."""
    return status in _RETRYABLE_4XX or 500 <= status <= 599


def scrub_secrets(text: str) -> str:
    """``text`` with the value of every API-key variable in the environment replaced by ***."""
    for variable in SECRET_VARIABLES:
        value = os.environ.get(variable, "")
        if len(value) >= _MIN_SECRET_LENGTH:
            text = text.replace(value, "***")
    return text


def _timed_out(policy: RetryPolicy, detail: str = "") -> LLMError:
    suffix = f" ({detail})" if detail else ""
    return LLMError(
        scrub_secrets(
            f"Model call timed out after {policy.timeout:g} s{suffix}. "
            "Check your network or the provider's status, then try again."
        )
    )


async def call_with_retries(
    policy: RetryPolicy, send: Callable[[], Awaitable[T]], describe_error: DescribeError
) -> tuple[T, int]:
    """Run ``send`` under ``policy``; return its result and the number of attempts made.

    Raises LLMError when an attempt times out (never retried: three full
    timeouts would stall a run for minutes), on a non-retryable error, or when
    every attempt failed. The original exception is not chained, because SDK
    errors carry the raw response body, which may echo a key.
    """
    attempts = max(1, policy.attempts)
    for attempt in range(1, attempts + 1):
        try:
            return await asyncio.wait_for(send(), timeout=policy.timeout), attempt
        except TimeoutError:
            raise _timed_out(policy) from None
        except Exception as error:
            failure = describe_error(error)
            if failure is None:
                raise
            if failure.timed_out:
                raise _timed_out(policy, failure.message) from None
            if not failure.retryable:
                raise LLMError(scrub_secrets(failure.message)) from None
            if attempt == attempts:
                raise LLMError(
                    scrub_secrets(f"{failure.message} (gave up after {attempts} attempts)")
                ) from None
        await policy.sleep(policy.delay_after(attempt))
    raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover
