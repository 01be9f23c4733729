"""The retry policy: which failures are retried, how long it waits, what the error says."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from subterminator_tui.errors import LLMError
from subterminator_tui.providers.retry import (
    CallFailure,
    RetryPolicy,
    call_with_retries,
    is_retryable_status,
    scrub_secrets,
)
from tests.fakes.provider_env import clear_provider_env


class RecordedSleep:
    """A sleep that records the requested delays instead of sleeping."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


class Flaky(Exception):
    """A stand-in provider error."""

    def __init__(self, retryable: bool) -> None:
        super().__init__("flaky")
        self.retryable = retryable


def describe(error: Exception) -> CallFailure | None:
    """Classify Flaky; let anything else through."""
    if isinstance(error, Flaky):
        return CallFailure("fake: HTTP 500 api_error: boom", retryable=error.retryable)
    return None


def failing_then(
    results: list[Exception | str],
) -> tuple[list[int], Callable[[], Awaitable[str]]]:
    """A send() that raises or returns the given results in order, counting calls."""
    calls: list[int] = []

    async def send() -> str:
        calls.append(1)
        item = results[len(calls) - 1]
        if isinstance(item, Exception):
            raise item
        return item

    return calls, send


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 529])
def test_transient_statuses_are_retryable(status: int) -> None:
    """Timeouts, conflicts, rate limits and server errors are worth another attempt."""
    assert is_retryable_status(status)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 413, 422])
def test_client_errors_are_not_retryable(status: int) -> None:
    """Bad requests, bad keys and unknown models never are."""
    assert not is_retryable_status(status)


def test_delays_follow_the_policy() -> None:
    """The wait after attempt n is delays[n-1], the last delay repeating."""
    policy = RetryPolicy()
    assert [policy.delay_after(n) for n in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 4.0]


def test_scrub_replaces_key_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """Values of ANTHROPIC_API_KEY and OPENAI_API_KEY become ***."""
    clear_provider_env(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-SECRET-1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-oai-SECRET-2")
    assert scrub_secrets("a sk-ant-SECRET-1 b sk-oai-SECRET-2") == "a *** b ***"


def test_scrub_ignores_short_placeholder_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """A short placeholder key is not a secret and must not mangle the message."""
    clear_provider_env(monkeypatch)
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    assert scrub_secrets("max tokens exceeded") == "max tokens exceeded"


async def test_success_after_retry_reports_attempts() -> None:
    """A retryable failure then success returns the result and 2 attempts."""
    sleep = RecordedSleep()
    _calls, send = failing_then([Flaky(retryable=True), "ok"])
    result = await call_with_retries(RetryPolicy(sleep=sleep), send, describe)
    assert result == ("ok", 2)
    assert sleep.delays == [1.0]


async def test_gives_up_after_all_attempts() -> None:
    """Three retryable failures end in LLMError after waits of 1 s and 2 s."""
    sleep = RecordedSleep()
    calls, send = failing_then([Flaky(True), Flaky(True), Flaky(True)])
    with pytest.raises(LLMError, match="gave up after 3 attempts"):
        await call_with_retries(RetryPolicy(sleep=sleep), send, describe)
    assert (len(calls), sleep.delays) == (3, [1.0, 2.0])


async def test_non_retryable_failure_stops_at_once() -> None:
    """A non-retryable failure raises LLMError after one attempt without waiting."""
    sleep = RecordedSleep()
    calls, send = failing_then([Flaky(retryable=False)])
    with pytest.raises(LLMError):
        await call_with_retries(RetryPolicy(sleep=sleep), send, describe)
    assert (len(calls), sleep.delays) == (1, [])


async def test_unclassified_errors_propagate_unchanged() -> None:
    """An exception the describer does not know is not turned into LLMError."""
    _calls, send = failing_then([KeyError("bug")])
    with pytest.raises(KeyError):
        await call_with_retries(RetryPolicy(sleep=RecordedSleep()), send, describe)


async def test_sdk_timeout_is_not_retried() -> None:
    """A timeout reported by the SDK ends the call with "timed out" after one attempt."""

    def timed_out(_error: Exception) -> CallFailure:
        return CallFailure("fake: Request timed out.", retryable=True, timed_out=True)

    sleep = RecordedSleep()
    calls, send = failing_then([Flaky(True)])
    with pytest.raises(LLMError, match="timed out"):
        await call_with_retries(RetryPolicy(sleep=sleep), send, timed_out)
    assert (len(calls), sleep.delays) == (1, [])
