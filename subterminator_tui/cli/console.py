"""Terminal input for the headless front end, readable without blocking the event loop."""

from __future__ import annotations

import asyncio
import os
import sys


async def read_line(prompt: str = "") -> str | None:
    """Print ``prompt`` and read one line from stdin; None at end of input.

    Not ``to_thread(input)``: a thread blocked in ``read()`` cannot be
    cancelled, and Ctrl+C would then hang until the person presses Enter.
    """
    if prompt:
        sys.stdout.write(prompt)
        sys.stdout.flush()
    loop = asyncio.get_running_loop()
    fd = sys.stdin.fileno()
    buffer = bytearray()
    while True:
        readable: asyncio.Future[None] = loop.create_future()
        loop.add_reader(fd, _set_once, readable)
        try:
            await readable
        finally:
            loop.remove_reader(fd)
        chunk = os.read(fd, 1)
        if not chunk:
            return buffer.decode(errors="replace") if buffer else None
        if chunk == b"\n":
            return buffer.decode(errors="replace")
        buffer.extend(chunk)


def _set_once(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def error(message: str) -> None:
    """A diagnostic on stderr, never on stdout (which scripts parse)."""
    print(f"error: {message}", file=sys.stderr)
