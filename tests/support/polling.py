"""Waiting on state nothing signals to a test: a server's counters, another program's processes.

Each helper polls at a short interval until its condition holds or a deadline passes; the
condition decides, never the delay, so a fast machine waits a few milliseconds and a busy
one waits as long as the deadline allows.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

#: How often a condition is looked at again: short, so a wait ends soon after its condition.
INTERVAL = 0.05

Seen = TypeVar("Seen")


async def until(
    condition: Callable[[], bool | Awaitable[bool]],
    within: float = 30.0,
    what: str = "the condition",
) -> None:
    """Poll ``condition`` (plain or awaitable) until true; fail naming ``what`` after ``within``."""
    deadline = time.monotonic() + within
    while True:
        holds = condition()
        if inspect.isawaitable(holds):
            holds = await holds
        if holds:
            return
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(INTERVAL)


def last_polled(
    probe: Callable[[], Seen],
    done: Callable[[Seen], bool],
    within: float,
    every: float = INTERVAL,
) -> Seen:
    """Call ``probe`` until ``done`` accepts its value or ``within`` s pass; the last value.

    For synchronous code watching another program (its processes, a file it writes): the
    caller asserts on the value returned, so a failure shows what was last seen.
    """
    deadline = time.monotonic() + within
    while True:
        value = probe()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(every)
