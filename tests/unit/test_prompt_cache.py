"""The loopback model's prompt cache plays each provider's documented rules."""

from __future__ import annotations

from typing import Any

from subterminator_bench.prompt_cache import PromptCache

MARK = {"type": "ephemeral"}
#: About 1,500 tokens of system prompt (four characters a token): over the minimum.
LONG = "Decline every offer and keep the person in charge. " * 120


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def anthropic_body(system: str, *turns: str, mark_last_but_one: bool = True) -> dict[str, Any]:
    """A Messages request: the system prompt marked, one user text block per turn."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text} for text in turns]
    if mark_last_but_one and len(blocks) > 1:
        blocks[-2] = {**blocks[-2], "cache_control": MARK}
    return {
        "tools": [{"name": "browser_click", "input_schema": {"type": "object"}}],
        "system": [{"type": "text", "text": system, "cache_control": MARK}],
        "messages": [{"role": "user", "content": blocks}],
    }


def test_anthropic_writes_at_a_breakpoint_then_reads_it() -> None:
    """The first request writes the marked prefix; the same prefix is then read, not written."""
    cache = PromptCache()
    first = cache.anthropic(anthropic_body(LONG, "goal", "page 1"))
    second = cache.anthropic(anthropic_body(LONG, "goal", "page 2"))
    assert first.read == 0 and first.written > 1024
    assert second.read == first.written and second.written == 0


def test_anthropic_caches_nothing_under_the_minimum() -> None:
    """A marked prefix under 1,024 tokens is neither written nor read."""
    cache = PromptCache()
    cache.anthropic(anthropic_body("short", "goal", "page"))
    again = cache.anthropic(anthropic_body("short", "goal", "page"))
    assert (again.read, again.written) == (0, 0)


def test_anthropic_caches_only_where_asked() -> None:
    """Without a breakpoint nothing is cached, however long the prompt."""
    cache = PromptCache()
    body = anthropic_body(LONG, "goal", "page", mark_last_but_one=False)
    body["system"] = LONG
    cache.anthropic(body)
    assert cache.anthropic(body).read == 0


def test_anthropic_reads_an_earlier_breakpoint_within_the_lookback() -> None:
    """A longer conversation reads the prefix an earlier request wrote, and writes the rest."""
    cache = PromptCache()
    first = cache.anthropic(anthropic_body(LONG, "goal", "page 1"))
    longer = cache.anthropic(anthropic_body(LONG, "goal", "reply", "result", "page 2"))
    assert longer.read == first.written
    assert longer.written > 0


def test_entries_expire_after_five_minutes_unless_read() -> None:
    """Reading refreshes an entry; six idle minutes drop it."""
    clock = Clock()
    cache = PromptCache(clock=clock)
    cache.anthropic(anthropic_body(LONG, "goal", "page"))
    clock.now = 240
    assert cache.anthropic(anthropic_body(LONG, "goal", "page")).read > 0
    clock.now = 480
    assert cache.anthropic(anthropic_body(LONG, "goal", "page")).read > 0
    clock.now = 900
    assert cache.anthropic(anthropic_body(LONG, "goal", "page")).read == 0


def openai_body(*messages: str) -> dict[str, Any]:
    """A Chat Completions request: system first, then user messages."""
    return {
        "tools": [{"type": "function", "function": {"name": "browser_click"}}],
        "messages": [{"role": "system", "content": LONG}]
        + [{"role": "user", "content": text} for text in messages],
    }


def test_openai_serves_the_matching_beginning_in_128_token_steps() -> None:
    """No marks needed: the second prompt's shared beginning is cached, in whole steps."""
    cache = PromptCache()
    assert cache.openai(openai_body("goal", "page 1")).read == 0
    again = cache.openai(openai_body("goal", "page 2"))
    assert again.read >= 1024 and (again.read - 1024) % 128 == 0
    assert again.written == 0


def test_openai_shares_nothing_when_the_beginning_differs() -> None:
    """A different first message (a clock, a counter) misses the cache entirely."""
    cache = PromptCache()
    cache.openai(openai_body("goal"))
    changed = openai_body("goal")
    changed["messages"][0]["content"] = "12:01 " + LONG
    assert cache.openai(changed).read == 0
