"""Terminal input for the headless front end, readable without blocking the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TextIO

from subterminator_tui.inert_text import inert_text


async def read_line(
    prompt: str = "", *, out: TextIO | None = None, echo: bool = True
) -> str | None:
    """Print ``prompt`` and read one line from stdin; None at end of input.

    When stdin is not a terminal (a script answering), the answer is echoed
    after the prompt so the transcript reads like a session; ``echo=False``
    only ends the line (secrets).
    """
    stream = out or sys.stdout
    if prompt:
        stream.write(inert_text(prompt))
        stream.flush()
    line = await _read_stdin_line()
    if prompt and not os.isatty(sys.stdin.fileno()):
        stream.write((line or "") + "\n" if echo else "\n")
        stream.flush()
    return line


async def _read_stdin_line() -> str | None:
    # Not ``to_thread(input)``: a thread blocked in ``read()`` cannot be
    # cancelled, and Ctrl+C would then hang until the person presses Enter.
    loop = asyncio.get_running_loop()
    fd = sys.stdin.fileno()
    buffer = bytearray()
    pollable = True
    while True:
        if pollable:
            readable: asyncio.Future[None] = loop.create_future()
            try:
                loop.add_reader(fd, _set_once, readable)
            except PermissionError:
                # A regular file or /dev/null (answers from a file, cron, CI): epoll
                # cannot watch it, and reading it never blocks.
                pollable = False
            else:
                try:
                    await readable
                finally:
                    loop.remove_reader(fd)
        chunk = os.read(fd, 1)
        if not chunk:
            return buffer.decode(errors="replace") if buffer else None
        if chunk == b"\n":
            return buffer.decode(errors="replace").rstrip("\r")
        buffer.extend(chunk)


async def read_secret(prompt: str, *, out: TextIO | None = None) -> str | None:
    """Like read_line, but a terminal does not echo what is typed."""
    with _no_echo() as masked:
        line = await read_line(prompt, out=out, echo=False)
    if masked:
        stream = out or sys.stdout
        stream.write("\n")
        stream.flush()
    return line


@contextlib.contextmanager
def _no_echo() -> Iterator[bool]:
    fd = sys.stdin.fileno()
    if not os.isatty(fd):
        yield False
        return
    import termios

    saved = termios.tcgetattr(fd)
    quiet = list(saved)
    quiet[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSADRAIN, quiet)
    try:
        yield True
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _set_once(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
