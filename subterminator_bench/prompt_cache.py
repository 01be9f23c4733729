"""The providers' prompt caches, as their documentation describes them, for the loopback model.

Anthropic caches only where a request asks (``cache_control`` breakpoints): a
breakpoint whose prefix (tools, then system, then messages) is long enough is
written; a later request reads the longest cached prefix it finds at one of its
own breakpoints or up to 20 blocks before one. OpenAI caches every prompt of
1,024 tokens or more on its own and serves the longest matching beginning, in
steps of 128 tokens. Entries live five minutes, refreshed when read.

Token counts are estimates (four characters of the compact JSON a token), the
same measure the loopback model uses for whole requests, so reads plus writes
never exceed the prompt.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

#: The shortest prefix either provider caches (Anthropic's Sonnet and OpenAI's floor).
MINIMUM_TOKENS = 1024
#: How far before a breakpoint Anthropic looks for an earlier cached prefix.
LOOKBACK_BLOCKS = 20
OPENAI_STEP = 128
TTL_SECONDS = 300.0


@dataclass(frozen=True)
class CacheUse:
    """How much of one prompt came from the cache and how much was written to it."""

    read: int = 0
    written: int = 0


@dataclass(frozen=True)
class _Boundary:
    """The end of one block of the prompt: the prefix's hash and size, and whether it is marked."""

    digest: str
    tokens: int
    marked: bool


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def _without_mark(block: Any) -> Any:
    if isinstance(block, dict):
        return {key: value for key, value in block.items() if key != "cache_control"}
    return block


def _boundaries(blocks: Iterator[Any]) -> list[_Boundary]:
    chain = hashlib.sha256()
    size = 0
    found: list[_Boundary] = []
    for block in blocks:
        text = _compact(_without_mark(block))
        chain.update(text.encode())
        size += len(text)
        marked = isinstance(block, dict) and "cache_control" in block
        found.append(_Boundary(chain.copy().hexdigest(), size // 4, marked))
    return found


def _anthropic_blocks(body: dict[str, Any]) -> Iterator[Any]:
    """The prompt's blocks in the order Anthropic caches them: tools, system, messages."""
    yield from body.get("tools") or []
    system = body.get("system")
    if isinstance(system, str):
        yield {"type": "text", "text": system}
    elif isinstance(system, list):
        yield from system
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            yield {"role": message.get("role"), "text": content}
        else:
            for block in content or []:
                yield {"role": message.get("role"), **block} if isinstance(block, dict) else block


def _openai_blocks(body: dict[str, Any]) -> Iterator[Any]:
    """Tools first, then each message whole (OpenAI matches the prompt's beginning)."""
    yield from body.get("tools") or []
    yield from body.get("messages") or []


class PromptCache:
    """One organisation's prompt cache, shared by every request made with its key."""

    def __init__(
        self,
        minimum_tokens: int = MINIMUM_TOKENS,
        ttl_seconds: float = TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.minimum_tokens = minimum_tokens
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._expiry: dict[str, float] = {}

    def anthropic(self, body: dict[str, Any]) -> CacheUse:
        """Read and write as Anthropic would for this Messages request."""
        boundaries = _boundaries(_anthropic_blocks(body))
        marks = [index for index, boundary in enumerate(boundaries) if boundary.marked]
        with self._lock:
            now = self._clock()
            read = 0
            for mark in marks:
                for index in range(mark, max(-1, mark - LOOKBACK_BLOCKS - 1), -1):
                    if self._alive(boundaries[index].digest, now):
                        self._expiry[boundaries[index].digest] = now + self.ttl_seconds
                        read = max(read, boundaries[index].tokens)
                        break
            written_to = read
            for mark in marks:
                boundary = boundaries[mark]
                if boundary.tokens >= self.minimum_tokens and boundary.tokens > read:
                    self._expiry[boundary.digest] = now + self.ttl_seconds
                    written_to = max(written_to, boundary.tokens)
        return CacheUse(read=read, written=written_to - read)

    def openai(self, body: dict[str, Any]) -> CacheUse:
        """Read as OpenAI would for this Chat Completions request, then cache the prompt."""
        boundaries = _boundaries(_openai_blocks(body))
        with self._lock:
            now = self._clock()
            matched = 0
            for boundary in boundaries:
                if not self._alive(boundary.digest, now):
                    break
                matched = boundary.tokens
                self._expiry[boundary.digest] = now + self.ttl_seconds
            if boundaries and boundaries[-1].tokens >= self.minimum_tokens:
                # The whole prompt is cached, so any of its beginnings can match later.
                for boundary in boundaries:
                    self._expiry[boundary.digest] = now + self.ttl_seconds
        if matched < self.minimum_tokens:
            return CacheUse()
        steps = (matched - self.minimum_tokens) // OPENAI_STEP
        return CacheUse(read=self.minimum_tokens + steps * OPENAI_STEP)

    def _alive(self, digest: str, now: float) -> bool:
        expiry = self._expiry.get(digest)
        return expiry is not None and expiry > now
